"""Comparing runs with a base run, query by query, for several metrics at once (docs/compare.md).

``compare`` computes a family of comparisons from scratch. ``Comparer`` keeps what the last one
was computed from and, when the next differs in a few queries' values only (an edit of one
judgment re-scores one query of every run), corrects the resampled sums for those queries
instead of drawing the resamples again: the answer is the one ``compare`` gives, equal number
for number (the sums are exact, stats.py says how).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, count
from operator import is_not
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from . import stats
from .results import (
    NO_DIFFERENCE,
    NO_QUESTIONS,
    NO_VARIANCE,
    NOT_FINITE,
    ONE_QUESTION,
    TOO_SMALL,
    Comparison,
    Comparisons,
    Word,
)
from .stats import Array

if TYPE_CHECKING:
    from ..metrics.evaluate import Since

PerQuery = Mapping[str, Mapping[str, float]]  # qid -> metric -> value: Evaluation.per_query
POWER = 0.8  # the power "questions needed" and "detectable difference" are computed for
LEVEL = 0.95  # the confidence level of the interval


def compare(
    base_name: str,
    base: PerQuery,
    runs: Sequence[tuple[str, PerQuery]],
    metrics: Sequence[str],
    *,
    alpha: float = 0.05,
    min_difference: float | None = 0.05,
    resamples: int = 10_000,
) -> Comparisons:
    """Compare each run with the base for each metric, over the base's queries in its order.

    ``base`` and each run map qid -> metric -> value (``Evaluation.per_query``). A query the run
    lacks counts 0; a query only the run has is ignored; a run named like the base is skipped.
    Holm's adjustment runs over the whole family (every run x every metric).
    """
    return Comparer(keep=False).compare(
        base_name,
        base,
        runs,
        metrics,
        alpha=alpha,
        min_difference=min_difference,
        resamples=resamples,
    )


# -- the family's values -------------------------------------------------------------------------


def _rows(per_query: PerQuery, qids: Sequence[str]) -> list[Mapping[str, float] | None]:
    return list(map(per_query.get, qids))


def _fill(
    values: Array, rows: Sequence[Mapping[str, float] | None], metrics: Sequence[str]
) -> None:
    """values[m, i] = rows[i][metrics[m]], 0 where the query has no row."""
    for m, name in enumerate(metrics):
        values[m] = [0.0 if row is None else row[name] for row in rows]


@dataclass(slots=True)
class _Family:
    """The values of the base and the runs, and the deltas, as arrays."""

    qids: list[str]
    names: list[str]  # the runs compared (the base's namesakes left out)
    metrics: list[str]
    sources: list[PerQuery]  # base first, then each run
    rows: list[list[Mapping[str, float] | None]]  # per source, per query
    values: Array  # (sources, metrics, n)
    order: npt.NDArray[np.intp]  # the queries in strcmp order: how means are summed
    at: dict[str, int] | None = None  # qid -> its index, made when a ``Since`` is first used

    @classmethod
    def of(
        cls, base: PerQuery, runs: Sequence[tuple[str, PerQuery]], metrics: list[str]
    ) -> _Family:
        qids = list(base)
        sources = [base, *(per_query for _, per_query in runs)]
        rows = [_rows(source, qids) for source in sources]
        values = np.zeros((len(sources), len(metrics), len(qids)))
        for s, source_rows in enumerate(rows):
            _fill(values[s], source_rows, metrics)
        order = np.array(sorted(range(len(qids)), key=qids.__getitem__), dtype=np.intp)
        return cls(qids, [name for name, _ in runs], metrics, sources, rows, values, order)

    @property
    def n(self) -> int:
        return len(self.qids)

    def deltas(self) -> Array:
        """(runs x metrics, n), run-major."""
        D = self.values[1:] - self.values[:1]
        return D.reshape(len(self.names) * len(self.metrics), self.n)

    def update(
        self, sources: Sequence[PerQuery], since: Sequence[Since | None] = ()
    ) -> npt.NDArray[np.intp] | None:
        """Take the new sources' values; return the queries whose values changed, or None when
        too many did for corrections to pay. Rows are compared by identity first (the project
        never mutates a score table once made), then by value; a source whose ``since`` says it
        was made from the last one is read at the queries it names only (at 100,000 questions,
        reading every row again costs more than the rest of the correction)."""
        changed: set[int] = set()
        for s, source in enumerate(sources):
            if source is self.sources[s]:
                continue
            made = since[s] if s < len(since) else None
            if made is not None and made.base is self.sources[s]:
                new, moved = self._rows_after(s, source, made.keys)
            else:
                new = _rows(source, self.qids)
                moved = list(compress(count(), map(is_not, new, self.rows[s])))  # in C
            if len(changed) + len(moved) > self.n // 4:
                return None
            for i in moved:
                row = new[i]
                column = [0.0 if row is None else row[name] for name in self.metrics]
                if column != self.values[s, :, i].tolist():
                    self.values[s, :, i] = column
                    changed.add(i)
            self.sources[s], self.rows[s] = source, new
        return np.array(sorted(changed), dtype=np.intp)

    def _rows_after(
        self, s: int, source: PerQuery, keys: frozenset[str]
    ) -> tuple[list[Mapping[str, float] | None], list[int]]:
        """Source ``s``'s rows when only ``keys`` may differ from the last ones, and where."""
        at = self.at
        if at is None:
            at = self.at = {qid: i for i, qid in enumerate(self.qids)}
        new = list(self.rows[s])  # (a copy in C)
        moved = sorted(at[q] for q in keys if q in at)
        for i in moved:
            new[i] = source.get(self.qids[i])
        return new, moved


