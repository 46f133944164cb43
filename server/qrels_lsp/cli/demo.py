"""`qrels-lsp demo`: the embedded example on one screen, what a new user needs first: how many
findings and the worst of them, the runs' means, each run's verdict against the base (the words
`compare` prints, from its own code), and where to go next. Every finding in full and each
run's per-question table are behind flags."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import log_text, progress_on, write_file
from .render import render_scores

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.compare import Comparisons
    from ..core.project.analysis import Analysis
    from ..core.project.project import Project

WIDTH = 100  # columns: a finding is wrapped, never cut
SHOWN = 5  # findings shown without --findings, the most severe first
EXAMPLE = Path(__file__).resolve().parent.parent / "examples"


def add(sub: Any) -> None:
    """The ``demo`` subcommand's arguments."""
    d = sub.add_parser("demo", help="check, score and compare the runs of the embedded example")
    d.add_argument("--findings", action="store_true", help="every finding, not the first few")
    d.add_argument("--questions", action="store_true", help="each run's per-question table too")
    d.add_argument("--report", type=Path, metavar="FILE", help="also write the HTML report")
    d.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.base.boundary import Boundary
    from ..core.project.config import Config
    from ..core.project.project import Project
    from .compare import report_runs

    golden = EXAMPLE / "support.qrels.yaml"
    project = Project(
        Config(root=EXAMPLE),
        progress=progress_on(),
        boundary=Boundary.of([EXAMPLE]),
        build_indexes=True,
    )
    analysis = project.analyse(golden)
    assert analysis is not None and analysis.context is not None
    ctx = analysis.context
    # what `qrels-lsp compare support.qrels.yaml` compares, with its base, by its own code
    wanted = argparse.Namespace(golden=golden, runs=[], base=None, alpha=None, min_difference=None)
    runs, base, comparisons = report_runs(wanted, project, ctx)
    assert comparisons is not None  # the example has several runs
    from ..ide.completion import corpus_of
    from ..ide.present import counts

    corpus = corpus_of(analysis)
    print("qrels-lsp demo: the embedded example, a support knowledge base's golden set")
    print(f"  {log_text(golden)}")
    print(
        f"  {counts(ctx)}, {len(corpus) if corpus is not None else 0} documents, "
        f"k = {ctx.k}, {len(runs)} runs\n"
    )
    print("\n".join(_findings(project, analysis, args.findings)) + "\n")
    print("\n".join(_comparison(comparisons, f"recall@{ctx.k}")) + "\n")
    if args.questions:
        print("Every question, run by run (`qrels-lsp score`):")
        print(render_scores(analysis.runs, ctx.k, "table", project) + "\n")
    if args.report is not None:
        from ..ide.report import build_report

        write_file(args.report, build_report(ctx, runs, base, comparisons, analysis.text))
        print(f"wrote {log_text(args.report)}: the HTML report (curves, deltas, coverage, a table)")
    print("\n".join(_next(args)))
    return 0


def _findings(project: Project, analysis: Analysis, every: bool) -> list[str]:
    """A count per severity, then the findings, the most severe first (``every``: all)."""
    from ..core.base.text import LineIndex

    files: list[Analysis] = [analysis]
    for r in analysis.runs:  # the baseline and fused runs are the golden set's: findings above
        if r.from_file and (a := project.analyse(r.path, with_runs=False)) is not None:
            files.append(a)
    found: list[tuple[Finding, str]] = []
    for a in files:
        lines = LineIndex(a.text)
        rel = a.path.relative_to(EXAMPLE) if a.path.is_relative_to(EXAMPLE) else a.path
        for f in a.findings:
            line, col = lines.position(f.span.start)
            found.append((f, f"{rel}:{line + 1}:{col + 1}"))
    found.sort(key=lambda pair: pair[0].severity)
    counts: dict[str, int] = {}
    for f, _ in found:
        counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
    summary = ", ".join(
        f"{n} {label}{'s' * (n != 1 and label != 'info')}" for label, n in counts.items()
    )
    out = [f"Findings: {summary} (as `qrels-lsp check` and the editor report them)"]
    for f, where in found if every else found[:SHOWN]:
        text = f"{where}: {f.severity.label} {f.code} {log_text(f.message)}"
        out += textwrap.wrap(
            text, WIDTH, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
        )
    if not every and len(found) > SHOWN:
        out.append(f"  ... and {len(found) - SHOWN} more: qrels-lsp demo --findings")
    return out


def _comparison(comparisons: Comparisons, metric: str) -> list[str]:
    """The means (▲/▼: significant), then each run's verdict on ``metric`` in words."""
    from ..ide.compare import headline, verdict
    from .compare import means_table

    base = log_text(comparisons.base)
    out = [
        f"Means over {comparisons.n_queries} questions (▲/▼: better/worse than the base, "
        f"Holm over {len(comparisons.items)} tests)",
        *means_table(comparisons),
        "",
        f"Against {base} on {metric} (`qrels-lsp compare` says the same):",
    ]
    rows = []
    for name in dict.fromkeys(c.run for c in comparisons.items):
        c = headline(comparisons, name, metric)
        if c is not None:
            rows.append(
                (log_text(name), verdict(c), f"{c.delta:+.4f}", f"{c.wins}W {c.losses}L {c.ties}T")
            )
    width = max(len(r[0]) for r in rows)
    wide = max(len(r[1]) for r in rows)
    out += [f"  {r[0]:<{width}}  {r[1]:<{wide}}  {r[2]}  {r[3]}" for r in rows]
    return out


def _next(args: argparse.Namespace) -> list[str]:
    out = ["Next:"]
    if not args.questions:
        out.append("  qrels-lsp demo --questions          every question's scores, run by run")
    if args.report is None:
        out.append(
            "  qrels-lsp demo --report demo.html   the HTML report: curves, deltas, coverage"
        )
    return [
        *out,
        '  Open the example in an editor with the server running (README, "Editors"); in its',
        "  folder, `qrels-lsp compare support.qrels.yaml` shows what each verdict rests on:",
        f"    {log_text(EXAMPLE)}",
    ]
