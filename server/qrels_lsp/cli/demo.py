"""`qrels-lsp demo`: check and score the embedded example."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    log_text,
    progress_on,
)
from .render import render_scores

if TYPE_CHECKING:
    from ..core.project.analysis import Analysis


def add(sub: Any) -> None:
    """The ``demo`` subcommand's arguments."""
    d = sub.add_parser("demo", help="check and score the embedded example")
    d.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.base.boundary import Boundary
    from ..core.base.text import LineIndex
    from ..core.project.config import Config
    from ..core.project.project import Project

    root = Path(__file__).resolve().parent.parent / "examples"
    golden = root / "support.qrels.yaml"
    project = Project(
        Config(root=root),
        progress=progress_on(),
        boundary=Boundary.of([root]),
        build_indexes=True,
    )
    analysis = project.analyse(golden)
    assert analysis is not None and analysis.context is not None
    ctx = analysis.context
    q = ctx.qrels
    print(f"qrels-lsp demo: {golden}")
    print(
        f"{len(q.queries)} questions, {len(q.unanswerable())} unanswerable, corpus "
        f"{ctx.corpus_path.name if ctx.corpus_path else '-'} "
        f"({len(ctx.corpus) if hasattr(ctx.corpus, '__len__') else 'not loaded'} documents), k = {ctx.k}\n"  # type: ignore[arg-type]
    )
    files: list[Analysis] = [analysis]
    for r in analysis.runs:
        if (
            not r.from_file
        ):  # the baseline and fused runs: made by the golden set, whose findings are above
            continue
        run_analysis = project.analyse(r.path, with_runs=False)
        if run_analysis is not None:
            files.append(run_analysis)
    print("Findings (what `qrels-lsp check` and the editor report):")
    for a in files:
        lines = LineIndex(a.text)
        rel = a.path.relative_to(root) if a.path.is_relative_to(root) else a.path
        for f in a.findings:
            line, col = lines.position(f.span.start)
            print(
                f"  {rel}:{line + 1}:{col + 1}: {f.severity.label} {f.code} {log_text(f.message)}"
            )
    print()
    print("Scores (what the editor shows as code lenses):")
    print(render_scores(analysis.runs, ctx.k, "table", project))
    return 0