# -- from the statistics to the comparisons ------------------------------------------------------


def _means(family: _Family) -> Array:
    """(sources, metrics) means, summed one query after another in strcmp order of query id
    from 0.0, as ``evaluate`` sums them: the same number the scores show."""
    if family.n == 0:
        return np.zeros(family.values.shape[:2])
    sums = np.cumsum(family.values[:, :, family.order], axis=2)[:, :, -1]
    means: Array = sums / family.n
    return means


def _why_undefined(D: Array) -> list[dict[str, str]]:
    """Per comparison, the statistics that cannot be computed on its deltas, and why."""
    n = D.shape[1]
    finite = [bool(x) for x in stats.finite_rows(D)]
    flat = [bool(x) for x in stats.flat(D)]
    out: list[dict[str, str]] = []
    for c in range(D.shape[0]):
        why: dict[str, str] = {}
        if n == 0 or not finite[c]:
            reason = NO_QUESTIONS if n == 0 else NOT_FINITE
            for name in ("ci95", "p_randomization", "p_adjusted", *_SIZING):
                why[name] = reason
        elif n < 2:
            why.update(dict.fromkeys(_SIZING, ONE_QUESTION))
        elif flat[c]:
            why.update(dict.fromkeys(_SIZING, NO_VARIANCE))
        out.append(why)
    return out


_SIZING = ("p_ttest", "questions_needed", "detectable_difference")
"""The statistics that need a spread of the deltas: the t-test and its power analysis."""


def _needed(
    D: Array,
    deltas: Array,
    min_difference: float | None,
    alpha: float,
    undefined: list[dict[str, str]],
) -> tuple[list[int | None], list[float | None]]:
    """Questions needed and the detectable difference per comparison; where either cannot be
    given, ``undefined`` is told why."""
    C, n = D.shape
    questions: list[int | None] = [None] * C
    detectable: list[float | None] = [None] * C
    sized = [c for c in range(C) if "questions_needed" not in undefined[c]]
    if not sized:
        return questions, detectable
    sd = D[sized].std(axis=1, ddof=1)
    if min_difference is None:
        wanted = np.abs(deltas[sized])
    else:
        wanted = np.full(len(sized), abs(min_difference))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        found = stats.questions_for(wanted / sd, alpha, POWER)
    for c, q, target, s in zip(sized, found, wanted, sd, strict=True):
        if math.isfinite(q):
            questions[c] = int(q)
        else:
            undefined[c]["questions_needed"] = NO_DIFFERENCE if target == 0 else TOO_SMALL
        detectable[c] = stats.detectable_difference(float(s), n, alpha, POWER)
    return questions, detectable


