"""The HTML report of a golden set's runs (`qrels-lsp report`, the editor's report command):
recall and precision curves, each run against the base question by question, the distribution
of per-question values, coverage, why relevant documents are missed, and a sortable table of the
questions. ``data.py`` computes it, ``charts.py`` draws it, ``page.py`` lays it out."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from ...core.base.files import cache_root, write_output
from ...core.compare import Comparisons
from ...core.project.results import QrelsContext, RunResult
from .data import ReportData, report_data
from .page import report_html


def build_report(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    base: RunResult | None,
    comparisons: Comparisons | None,
    golden_text: str,
) -> str:
    """The report's HTML. Reads the corpus (the miss causes): call it off the event loop."""
    return report_html(report_data(ctx, runs, base, comparisons, golden_text))


def report_file(golden: Path) -> Path:
    """Where the editor keeps a golden set's report: the user's cache, one file per golden set,
    never the workspace (a repository under review is not written to)."""
    key = hashlib.sha256(str(golden).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_root() / "reports" / f"{key}-{golden.stem}.html"


def write_report(golden: Path, html: str) -> Path:
    """Write the report (a symlink at its name is not followed: :func:`write_output`)."""
    target = report_file(golden)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_output(target, html)
    return target


__all__ = [
    "ReportData",
    "build_report",
    "report_data",
    "report_file",
    "report_html",
    "write_report",
]
