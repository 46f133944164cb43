"""`qrels-lsp lock GOLDEN`: write ``GOLDEN.lock``, what each judged document holds now, so that
`check`, `pool` and the editor notice a judgment made on a document that has changed since
(docs/history.md, "Stale judgments")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import UsageError, allow_outside, log_text, write_file


def add(sub: Any) -> None:
    """The ``lock`` subcommand's arguments."""
    s = sub.add_parser(
        "lock",
        help="record what each judged document holds now (GOLDEN.lock), to notice stale "
        "judgments later",
    )
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument("--config", type=Path)
    allow_outside(s)
    s.set_defaults(func=run, k=None, metrics=None, relevance_level=None, baseline=None, runs=[])


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the lock written; 2 when the golden set has no corpus to lock."""
    from ..core.formats.corpus import Corpus
    from ..core.history.hashes import Hashes
    from ..core.history.lock import lock_path, make_lock
    from .render import corpus_problem
    from .score import golden_context, project_for

    args.format = "table"
    project, config = project_for(args)
    ctx, _entries = golden_context(args, project, config, spans=True)
    if not isinstance(ctx.corpus, Corpus):
        raise UsageError(f"nothing to lock: {corpus_problem(ctx)}")
    text, locked, missing = make_lock(ctx.qrels, ctx.corpus, Hashes(), ctx.chunks)
    path = lock_path(args.golden)
    write_file(path, text)
    note = f"; {len(missing):,} judged ids the corpus lacks are left out" if missing else ""
    print(
        f"qrels-lsp lock: {log_text(path)}: {locked:,} judged documents locked{note}.",
        file=sys.stderr,
    )
    return 0
