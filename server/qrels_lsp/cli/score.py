"""`qrels-lsp score GOLDEN [RUN...]`: per-query values and means, as trec_eval computes them."""

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
    progress_on,
    workspace_of,
)
from .render import corpus_problem, render_scores


def add(sub: Any) -> None:
    """The ``score`` subcommand's arguments."""
    s = sub.add_parser("score", help="per-query metrics and means, as trec_eval computes them")
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument("runs", nargs="*", type=Path, help="runs (default: the golden set's `runs:`)")
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument("--metrics", help="comma-separated, e.g. recall@5,mrr,ndcg@10,map")
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--format", choices=["table", "json", "markdown", "trec"], default="table")
    s.add_argument("--config", type=Path)
    s.add_argument(
        "--baseline", choices=["bm25"], help="also score a BM25 run over the golden set's corpus"
    )
    allow_outside(s)
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..core.formats import detect
    from ..core.metrics import parse_metric
    from ..core.model import FileKind, Run
    from ..core.project.analysis import Project

    if not args.golden.exists():
        raise UsageError(f"{args.golden} does not exist")
    workspace = workspace_of([args.golden, *args.runs])
    config = config_for(args.config, args.golden, workspace)
    if args.k is not None and args.k < 1:
        raise UsageError("-k must be a positive integer")
    if args.metrics:
        try:
            metrics = tuple(str(parse_metric(m)) for m in args.metrics.split(",") if m.strip())
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        config = replace(config, metrics=metrics)
    project = Project(
        config, progress=progress_on(), boundary=boundary_for(args, config, workspace)
    )
    from ..core.model import Qrels

    grades = None
    kind: FileKind | None
    model: Qrels | Run | None
    text, _ = project.read(args.golden)
    fmt = detect(args.golden, text, config, "qrels") if text is not None else None
    if text is not None and fmt is not None and fmt.read_grades and not args.baseline:
        # Scoring needs the judgments, not their spans: 100k qrels lines read in a tenth of the time.
        kind, model, error = fmt.name, Qrels(format="trec-qrels"), None
        grades = fmt.read_grades(text)
    else:
        kind, _text, model, error = project.load(args.golden, role="qrels")
    if not isinstance(model, Qrels) or kind is None:
        raise UsageError(
            f"{args.golden} is not a golden set or qrels file ({error or kind or 'unknown format'})"
        )
    if args.k is not None:
        model.k = args.k
    if args.relevance_level is not None:
        model.relevance_level = args.relevance_level
    ctx = project.context(args.golden, kind, model)
    if grades is not None:
        ctx.grades = grades
    run_paths = [p.resolve() for p in args.runs] or ctx.run_paths
    for p in run_paths:
        if not p.exists():
            raise UsageError(f"run {p} does not exist")
    if not run_paths and not args.baseline:
        raise UsageError(
            f"no runs: name them after {args.golden}, or list them under `runs:` in it"
        )
    results = [project.score_run(ctx, p, fast=True) for p in run_paths]
    if args.baseline:
        base = project.baseline(ctx, build=True)
        if base is None:
            raise UsageError(f"--baseline bm25 needs a corpus: {corpus_problem(ctx)}")
        results.append(base)
    for r in results:
        if r.error:
            print(f"qrels-lsp score: {log_text(r.path)}: {log_text(r.error)}", file=sys.stderr)
    from ..core.formats.corpus import Corpus

    if isinstance(ctx.corpus, Corpus):  # (indexing may add notes: said after the baseline)
        for note in ctx.corpus.limits:
            print(
                f"qrels-lsp score: {log_text(ctx.corpus_path)}: {log_text(note)}", file=sys.stderr
            )
    print(render_scores(results, ctx.k, args.format, project), end="")
    return 1 if any(r.error for r in results) else 0
