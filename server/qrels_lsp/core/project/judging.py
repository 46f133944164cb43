"""Which runs a golden set's judging queue pools, at which depth (docs/compare.md, "Which
documents to judge next"); the queue itself is ``core/coverage/pool.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..coverage.pool import Pool, PoolCache, RunRankings
from ..metrics import Metric, evaluate

if TYPE_CHECKING:
    from .results import QrelsContext, RunResult


def mean_judged(ctx: QrelsContext, run: RunResult) -> float:
    """A run's mean judged@k (the k in force): from its evaluation, or computed when the metrics
    shown leave it out; 1 over no question (nothing retrieved is unjudged)."""
    key = f"judged@{ctx.k}"
    value = run.evaluation.mean.get(key)
    if value is not None:
        return value if run.evaluation.n_queries else 1.0
    ev = evaluate(ctx.grades, run.rankings, [Metric("judged", ctx.k)], ctx.level, ctx.unanswerable)
    return ev.mean[key] if ev.n_queries else 1.0


def pooled_runs(runs: Sequence[RunResult], *, baseline: bool = False) -> list[RunRankings]:
    """The runs a queue is pooled over: every run that could be scored, the BM25 baseline only
    when asked for."""
    return [(r.name, r.rankings) for r in runs if not r.error and (baseline or not r.baseline)]


def pool_of(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    cache: PoolCache | None = None,
    *,
    depth: int | None = None,
    baseline: bool = False,
) -> Pool | None:
    """The judging queue of a golden set over ``runs``; None when there is no run to pool."""
    pooled = pooled_runs(runs, baseline=baseline)
    if not pooled:
        return None
    cache = cache if cache is not None else PoolCache()
    lock = ctx.lock
    stale = lock.code if lock is not None and not lock.unchanged else None
    return cache.pool(
        ctx.grades,
        pooled,
        depth or ctx.pool_depth,
        ctx.unanswerable,
        since=ctx.grades_since,
        stale=stale,
    )
