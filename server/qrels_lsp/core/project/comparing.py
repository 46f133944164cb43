"""Which run the others are compared with, and the comparison of a golden set's runs.

The statistics are :mod:`..compare`'s; this module knows the project's words for runs: a
golden set's `compare_to:` (or the configuration's) names the base by the name qrels-lsp shows
(a run YAML's `name:`, a file's name without `.run`/`.trec`, `bm25` for the BM25 baseline), and
with no name the base is the BM25 baseline when there is one (what every new retriever should
beat), else the first run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..base.findings import Severity, declare
from ..compare import Comparison, Comparisons
from ..metrics import restricted
from ..search.baseline import BASELINE_NAME

if TYPE_CHECKING:
    from ..compare.comparison import Comparer
    from .results import QrelsContext, RunResult

QR115 = declare(
    "QR115",
    "compare-to-unknown",
    Severity.WARNING,
    "golden set",
    "`compare_to` names no run of this golden set: runs are compared with the default base.",
)

BASELINE_ALIASES = ("bm25", "baseline", "built-in", "bm25 (built-in)", "bm25 (baseline)")
"""What `compare_to` may call the BM25 baseline (its shown name has a space and parentheses)."""


@dataclass(frozen=True, slots=True)
class BaseChoice:
    """The base run of a comparison, and why it is not the one asked for (if it is not)."""

    base: RunResult | None
    problem: str | None = None
    waiting: str | None = None  # the base that is not ready yet (the BM25 index is building)


def run_names(runs: Sequence[RunResult]) -> list[str]:
    return [r.name for r in runs if not r.error]


def find_run(runs: Sequence[RunResult], name: str) -> RunResult | None:
    """The run ``name`` names: its shown name, its file's name, or (for the BM25 baseline) one of
    :data:`BASELINE_ALIASES`; exact first, then ignoring case."""
    usable = [r for r in runs if not r.error]
    for fold in (str, str.casefold):
        wanted = fold(name.strip())
        for r in usable:
            names = [r.name] + ([*BASELINE_ALIASES] if r.baseline else [])
            names += [r.path.name] if r.from_file else []
            if any(fold(n) == wanted for n in names):
                return r
    return None


def choose_base(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    asked: str | None = None,
    *,
    baseline_pending: bool = False,
) -> BaseChoice:
    """The base run: ``asked`` (the CLI's `--base`), else the context's `compare_to`, else the
    BM25 baseline, else the first run that could be scored. While the baseline is still to come
    (``baseline_pending``: its index is building) and it is the base, there is none yet: the
    comparison waits for it rather than compare with the first run, then switch."""
    usable = [r for r in runs if not r.error]
    wanted = asked if asked is not None else (ctx.compare_to.value if ctx.compare_to else None)
    baseline_wanted = wanted is None or wanted.strip().casefold() in BASELINE_ALIASES
    if baseline_pending and baseline_wanted and not any(r.baseline for r in usable):
        return BaseChoice(None, waiting=BASELINE_NAME)
    default = next((r for r in usable if r.baseline), usable[0] if usable else None)
    if wanted is None:
        return BaseChoice(default)
    found = find_run(usable, wanted)
    if found is not None:
        return BaseChoice(found)
    known = ", ".join(f"`{n}`" for n in run_names(usable)) or "none"
    instead = f"; compared with `{default.name}` instead" if default is not None else ""
    return BaseChoice(
        default, f"`{wanted}` names no run of this golden set (runs: {known}){instead}"
    )


def compare_runs(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    base: RunResult,
    metrics: Sequence[str] | None = None,
    *,
    comparer: Comparer | None = None,
    alpha: float | None = None,
    min_difference: float | None = None,
    pause: Callable[[], object] | None = None,
) -> Comparisons | None:
    """Every other scorable run against ``base`` over the golden set's queries, for ``metrics``
    (default: the context's measures of effectiveness, not judged@k); None when there is
    nothing to compare with. ``pause``: called between chunks of a fresh resampling."""
    compared = [r for r in runs if r is not base and not r.error]
    others = [(r.name, r.evaluation.per_query) for r in compared]
    if not others:
        return None
    names = (
        list(metrics)
        if metrics is not None
        else [str(m) for m in ctx.metrics if m.measure.compared]
    )
    if comparer is None:
        from ..compare.comparison import Comparer  # numpy: see compare/__init__

        comparer = Comparer()
    return comparer.compare(
        base.name,
        base.evaluation.per_query,
        others,
        names,
        alpha=ctx.alpha if alpha is None else alpha,
        min_difference=ctx.min_difference if min_difference is None else min_difference,
        pause=pause,
        since=[base.evaluation.since, *(r.evaluation.since for r in compared)],
    )


def tagged(ctx: QrelsContext) -> dict[str, list[str]]:
    """Each tag the golden set's scored questions carry, by name, and its questions in the
    golden set's order (an unanswerable question is in no mean, so in no tag's)."""
    out: dict[str, list[str]] = {}
    for qid, query in ctx.qrels.queries.items():
        if qid in ctx.unanswerable:
            continue
        for tag in query.tags:
            out.setdefault(tag, []).append(qid)
    return dict(sorted(out.items()))


def restricted_runs(runs: Sequence[RunResult], qids: Sequence[str]) -> list[RunResult]:
    """The runs as scored on these questions only: a tag's means are the means of the golden
    set filtered to the tag, bit for bit (``metrics.restricted``)."""
    return [r if r.error else replace(r, evaluation=restricted(r.evaluation, qids)) for r in runs]


def compare_by_tag(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    base: RunResult,
    metrics: Sequence[str] | None = None,
    *,
    alpha: float | None = None,
    min_difference: float | None = None,
) -> Mapping[str, Comparisons]:
    """Each tag's comparison of the runs with ``base`` over that tag's questions: a family of
    its own (Holm over runs x metrics of the tag: each tag answers its own question), and "too
    few to decide" where the tag has fewer questions than the power analysis needs."""
    out: dict[str, Comparisons] = {}
    for tag, qids in tagged(ctx).items():
        (kept_base,) = restricted_runs([base], qids)
        kept = [kept_base, *restricted_runs([r for r in runs if r is not base], qids)]
        found = compare_runs(
            ctx, kept, kept_base, metrics, alpha=alpha, min_difference=min_difference
        )
        if found is not None:
            items = [_for_a_tag(c) for c in found.items]
            out[tag] = replace(found, items=items, tag=tag)
    return out


def _for_a_tag(c: Comparison) -> Comparison:
    """A tag's comparison says "too few to decide" rather than a verdict when its questions are
    fewer than needed (docs/compare.md, "Per tag"): a tag of five questions is not a decision,
    whatever its p."""
    needed = c.verdict_needed if c.questions_needed is None else c.questions_needed
    if c.verdict == "too few questions to tell" or (needed is not None and c.n_queries < needed):
        return replace(c, verdict="too few to decide", verdict_needed=needed)
    return c
