"""`qrels-lsp bm25 GOLDEN -o RUN.trec`: the BM25 baseline of a golden set as a TREC run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import (
    UsageError,
    allow_outside,
    boundary_for,
    config_for,
    log_text,
    output,
    positive_option,
    progress_on,
    workspace_of,
)
from .render import corpus_problem


def add(sub: Any) -> None:
    """The ``bm25`` subcommand's arguments."""
    b = sub.add_parser("bm25", help="export the BM25 baseline of a golden set as a TREC run")
    b.add_argument("golden", type=Path, help="a golden set (or qrels file) with a corpus")
    b.add_argument("-o", "--output", type=Path, required=True, help="the TREC run to write")
    b.add_argument("--depth", type=int, default=100, help="documents per query (default 100)")
    b.add_argument("--config", type=Path)
    allow_outside(b)
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.formats.corpus import Corpus
    from ..core.model import Qrels
    from ..core.project.project import Project
    from ..core.search.baseline import baseline_trec

    positive_option(args.depth, "--depth")
    workspace = workspace_of(args, [args.golden])
    if not args.golden.exists():
        raise UsageError(f"{args.golden} does not exist")
    config = config_for(args.config, args.golden, workspace)
    project = Project(
        config, progress=progress_on(), boundary=boundary_for(args, config, workspace)
    )
    kind, _text, model, error = project.load(args.golden)
    if not isinstance(model, Qrels) or kind is None:
        raise UsageError(
            f"{args.golden} is not a golden set or qrels file ({error or kind or 'unknown format'})"
        )
    ctx = project.context(args.golden, kind, model)
    index = project.indexes.build(ctx.corpus) if isinstance(ctx.corpus, Corpus) else None
    if index is None:
        raise UsageError(f"no corpus to search: {corpus_problem(ctx)}")
    with output(args.output, errors="surrogateescape") as out:  # ids byte for byte
        out.writelines(baseline_trec(model, index, args.depth))
    print(
        f"wrote {log_text(args.output)}: {len(model.queries)} queries, depth {args.depth}",
        file=sys.stderr,
    )
    return 0
