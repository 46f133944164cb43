"""Scoring a run against judgments with the averaging rules of docs/metrics.md, and keeping the
per-query scores between evaluations so that an edit re-scores what it touched."""

from __future__ import annotations

import functools
import operator
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .metric import Metric, query_scores


@dataclass(slots=True)
class Evaluation:
    """Per-query values and means, with the queries that were treated specially named."""

    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    mean: dict[str, float] = field(default_factory=dict)
    n_queries: int = 0  # what every mean is over
    missing: list[str] = field(default_factory=list)  # golden, not in the run: 0, in the mean
    unknown: list[str] = field(default_factory=list)  # in the run, not golden: ignored
    unanswerable: list[str] = field(default_factory=list)  # not scored, out of the means
    since: Since | None = None  # how ``per_query`` was made from the last evaluation's, if it was
    _missing: frozenset[str] | None = field(default=None, init=False, repr=False, compare=False)

    def missing_ids(self) -> frozenset[str]:
        """``missing`` as a set: made once, and handed on to the evaluations derived from this
        one (their missing queries are the same). A lens asks after every keystroke, and
        hashing the 90,000 ids a short run leaves out takes longer than the lens itself."""
        found = self._missing
        if found is None:
            found = self._missing = frozenset(self.missing)
        return found


@dataclass(frozen=True, slots=True)
class Since:
    """A mapping is ``base`` with the values of ``keys`` replaced, no key added or removed.

    Said by whoever made the mapping that way (the project after an edit of one entry, the
    baseline after an edit of one question), so that what was computed from ``base`` is updated
    for those keys only, without comparing ten thousand values to find them.
    """

    base: Mapping[str, object]
    keys: frozenset[str]


def changed_keys(
    new: Mapping[str, object], old: Mapping[str, object], since: Since | None
) -> set[str]:
    """The keys of ``new`` whose values are not the very objects of ``old``'s (``since`` says
    which, when it was made from ``old``): what a cache kept per key must compute again."""
    if new is old:
        return set()
    if since is not None and since.base is old:
        return set(since.keys)
    return {q for q, v in new.items() if old.get(q) is not v}


