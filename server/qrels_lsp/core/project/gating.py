"""The CI gate's decision (docs/compare.md, "The gate"): does the head run pass against the base
run on the golden set, fail, or can the judgments not tell yet?

In order: when the judgments are pooled (a document not judged is unknown, ``ctx.judgments``)
and cover the head's top k poorly (its mean judged@k below ``min_judged``), its numbers are about
the golden set more than about the run, so the verdict is "cannot tell: judge first" (the judging
queue says what to judge). Exhaustive judgments (a document not listed is not relevant: most RAG
and BEIR golden sets) make coverage a property of the listing, never a reason to block. Otherwise it fails when, for
any metric gated, the head is significantly worse than the base (the paired comparison, Holm over
the metrics gated) or its mean drops by more than ``max_drop``, or when a question tagged
critical gets worse on any metric gated; else it passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ..compare import Comparison, Comparisons
from ..coverage.judgments import Completeness
from ..model import CRITICAL_TAG
from .comparing import compare_by_tag, compare_runs
from .judging import mean_judged
from .results import QrelsContext, RunResult

Status = Literal["pass", "fail", "cannot tell"]
DEFAULT_MAX_DROP = 0.02
DEFAULT_MIN_JUDGED = 0.8
DEFAULT_CRITICAL = CRITICAL_TAG
TOLERANCE = 1e-9  # of a mean's difference, for the float noise of subtracting two means


@dataclass(frozen=True, slots=True)
class Rules:
    metrics: tuple[str, ...]  # the metrics gated, canonical names
    max_drop: float = DEFAULT_MAX_DROP
    alpha: float = 0.05
    min_judged: float = DEFAULT_MIN_JUDGED
    critical: str = DEFAULT_CRITICAL
    per_tag_max_drop: float | None = None  # also each tag's questions alone, with this drop


@dataclass(frozen=True, slots=True)
class Flip:
    """A question on which the head differs from the base, on some metric gated."""

    qid: str
    deltas: dict[str, float]  # metric -> head - base (every metric gated)
    critical: bool

    @property
    def worse(self) -> bool:
        return any(d < 0 for d in self.deltas.values())

    @property
    def worst(self) -> float:
        return min(self.deltas.values())


@dataclass(slots=True)
class Verdict:
    status: Status
    reasons: list[str]  # why it failed, or could not tell (empty when it passed)
    base: str
    head: str
    comparisons: Comparisons
    regressions: list[Comparison]  # metrics on which the head is worse beyond what is allowed
    flips: list[Flip]  # worst first
    judged: dict[str, float]  # run -> mean judged@k
    k: int
    n_queries: int
    critical: list[Flip] = field(default_factory=list)  # tagged critical, and worse
    tags: Mapping[str, Comparisons] = field(default_factory=dict)  # with per_tag_max_drop
    judgments: Completeness | None = None  # the assumption coverage was read under

    @property
    def exit_code(self) -> int:
        return 0 if self.status == "pass" else 1


def distinct(base: RunResult, head: RunResult) -> tuple[RunResult, RunResult]:
    """The two runs under names that tell them apart (a CI job often compares two files both
    called `run.trec`, from two checkouts)."""
    if base.name != head.name:
        return base, head
    return replace(base, name=f"{base.name} (base)"), replace(head, name=f"{head.name} (head)")


def judged_means(ctx: QrelsContext, runs: Sequence[RunResult]) -> dict[str, float]:
    """Each run's mean judged@k (k in force)."""
    return {r.name: mean_judged(ctx, r) for r in runs}


def decide(ctx: QrelsContext, base: RunResult, head: RunResult, rules: Rules) -> Verdict:
    """The gate's verdict on ``head`` against ``base``."""
    base, head = distinct(base, head)
    family = compare_runs(ctx, [base, head], base, rules.metrics, alpha=rules.alpha)
    assert family is not None  # two runs
    mine = family.for_run(head.name)
    # A drop of exactly max_drop is allowed: 0.48 - 0.50 is -0.020000000000000018 in floats.
    allowed = -rules.max_drop - TOLERANCE
    regressions = [c for c in mine if c.delta < 0 and (c.significant or c.delta < allowed)]
    flips = _flips(ctx, mine, rules.critical)
    critical = [f for f in flips if f.critical and f.worse]
    judged = judged_means(ctx, [base, head])
    tags: Mapping[str, Comparisons] = {}
    if rules.per_tag_max_drop is not None:
        tags = compare_by_tag(ctx, [base, head], base, rules.metrics, alpha=rules.alpha)
    reasons: list[str] = []
    status: Status = "pass"
    if ctx.judgments.gates and judged[head.name] < rules.min_judged:
        status = "cannot tell"
        reasons.append(
            f"judged@{ctx.k} of {head.name} is {judged[head.name]:.2f}, below "
            f"{rules.min_judged:g}: its unjudged documents count as not relevant"
        )
    elif untested := [c for c in mine if c.p_adjusted is None]:
        status = "cannot tell"
        for c in untested:
            reasons.append(f"{c.metric}: {c.undefined.get('p_adjusted', 'no test')}")
    else:
        for c in regressions:
            why = "worse" if c.significant else f"down more than {rules.max_drop:g}"
            reasons.append(f"{c.metric} {c.delta:+.4f} ({why}; p (Holm) {c.p_adjusted:.3g})")
        for f in critical:
            reasons.append(f"critical question {f.qid} got worse ({_worst(f)})")
        reasons += _tag_regressions(tags, head.name, rules)
        if reasons:
            status = "fail"
    return Verdict(
        status,
        reasons,
        base.name,
        head.name,
        family,
        regressions,
        flips,
        judged,
        ctx.k,
        family.n_queries,
        critical,
        tags,
        ctx.judgments,
    )


def _tag_regressions(tags: Mapping[str, Comparisons], head: str, rules: Rules) -> list[str]:
    """Why a tag fails the gate: the head worse on its questions alone, or, where the tag has
    enough questions to decide, its mean down by more than ``per_tag_max_drop``. A tag with too
    few questions decides nothing either way (docs/compare.md, "Per tag")."""
    if rules.per_tag_max_drop is None:
        return []
    allowed = -rules.per_tag_max_drop - TOLERANCE
    out = []
    for tag, family in tags.items():
        for c in family.for_run(head):
            if c.verdict == "worse":
                why = f"worse; p (Holm) {c.p_adjusted:.3g}"
            elif c.verdict != "too few to decide" and c.delta < allowed:
                why = f"down more than {rules.per_tag_max_drop:g}"
            else:
                continue
            out.append(
                f"tag {tag} ({family.n_queries} questions): {c.metric} {c.delta:+.4f} ({why})"
            )
    return out


def _flips(ctx: QrelsContext, comparisons: Sequence[Comparison], tag: str) -> list[Flip]:
    """Questions on which some metric differs, the worst first (then by id)."""
    qids: dict[str, None] = {}
    for c in comparisons:
        qids.update((q, None) for q, d in c.deltas.items() if d != 0)
    tagged = {q for q, query in ctx.qrels.queries.items() if tag in query.tags}
    flips = [
        Flip(q, {c.metric: c.deltas.get(q, 0.0) for c in comparisons}, q in tagged) for q in qids
    ]
    flips.sort(key=lambda f: (f.worst, f.qid))
    return flips


def _worst(f: Flip) -> str:
    metric = min(f.deltas, key=lambda m: f.deltas[m])
    return f"{metric} {f.deltas[metric]:+.2f}"
