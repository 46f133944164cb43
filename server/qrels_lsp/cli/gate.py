"""`qrels-lsp gate GOLDEN --base RUN --head RUN`: pass or fail a pull request on retrieval quality,
or say that the judgments cannot tell yet (core/project/gating.py). Exit 0 pass, 1 fail or cannot
tell, 2 usage or input error. The Markdown summary goes to ``--summary`` or to GitHub's
``$GITHUB_STEP_SUMMARY``; ``--format github`` annotates the golden set's lines of the questions
that got worse."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UsageError, allow_outside, log_text, output

if TYPE_CHECKING:
    from ..core.project.gating import Rules, Verdict
    from ..core.project.project import Project
    from ..core.project.results import QrelsContext, RunResult


def add(sub: Any) -> None:
    """The ``gate`` subcommand's arguments."""
    from ..core.project.gating import DEFAULT_CRITICAL, DEFAULT_MAX_DROP, DEFAULT_MIN_JUDGED

    s = sub.add_parser(
        "gate", help="fail a pull request whose run is worse than the base run, or uncovered"
    )
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument("--base", required=True, help="the base run: a file, or a run's name")
    s.add_argument("--head", required=True, help="the run under review: a file, or a run's name")
    s.add_argument(
        "--metric",
        action="append",
        default=[],
        help="a metric to gate on, repeatable or comma-separated (default: the golden set's "
        "metrics, judged@k aside)",
    )
    s.add_argument(
        "--max-drop",
        type=float,
        default=DEFAULT_MAX_DROP,
        help=f"the largest drop of a mean allowed (default {DEFAULT_MAX_DROP:g})",
    )
    s.add_argument("--alpha", type=float, default=0.05, help="significance level after Holm")
    s.add_argument(
        "--min-judged",
        type=float,
        default=DEFAULT_MIN_JUDGED,
        help=f"below this judged@k of the head, the gate cannot tell (default {DEFAULT_MIN_JUDGED:g})",
    )
    s.add_argument(
        "--critical",
        default=DEFAULT_CRITICAL,
        help=f"the tag of questions that must not get worse (default {DEFAULT_CRITICAL})",
    )
    s.add_argument(
        "--per-tag-max-drop",
        type=float,
        help="also gate each tag's questions alone (the golden set's `tags:`): fail when the head "
        "is worse on a tag, or a tag with enough questions to decide drops by more than this",
    )
    s.add_argument("--summary", type=Path, help="write the Markdown summary here")
    s.add_argument("--format", choices=["text", "github"], default="text")
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--config", type=Path)
    allow_outside(s)
    s.set_defaults(func=run, metrics=None, baseline=None, bounds=False, runs=[])


def run(args: argparse.Namespace) -> int:
    from ..core.project.gating import decide
    from .score import golden_context, named_runs, project_for

    rules_args(args)
    args.runs = [Path(args.base), Path(args.head)]  # for the workspace: the files named
    project, config = project_for(args)
    ctx, _entries = golden_context(args, project, config, spans=True)
    base, head = named_runs(args.runs, project, ctx)
    for r in (base, head):
        if r.error:
            raise UsageError(f"{r.path}: {r.error}")
    _refuse_broken_input(args, project, ctx, [base, head])
    rules = _rules(args, ctx)
    verdict = decide(ctx, base, head, rules)
    lines = _lines(ctx)
    _write_summary(args, verdict, ctx, lines, rules)
    if args.format == "github":
        print(_annotations(verdict, ctx, lines), end="")
    print(_text(verdict, rules), end="")
    return verdict.exit_code


def _refuse_broken_input(
    args: argparse.Namespace, project: Project, ctx: QrelsContext, runs: list[RunResult]
) -> None:
    """A golden set or run with lines or entries left out of the scores (a syntax error, a
    malformed line), or with no question to compare, is an input error: a pull request that
    breaks the golden set must not pass by dropping its questions."""
    from .score import _entries, _report_dropped

    if _report_dropped(project, [(args.golden, "qrels", None), *_entries(runs)]):
        raise UsageError("the files have lines or entries left out of the scores (see above)")
    if not any(r.evaluation.n_queries for r in runs):
        raise UsageError(f"{args.golden}: no question to compare (every one is unanswerable)")