class ScoreCache:
    """Per-query scores kept between evaluations of the same run, so that an edit to one
    question re-scores that question only. An entry is reused when the query's judgments are
    equal and its ranking is the very same list (rankings are cached per parse of the run).

    The last evaluation is kept too. When the next one's judgments and rankings are the very
    same objects for all but a few queries (the project derives a golden set's grades from the
    last ones after an edit of one entry), the new evaluation is the last one with those queries
    re-scored: no pass over ten thousand queries to find the one that changed.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Mapping[str, int], Sequence[str], dict[str, float]]] = {}
        self._config: tuple[tuple[Metric, ...], int] = ((), 0)
        self._last: _Last | None = None

    def scores(
        self,
        qid: str,
        grades: Mapping[str, int],
        ranking: Sequence[str],
        metrics: Sequence[Metric],
        level: int,
    ) -> dict[str, float]:
        hit = self._entries.get(qid)
        if hit is not None and hit[1] is ranking and hit[0] == grades:
            return hit[2]
        values = query_scores(grades, ranking, metrics, level)
        self._entries[qid] = (grades, ranking, values)
        return values

    def begin(self, metrics: Sequence[Metric], level: int, qids: int) -> None:
        """Start an evaluation: other metrics or level invalidate everything; stale ids go."""
        config = (tuple(metrics), level)
        if config != self._config or len(self._entries) > 2 * qids + 16:
            self._entries = {}
            self._config = config
            self._last = None

    def derive(
        self,
        qrels: Mapping[str, Mapping[str, int]],
        run: Mapping[str, Sequence[str]],
        unanswerable: set[str],
        qrels_since: Since | None = None,
        run_since: Since | None = None,
    ) -> Evaluation | None:
        """The last evaluation with the queries whose judgments or ranking changed re-scored;
        None when the query sets differ or too much changed to be worth it."""
        last = self._last
        if (
            last is None
            or len(qrels) != len(last.qrels)
            or len(run) != len(last.run)
            or unanswerable != last.unanswerable
        ):
            return None
        judged = changed_keys(qrels, last.qrels, qrels_since)
        ranked = changed_keys(run, last.run, run_since)
        if len(judged) + len(ranked) > len(qrels) // 8 + 1:
            return None
        # The sizes are equal, so the id sets are too unless a changed id is a new one.
        if any(q not in last.qrels for q in judged) or any(q not in last.run for q in ranked):
            return None
        changed = judged | ranked
        metrics, level = self._config
        per_query = dict(last.evaluation.per_query)
        for qid in changed:
            if qid not in qrels or qid in unanswerable:
                continue  # run-only (unknown) or not scored: as before
            ranking = run.get(qid)
            if ranking is not None:  # a missing query stays missing, at zero
                per_query[qid] = self.scores(qid, qrels[qid], ranking, metrics, level)
        prev = last.evaluation
        out = Evaluation(
            per_query=per_query,
            n_queries=prev.n_queries,
            missing=list(prev.missing),
            unknown=list(prev.unknown),
            unanswerable=list(prev.unanswerable),
            since=Since(prev.per_query, frozenset(changed)),
        )
        out._missing = prev._missing
        columns = last.columns.updated(per_query, changed)
        out.mean = columns.means()
        self._last = _Last(qrels, run, unanswerable, columns, out)
        return out

    def remember(
        self,
        qrels: Mapping[str, Mapping[str, int]],
        run: Mapping[str, Sequence[str]],
        unanswerable: set[str],
        columns: _Columns,
        evaluation: Evaluation,
    ) -> None:
        self._last = _Last(qrels, run, unanswerable, columns, evaluation)


class _Columns:
    """Each metric's per-query values in the order trec_eval sums them (strcmp of query id).

    Kept between evaluations so that after an edit the changed values are put in place and the
    sums redone over one row of floats per metric, with no pass over a hundred thousand
    per-query tables in Python: a numpy matrix, metrics by queries, and
    ``numpy.add.accumulate``, which adds one value after another as trec_eval's loop does
    (``sum`` and ``numpy.sum`` compensate or pair, and differ from it in the last bits);
    :func:`sequential_mean` is the plain loop the tests hold it to.
    """

    __slots__ = ("_at", "_matrix", "_names")

    def __init__(self, at: dict[str, int], names: tuple[str, ...], matrix: Any) -> None:
        self._at = at  # query id -> its column
        self._names = names
        self._matrix = matrix

    @classmethod
    def of(
        cls,
        per_query: Mapping[str, Mapping[str, float]],
        counted: list[str],
        names: Iterable[str],
    ) -> _Columns:
        import numpy as np  # (not at start-up: see core/compare/__init__)

        rows = [per_query[qid] for qid in counted]
        keys = tuple(names)
        matrix = np.empty((len(keys), len(rows)))
        for j, name in enumerate(keys):
            matrix[j] = [row[name] for row in rows]
        return cls({qid: i for i, qid in enumerate(counted)}, keys, matrix)

    def updated(
        self, per_query: Mapping[str, Mapping[str, float]], changed: Iterable[str]
    ) -> _Columns:
        matrix = self._matrix.copy()
        for qid in changed:
            i = self._at.get(qid)
            if i is not None:  # not counted (unanswerable, or only in the run): in no mean
                values = per_query[qid]
                matrix[:, i] = [values[name] for name in self._names]
        return _Columns(self._at, self._names, matrix)

    def means(self) -> dict[str, float]:
        import numpy as np

        n = len(self._at)
        if not n:
            return dict.fromkeys(self._names, 0.0)
        sums = [float(np.add.accumulate(row)[-1]) for row in self._matrix]
        return {name: total / n for name, total in zip(self._names, sums, strict=True)}


def restricted(evaluation: Evaluation, qids: Collection[str]) -> Evaluation:
    """The evaluation of the golden set filtered to ``qids`` (a tag's questions): the same
    per-query values, since no query's value depends on another's, and the means over the kept
    ones summed in the same strcmp order, so they equal a fresh evaluation of the filtered set
    bit for bit."""
    keep = set(qids)
    out = Evaluation(
        per_query={q: v for q, v in evaluation.per_query.items() if q in keep},
        missing=[q for q in evaluation.missing if q in keep],
        unanswerable=[q for q in evaluation.unanswerable if q in keep],
    )
    counted = sorted(out.per_query)
    out.n_queries = len(counted)
    names = next(iter(evaluation.per_query.values()), evaluation.mean)
    out.mean = _Columns.of(out.per_query, counted, names).means()
    return out


def sequential_mean(values: Iterable[float], n: int) -> float:
    """trec_eval's mean: one addition after another from 0.0, divided by the query count."""
    return functools.reduce(operator.add, values, 0.0) / n if n else 0.0


@dataclass(frozen=True, slots=True)
class _Last:
    """An evaluation and exactly what it was computed from (compared by identity)."""

    qrels: Mapping[str, Mapping[str, int]]
    run: Mapping[str, Sequence[str]]
    unanswerable: set[str]
    columns: _Columns
    evaluation: Evaluation


def evaluate(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    metrics: Sequence[Metric],
    level: int = 1,
    unanswerable: Collection[str] = (),
    cache: ScoreCache | None = None,
    *,
    qrels_since: Since | None = None,
    run_since: Since | None = None,
) -> Evaluation:
    """Score a run against a golden set with the averaging rules of docs/metrics.md.

    A golden query the run does not answer is a failure, so it scores 0 and counts. Means are
    summed in ``strcmp`` order of query id, as trec_eval accumulates them, so that they too match
    bit for bit. ``qrels_since`` and ``run_since`` say how the inputs were made from the last ones
    evaluated with ``cache``, when their maker knows.
    """
    unanswerable = set(unanswerable)
    if cache is not None:
        cache.begin(metrics, level, len(qrels))
        derived = cache.derive(qrels, run, unanswerable, qrels_since, run_since)
        if derived is not None:
            return derived
    out = Evaluation()
    # What a query missing from the run scores: what an empty ranking scores, whatever its
    # judgments: 0, but judged@k 1 (nothing retrieved is unjudged), as trec_eval -c prints it.
    empty = query_scores({}, (), metrics, level)
    for qid, grades in qrels.items():
        if qid in unanswerable:  # nothing to find: neither scored nor missing
            out.unanswerable.append(qid)
            continue
        ranking = run.get(qid)
        if ranking is None:
            out.missing.append(qid)
            out.per_query[qid] = dict(empty)
        elif cache is not None:
            out.per_query[qid] = cache.scores(qid, grades, ranking, metrics, level)
        else:
            out.per_query[qid] = query_scores(grades, ranking, metrics, level)
    out.unknown = [qid for qid in run if qid not in qrels]
    counted = sorted(qid for qid in qrels if qid not in unanswerable)
    out.n_queries = len(counted)
    columns = _Columns.of(out.per_query, counted, empty)
    out.mean = columns.means()
    if cache is not None:
        cache.remember(qrels, run, unanswerable, columns, out)
    return out


def evaluate_stream(
    qrels: Mapping[str, Mapping[str, int]],
    chunks: Iterable[Mapping[str, Sequence[str]]],
    metrics: Sequence[Metric],
    level: int = 1,
    unanswerable: Collection[str] = (),
) -> Evaluation:
    """:func:`evaluate` of a run read a part at a time (a run too large to hold), keeping the
    per-query values only: a query given again in a later part is scored again, and its last
    ranking counts (a streamed run gives a query split over parts once more, whole, at the
    end). The same evaluation as :func:`evaluate` of the parts merged."""
    unanswerable = set(unanswerable)
    values: dict[str, dict[str, float]] = {}
    order: dict[str, None] = {}  # every query of the run, first seen first
    for chunk in chunks:
        for qid, ranking in chunk.items():
            order[qid] = None
            grades = qrels.get(qid)
            if grades is not None and qid not in unanswerable:
                values[qid] = query_scores(grades, ranking, metrics, level)
    out = Evaluation()
    empty = query_scores({}, (), metrics, level)  # a missing query, as evaluate scores it
    for qid in qrels:
        if qid in unanswerable:
            out.unanswerable.append(qid)
        elif qid in values:
            out.per_query[qid] = values[qid]
        else:
            out.missing.append(qid)
            out.per_query[qid] = dict(empty)
    out.unknown = [qid for qid in order if qid not in qrels]
    counted = sorted(qid for qid in qrels if qid not in unanswerable)
    out.n_queries = len(counted)
    out.mean = _Columns.of(out.per_query, counted, empty).means()
    return out
