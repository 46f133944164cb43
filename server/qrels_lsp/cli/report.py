"""`qrels-lsp report GOLDEN [RUN...] -o report.html`: one self-contained HTML page of the golden
set's runs (ide/report/): curves, deltas against the base, distributions, coverage, miss causes
and a sortable table. Its numbers are `score`'s and `compare`'s."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import allow_outside, log_text, write_file


def add(sub: Any) -> None:
    """The ``report`` subcommand's arguments."""
    s = sub.add_parser("report", help="an HTML report with curves, deltas, coverage, a table")
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="run files, or names of the golden set's runs (default: its runs, as `compare` "
        "finds them, and its BM25 baseline)",
    )
    s.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    s.add_argument("--base", help="the run the others are compared with (as `compare --base`)")
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--config", type=Path)
    allow_outside(s)
    s.set_defaults(func=run, metrics=None, baseline=None, bounds=False, format="html")


def run(args: argparse.Namespace) -> int:
    from ..core.base.files import read_text
    from ..ide.report import build_report
    from .compare import report_runs
    from .score import golden_context, project_for

    project, config = project_for(args)
    args.baseline = "bm25" if config.bm25_baseline else None
    ctx, _entries = golden_context(args, project, config, spans=True)
    runs, base, comparisons = report_runs(args, project, ctx)
    text, _ = read_text(ctx.path)
    page = build_report(ctx, runs, base, comparisons, text or "")
    write_file(args.output, page)
    print(f"qrels-lsp report: wrote {log_text(args.output)} ({len(runs)} runs)")
    return 0