def _assemble(
    base_name: str,
    family: _Family,
    p_random: Array,
    ci: Array,
    deltas: list[dict[str, float]],
    alpha: float,
    min_difference: float | None,
) -> Comparisons:
    D = family.deltas()
    n, M = family.n, len(family.metrics)
    means = _means(family)
    base_means = np.tile(means[0], len(family.names))
    run_means = means[1:].reshape(-1)
    delta = run_means - base_means
    undefined = _why_undefined(D)
    p_t = stats.ttest_p(D)
    tested = np.array(["p_randomization" not in why for why in undefined], dtype=bool)
    p_adj = stats.holm(np.where(tested, p_random, np.nan))
    wins, ties, losses = (D > 0).sum(axis=1), (D == 0).sum(axis=1), (D < 0).sum(axis=1)
    questions, detectable = _needed(D, delta, min_difference, alpha, undefined)
    verdicts = [
        _verdict(
            bool(tested[c] and p_adj[c] < alpha), float(delta[c]), n, questions[c], undefined[c],
            int(tested.sum()), alpha,
        )
        for c in range(D.shape[0])
    ]  # fmt: skip
    items = [
        Comparison(
            run=family.names[c // M],
            metric=family.metrics[c % M],
            n_queries=n,
            base_mean=float(base_means[c]),
            run_mean=float(run_means[c]),
            delta=float(delta[c]),
            ci95=(float(ci[c, 0]), float(ci[c, 1])) if tested[c] else None,
            p_randomization=float(p_random[c]) if tested[c] else None,
            p_ttest=None if math.isnan(p_t[c]) else float(p_t[c]),
            p_adjusted=float(p_adj[c]) if tested[c] else None,
            significant=bool(tested[c] and p_adj[c] < alpha),
            verdict=verdicts[c][0],
            verdict_needed=verdicts[c][1],
            wins=int(wins[c]),
            ties=int(ties[c]),
            losses=int(losses[c]),
            questions_needed=questions[c],
            detectable_difference=detectable[c],
            deltas=deltas[c],
            undefined=undefined[c],
        )
        for c in range(D.shape[0])
    ]
    return Comparisons(base_name, n, alpha, min_difference, items)


def _verdict(
    significant: bool,
    delta: float,
    n: int,
    needed: int | None,
    undefined: Mapping[str, str],
    family: int,
    alpha: float,
) -> tuple[Word, int | None]:
    """One word for a comparison, and with "too few questions to tell" how many would tell.

    Significant (Holm-adjusted p below alpha): better or worse. Otherwise the questions were
    enough when the t-test's power analysis says ``n`` questions detect the difference that
    matters: "no difference detected"; else too few. Deltas all equal have no power analysis:
    all zero is no difference; all the same non-zero delta is significant once the sign-flip
    test's smallest p, ``2 / 2**n``, times the family's size is below alpha.
    """
    if "p_adjusted" in undefined:
        return ("too few questions to tell", None) if n == 0 else ("cannot tell", None)
    if significant:
        return ("better" if delta > 0 else "worse"), None
    why = undefined.get("questions_needed")
    if why == NO_VARIANCE:
        if abs(delta) <= stats.EQUAL:
            return "no difference detected", None
        enough = math.floor(math.log2(family / alpha)) + 2
        return "too few questions to tell", enough if enough > n else None
    if why == NO_DIFFERENCE:
        return "no difference detected", None
    if needed is not None and n >= needed:
        return "no difference detected", None
    return "too few questions to tell", needed


# -- the comparer --------------------------------------------------------------------------------


@dataclass(slots=True)
class _State:
    """What the last comparison was computed from, and its resampled sums."""

    key: tuple[object, ...]
    family: _Family
    Q: Array  # the deltas on the grid, (C, n)
    scale: Array  # (C,)
    sums: tuple[Array, Array] | None  # sign-flip and bootstrap sums (C, B); None when exact
    kept: stats.Resamples | None
    p_random: Array
    ci: Array
    deltas: list[dict[str, float]]


class Comparer:
    """``compare`` with memory: a comparison that differs from the last one in a few queries'
    values is corrected, query by query, instead of recomputed.

    Kept between calls (n queries, B resamples, C comparisons): the signs as bits (B x n / 8
    bytes), the bootstrap counts (B x n / 2 bytes while they fit), the two sums (2 x C x B float64) and the values.
    At n = B = 10,000 and C = 60: 12.5 + 50 + 9.6 MB, plus the values (5 MB) and the deltas.
    A change of the queries (their ids or order), of the runs, metrics, base or resamples, or of
    more than a quarter of the queries, recomputes from scratch; so does every comparison of
    20 queries or fewer (the exact test enumerates its sign vectors: nothing random to keep).
    """

    def __init__(self, keep: bool = True) -> None:
        self._keep = keep
        self._state: _State | None = None
        self.corrected = 0  # comparisons answered by correcting the last one
        self.recomputed = 0  # comparisons computed from scratch

    def compare(
        self,
        base_name: str,
        base: PerQuery,
        runs: Sequence[tuple[str, PerQuery]],
        metrics: Sequence[str],
        *,
        alpha: float = 0.05,
        min_difference: float | None = 0.05,
        resamples: int = 10_000,
        pause: Callable[[], object] | None = None,
        since: Sequence[Since | None] = (),
    ) -> Comparisons:
        """As ``compare`` (the module's function), reusing the last comparison when it can;
        ``pause`` is called between the chunks of resampling a fresh one. ``since``: how the
        base's and each run's table (in that order) were made from earlier ones, where known."""
        if resamples < 1:
            raise ValueError("resamples must be at least 1")
        kept = [name != base_name for name, _ in runs]
        runs = list(compress(runs, kept))
        if since:
            since = [since[0], *compress(since[1:], kept)]
        metrics = list(metrics)
        key = (base_name, tuple(name for name, _ in runs), tuple(metrics), resamples)
        state = self._state
        if state is not None and self._update(state, key, base, runs, since):
            self.corrected += 1
            return _assemble(
                base_name, state.family, state.p_random, state.ci, state.deltas, alpha,
                min_difference,
            )  # fmt: skip
        state = self._fresh(key, base, runs, metrics, resamples, pause)
        self.recomputed += 1
        self._state = state if self._keep and state.sums is not None else None
        return _assemble(
            base_name, state.family, state.p_random, state.ci, state.deltas, alpha, min_difference
        )

    def _fresh(
        self,
        key: tuple[object, ...],
        base: PerQuery,
        runs: Sequence[tuple[str, PerQuery]],
        metrics: list[str],
        resamples: int,
        pause: Callable[[], object] | None = None,
    ) -> _State:
        family = _Family.of(base, runs, metrics)
        D = family.deltas()
        Q, scale = stats.grid(D)
        n = family.n
        deltas = [dict(zip(family.qids, row, strict=True)) for row in D.tolist()]
        if n <= stats.EXACT_MAX:
            _, T = stats.resampled_sums(Q, resamples)
            p, sums, kept = stats.exact_p(Q, scale), None, None
        else:
            kept = stats.Resamples.empty(n, resamples) if self._keep else None
            S, T = stats.resampled_sums(Q, resamples, keep=kept, pause=pause)
            p, sums = stats.sampled_p(S, Q, scale), (S, T)
        ci = stats.interval(T, n, scale, LEVEL)
        return _State(key, family, Q, scale, sums, kept, p, ci, deltas)

    @staticmethod
    def _update(
        state: _State,
        key: tuple[object, ...],
        base: PerQuery,
        runs: Sequence[tuple[str, PerQuery]],
        since: Sequence[Since | None] = (),
    ) -> bool:
        """Bring the state to the new values by corrections; False when it cannot."""
        family = state.family
        if key != state.key or state.sums is None or state.kept is None:
            return False
        made = since[0] if since else None
        same_queries = made is not None and made.base is family.sources[0]  # (no key added)
        if base is not family.sources[0] and not same_queries and list(base) != family.qids:
            return False
        changed = family.update([base, *(per_query for _, per_query in runs)], since)
        if changed is None:
            state.key = ()  # the family is half updated: recompute next time
            return False
        if changed.size == 0:
            return True
        D = family.deltas()
        Q, scale = stats.grid(D)
        if not np.array_equal(scale, state.scale):
            state.key = ()
            return False
        step = (Q[:, changed] - state.Q[:, changed]).T  # (changed, C)
        touched = np.flatnonzero(np.any(step != 0, axis=0))
        S, T = state.sums
        if touched.size:
            # Every comparison, after a judgment edit (the base moved): no fancy-index copies.
            rows = slice(None) if touched.size == S.shape[0] else touched
            step = step[:, rows].T  # (touched, changed)
            # sum(s * q) corrected by each changed query's s * (q_new - q_old): exact integers.
            # np.dot, not `@`, which holds the interpreter lock (see stats.resampled_sums)
            S[rows] += np.dot(step, state.kept.sign_columns(changed))
            T[rows] += np.dot(step, state.kept.count_columns(changed))
            state.p_random[rows] = stats.sampled_p(S[rows], Q[rows], scale[rows])
            state.ci[rows] = stats.interval(T[rows], family.n, scale[rows], LEVEL)
        state.Q = Q
        _new_deltas(state, D, changed)
        return True


def _new_deltas(state: _State, D: Array, changed: npt.NDArray[np.intp]) -> None:
    """Each comparison's deltas dict, copied and corrected where a changed query's delta moved."""
    qids = state.family.qids
    columns = D[:, changed].tolist()
    for c, row in enumerate(columns):
        old = state.deltas[c]
        moved = [
            (qids[i], v) for i, v in zip(changed.tolist(), row, strict=True) if old[qids[i]] != v
        ]
        if moved:
            new = dict(old)
            new.update(moved)
            state.deltas[c] = new
