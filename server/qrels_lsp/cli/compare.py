"""`qrels-lsp compare GOLDEN [RUN...]`: every run against a base run, with paired tests,
intervals and how many questions would settle it (docs/compare.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UsageError, allow_outside, by_tag, chunk_options, cut_options, log_text

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.compare import Comparisons
    from ..core.project.project import Project
    from ..core.project.results import QrelsContext, RunResult


def add(sub: Any) -> None:
    """The ``compare`` subcommand's arguments."""
    s = sub.add_parser(
        "compare",
        help="compare runs with a base run: deltas, paired tests, 95%% intervals, W/T/L",
    )
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="runs (default: the golden set's runs, as `score` finds them, its BM25 baseline and "
        "its fused runs)",
    )
    s.add_argument(
        "--base",
        help="the run the others are compared with: a run's name, a run file, or bm25 "
        "(default: `compare_to`, else the BM25 baseline, else the first run)",
    )
    s.add_argument("--metrics", help="comma-separated, e.g. recall@5,mrr,ndcg@10")
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--alpha", type=float, help="significance level after Holm (default 0.05)")
    s.add_argument(
        "--min-difference",
        type=float,
        help="the difference worth detecting, for `questions needed` (default 0.05)",
    )
    s.add_argument("--format", choices=["table", "json", "markdown"], default="table")
    by_tag(s, "each tag's comparison, a family of its own, after the whole set's")
    s.add_argument("--config", type=Path)
    chunk_options(s)
    cut_options(s)
    allow_outside(s)
    s.set_defaults(func=run, baseline=None)


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the comparison; 2 when the files cannot be compared (said on stderr)."""
    from .score import golden_context, project_for

    for name in ("alpha", "min_difference"):
        value = getattr(args, name)
        if value is not None and not 0 < value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be above 0 and below 1")
    base_file = _base_file(args)
    if base_file is not None and base_file not in args.runs:
        args.runs = [base_file, *args.runs]
    project, config = project_for(args)
    args.baseline = "bm25" if config.bm25_baseline else None  # (its questions are read whole)
    ctx, _entries = golden_context(args, project, config)
    runs = _runs(args, project, ctx, at_least=2)
    base = _base(args, ctx, runs, base_file)
    comparisons = _compare(args, ctx, runs, base)
    tags = _by_tag(args, ctx, runs, base) if args.by == "tag" else None
    print(render(comparisons, args.format, ctx, tags), end="")
    if args.format == "table":
        from ..core.project.naming import baseline_notes

        for note in baseline_notes(runs, ctx.k):
            print(f"\nnote: {log_text(note)}")
    return 0


def _by_tag(
    args: argparse.Namespace, ctx: QrelsContext, runs: list[RunResult], base: RunResult
) -> Mapping[str, Comparisons]:
    from ..core.project.comparing import compare_by_tag

    return compare_by_tag(ctx, runs, base, alpha=args.alpha, min_difference=args.min_difference)


def report_runs(
    args: argparse.Namespace, project: Project, ctx: QrelsContext
) -> tuple[list[RunResult], RunResult, Comparisons | None]:
    """The runs `compare` would compare (one is enough), their base, and their comparison
    (None for one run): what the report draws."""
    base_file = _base_file(args)
    if base_file is not None and base_file not in args.runs:
        args.runs = [base_file, *args.runs]
    runs = _runs(args, project, ctx, at_least=1)
    base = _base(args, ctx, runs, base_file)
    comparisons = _compare(args, ctx, runs, base) if len(runs) > 1 else None
    return runs, base, comparisons


def _base_file(args: argparse.Namespace) -> Path | None:
    """``--base`` when it names a file (then it is one of the runs compared)."""
    if args.base is None:
        return None
    from ..core.base.files import is_file

    path = Path(args.base)
    return path if is_file(path) else None  # (a run's name may be longer than a file's)


def _runs(
    args: argparse.Namespace, project: Project, ctx: QrelsContext, *, at_least: int
) -> list[RunResult]:
    """The runs named (or the golden set's), each scored, the BM25 baseline when the golden
    set has a corpus and the configuration keeps it, and the golden set's fused runs that can be
    made of them (what `compare` compares and `report` draws)."""
    from dataclasses import replace

    from ..core.base.findings import Severity
    from .score import named_runs

    results = named_runs(args.runs, project, ctx)
    for r in results:
        if r.error:
            raise UsageError(f"{r.path}: {r.error}")
    if args.runs:  # the fusions of the runs named (as the golden set names its runs), but those
        named = {r.name for r in results}  # named themselves
        fusions = [f for f in project.derived.fusions_of(ctx, results) if f.name not in named]
        ctx = replace(ctx, fusions=fusions)
    baseline = project.config.bm25_baseline and not any(r.baseline for r in results)
    problems: list[Finding] = []
    results = project.derived.context_runs(
        ctx, results, baseline=baseline, problems=problems, build=True
    )
    for f in problems:
        if f.severity == Severity.ERROR:
            raise UsageError(f"{ctx.path}: {f.code} {f.message}")
        print(f"qrels-lsp compare: {log_text(ctx.path)}: {log_text(f.message)}", file=sys.stderr)
    if len(results) < at_least:
        from ..ide.present import runs_hint

        found = ", ".join(r.name for r in results) or "none"
        raise UsageError(
            f"{args.golden}: {'a comparison needs two runs' if at_least == 2 else 'no runs'} "
            f"(found: {found}); name them after the "
            f"golden set, or {runs_hint(ctx)}"
        )
    return results


def _base(
    args: argparse.Namespace, ctx: QrelsContext, runs: list[RunResult], base_file: Path | None
) -> RunResult:
    from ..core.project.comparing import choose_base

    if base_file is not None:
        wanted = base_file.resolve()
        return next(r for r in runs if r.path == wanted and r.from_file)
    choice = choose_base(ctx, runs, args.base)
    if choice.problem is not None:
        if args.base is not None:
            raise UsageError(f"--base {choice.problem.split('; compared with')[0]}")
        print(
            f"qrels-lsp compare: {log_text(ctx.path)}: {log_text(choice.problem)}", file=sys.stderr
        )
    assert choice.base is not None  # two runs at least
    return choice.base


def _compare(
    args: argparse.Namespace, ctx: QrelsContext, runs: list[RunResult], base: RunResult
) -> Comparisons:
    from ..core.project.comparing import compare_runs

    comparisons = compare_runs(
        ctx,
        runs,
        base,
        alpha=getattr(args, "alpha", None),
        min_difference=getattr(args, "min_difference", None),
    )
    assert comparisons is not None  # two runs at least
    return comparisons


def render(
    comparisons: Comparisons,
    fmt: str,
    ctx: QrelsContext,
    tags: Mapping[str, Comparisons] | None = None,
) -> str:
    """The comparison in ``fmt``; ``tags``: each tag's after it."""
    if fmt == "json":
        return _json(comparisons, tags) + "\n"
    if fmt == "markdown":
        from ..ide.compare import comparison_markdown, tags_markdown

        out = comparison_markdown(comparisons, None, f"recall@{ctx.k}")
        return out + ("\n\n" + tags_markdown(tags) if tags else "") + "\n"
    return _table(comparisons) + (_tags_table(tags) if tags else "")


def _json(comparisons: Comparisons, tags: Mapping[str, Comparisons] | None) -> str:
    """The documented JSON: the base, n, alpha, then one object per (run, metric); with
    ``tags``, each names its tag (null: the whole set) and its n, and each tag's follow."""
    from ..core.base.escape import json_text
    from ..ide.documents import comparisons_document

    return json_text(comparisons_document(comparisons, tags))


def _tags_table(tags: Mapping[str, Comparisons]) -> str:
    """Each tag's comparison, a row per run and metric: the decision and what it rests on."""
    from ..ide.compare import interval_text, p_text, verdict

    out = [
        "",
        "By tag (each tag's questions alone; Holm over its own runs x metrics; * unadjusted)",
    ]
    rows = [["tag", "n", "run", "metric", "verdict", "delta", "95% interval*", "p Holm", "needed"]]
    for tag, family in tags.items():
        for c in family.items:
            rows.append(
                [
                    log_text(tag),
                    str(family.n_queries),
                    log_text(c.run),
                    c.metric,
                    verdict(c),
                    f"{c.delta:+.4f}",
                    interval_text(c.ci95, 4),
                    p_text(c.p_adjusted, family.alpha),
                    "n/a" if c.questions_needed is None else f"{c.questions_needed:,}",
                ]
            )
    return "\n".join([*out, *_aligned(rows)]) + "\n"


def _table(comparisons: Comparisons) -> str:
    """Runs as rows and metrics as columns, as ranx's report reads, each significant difference
    marked; then, per run, every statistic of every metric."""
    from ..ide.compare import interval_text, p_text, undefined_notes, verdict

    items = comparisons.items
    runs = list(dict.fromkeys(c.run for c in items))
    out = [
        f"Compared with {log_text(comparisons.base)} over {comparisons.n_queries} queries "
        f"(paired, two-sided; ▲/▼: better/worse, the randomization test's p adjusted with "
        f"Holm over {len(items)} comparisons below {comparisons.alpha:g})",
        "",
    ]
    out += means_table(comparisons)
    head = [
        "metric",
        "verdict",
        "delta",
        "95% interval*",
        "p Holm",
        "p rand*",
        "p t*",
        "W/L/T",
        "needed",
        "detectable",
    ]
    for name in runs:
        rows = [head]
        for c in comparisons.for_run(name):
            rows.append(
                [
                    c.metric,
                    verdict(c),
                    f"{c.delta:+.4f}",
                    interval_text(c.ci95, 4),
                    p_text(c.p_adjusted, comparisons.alpha),
                    p_text(c.p_randomization, comparisons.alpha),
                    p_text(c.p_ttest, comparisons.alpha),
                    f"{c.wins}/{c.losses}/{c.ties}",
                    "n/a" if c.questions_needed is None else f"{c.questions_needed:,}",
                    "n/a" if c.detectable_difference is None else f"{c.detectable_difference:.4f}",
                ]
            )
        out += ["", f"{log_text(name)} vs {log_text(comparisons.base)}", *_aligned(rows)]
        out += [log_text(note) for note in undefined_notes(comparisons.for_run(name))]
    d = comparisons.min_difference
    out += [
        "",
        "* unadjusted for the family (p Holm is); needed: questions to detect a true difference of "
        + ("the observed size" if d is None else f"{d:g}")
        + " with power 0.8; detectable: the smallest true difference today's questions detect",
    ]
    return "\n".join(out) + "\n"


def means_table(comparisons: Comparisons) -> list[str]:
    """The runs' means, a row per run and a column per metric, the base first; each run's
    mean marked ▲/▼ where it is significantly better/worse than the base's."""
    from ..core.metrics import format_value
    from ..ide.compare import verdict_mark

    items = comparisons.items
    metrics = list(dict.fromkeys(c.metric for c in items))
    first = {c.metric: c.base_mean for c in items}
    body = [[f"{log_text(comparisons.base)} [base]", *(format_value(first[m]) for m in metrics)]]
    for name in dict.fromkeys(c.run for c in items):
        row = [log_text(name)]
        for m in metrics:
            c = next(c for c in items if c.run == name and c.metric == m)
            row.append(f"{format_value(c.run_mean)} {verdict_mark(c) or ' '}")
        body.append(row)
    return _aligned([["run", *metrics], *body])


def _aligned(rows: list[list[str]]) -> list[str]:
    from .render import aligned

    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [aligned(row, widths) for row in rows]