def rules_args(args: argparse.Namespace) -> None:
    """Check the numbers given; the metrics, when named, become the context's."""
    for name in ("max_drop", "min_judged", "per_tag_max_drop"):
        value = getattr(args, name, None)
        if value is not None and not 0 <= value <= 1:
            raise UsageError(f"--{name.replace('_', '-')} must be from 0 to 1")
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be above 0 and below 1")
    from ..core.metrics.metric import split_metrics

    names = [m for given in args.metric for m in split_metrics(given)]
    args.metrics = ",".join(names) if names else None


def _rules(args: argparse.Namespace, ctx: QrelsContext) -> Rules:
    from ..core.project.gating import Rules

    metrics = tuple(str(m) for m in ctx.metrics if m.measure.compared)
    if not metrics:
        raise UsageError("--metric: judged@k measures coverage; gate on a measure of effectiveness")
    return Rules(
        metrics, args.max_drop, args.alpha, args.min_judged, args.critical, args.per_tag_max_drop
    )


def _lines(ctx: QrelsContext) -> dict[str, int]:
    """Each question's line in the golden set (1-based), where annotations point."""
    from ..core.base.files import read_text
    from ..core.base.text import line_index

    text, _ = read_text(ctx.path)
    if text is None:
        return {}
    lines = line_index(text)
    return {qid: lines.position(q.span.start)[0] + 1 for qid, q in ctx.qrels.queries.items()}


def pool_command(args: argparse.Namespace, k: int) -> str:
    """The command that lists what to judge for the runs the gate compared, as deep as the
    judged@k it measured (judging all of it brings judged@k to 1), the names shell-quoted."""
    words = ["qrels-lsp", "pool", str(args.golden), args.head, args.base, "--depth", str(k)]
    return shlex.join(words)


def _write_summary(
    args: argparse.Namespace, v: Verdict, ctx: QrelsContext, lines: dict[str, int], rules: Rules
) -> None:
    from ..ide.gate import summary_markdown

    target = args.summary or (
        Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None
    )
    if target is None:
        return
    text = summary_markdown(v, ctx.path.name, lines, pool_command(args, ctx.k), rules.max_drop)
    # Appended to, as GitHub's step summary is, a step after another. That file is the runner's
    # (outside the checkout, made by it), but it gets the same refusals as --summary: a symlink
    # or a FIFO there is not written through.
    with output(target, append=True) as f:
        f.write(text + "\n")


def _annotations(v: Verdict, ctx: QrelsContext, lines: dict[str, int]) -> str:
    """A workflow command per question that got worse: an error where it is critical."""
    from ..core.base.escape import github_data, github_property

    path = github_property(_repo_path(ctx.path))
    out = []
    for f in v.flips:
        if not f.worse:
            continue
        level = "error" if f.critical else "warning"
        worst = ", ".join(f"{m} {d:+.2f}" for m, d in f.deltas.items() if d < 0)
        title = github_property(f"qrels-lsp gate: {f.qid}")
        message = github_data(f"{v.head} is worse than {v.base} on {f.qid}: {worst}")
        out.append(f"::{level} file={path},line={lines.get(f.qid, 1)},title={title}::{message}")
    return "".join(line + "\n" for line in out)


def _repo_path(path: Path) -> str:
    """The golden set as annotations name it: relative to the job's folder (the checkout)."""
    here = Path.cwd().resolve()
    return str(path.relative_to(here)) if path.is_relative_to(here) else str(path)


def _text(v: Verdict, rules: Rules) -> str:
    from ..ide.compare import interval_text, p_text, verdict
    from ..ide.gate import verdict_line

    out = [log_text(verdict_line(v))]
    out += [f"  - {log_text(r)}" for r in v.reasons]
    for c in v.comparisons.for_run(v.head):
        out.append(
            f"  {c.metric}: {c.base_mean:.4f} -> {c.run_mean:.4f} ({c.delta:+.4f} "
            f"{interval_text(c.ci95, 4)} unadjusted, p Holm {p_text(c.p_adjusted, rules.alpha)}, "
            f"{c.wins}W {c.losses}L {c.ties}T): {verdict(c)}"
        )
    for tag, family in v.tags.items():
        for c in family.for_run(v.head):
            out.append(
                f"  tag {log_text(tag)} ({family.n_queries}): {c.metric} {c.delta:+.4f}, "
                f"p Holm {p_text(c.p_adjusted, family.alpha)}: {verdict(c)}"
            )
    out += [f"  judged@{v.k}: " + ", ".join(f"{log_text(r)} {x:.2f}" for r, x in v.judged.items())]
    if v.judgments is not None:
        out.append(f"  {v.judgments.describe()}")
    return "\n".join(out) + "\n"
