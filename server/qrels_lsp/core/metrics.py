"""Ranking metrics that reproduce trec_eval's per-query numbers (see METRICS.md).

Users check what the editor shows against trec_eval, pytrec_eval or ir_measures, so every value is
computed with the same float operations, in the same order, as trec_eval's C code: a value that is
"almost" the same would still print differently in the fourth decimal now and then, and nobody
would trust the rest. Each query is scored in one pass over the top of its ranking, whatever the
number of metrics asked for, because a language server re-scores on every keystroke.
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

MetricName = Literal["recall", "precision", "mrr", "ndcg", "map", "hit_rate"]

_NEEDS_K: frozenset[str] = frozenset({"recall", "precision", "ndcg", "hit_rate"})

# Accepted spellings -> canonical name: ranx's names first, then trec_eval's and ir_measures'
# so that a metric copied from another tool's command line is understood.
_ALIASES: dict[str, MetricName] = {
    "recall": "recall",
    "r": "recall",
    "precision": "precision",
    "p": "precision",
    "mrr": "mrr",
    "rr": "mrr",
    "recip_rank": "mrr",
    "ndcg": "ndcg",
    "ndcg_cut": "ndcg",
    "map": "map",
    "ap": "map",
    "hit_rate": "hit_rate",
    "hits": "hit_rate",
    "success": "hit_rate",
}

_METRIC_RE = re.compile(r"^\s*([A-Za-z_]+?)(?:\s*[@_]\s*(\d+))?\s*$")


@dataclass(frozen=True, slots=True, order=True)
class Metric:
    """A metric and its cutoff; ``str()`` gives ranx's name, which is also the result key."""

    name: MetricName
    k: int | None = None

    def __post_init__(self) -> None:
        if self.name not in _NEEDS_K and self.name not in ("mrr", "map"):
            raise ValueError(f"unknown metric {self.name!r}")
        if self.k is None and self.name in _NEEDS_K:
            raise ValueError(f"{self.name} needs a cutoff, e.g. {self.name}@5")
        if self.k is not None and self.name == "map":
            raise ValueError("map takes no cutoff (trec_eval's map_cut is a different measure)")
        if self.k is not None and self.k < 1:
            raise ValueError(f"the cutoff of {self.name} must be at least 1, not {self.k}")

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


def parse_metric(s: str) -> Metric:
    """Read ``recall@5``, ``P@5``, ``P_5``, ``ndcg_cut_10``, ``recip_rank``, ``mrr@10``, ..."""
    m = _METRIC_RE.match(s)
    name = _ALIASES.get(m.group(1).lower()) if m else None
    if m is None or name is None:
        known = "recall@k, precision@k, mrr, mrr@k, ndcg@k, map, hit_rate@k"
        raise ValueError(f"unknown metric {s!r}; expected one of {known}")
    k = int(m.group(2)) if m.group(2) is not None else None
    return Metric(name, k)


def default_metrics(k: int) -> list[Metric]:
    return [
        Metric("recall", k),
        Metric("precision", k),
        Metric("mrr"),
        Metric("ndcg", k),
        Metric("map"),
        Metric("hit_rate", k),
    ]


def trec_eval_order(entries: Iterable[tuple[str, float]]) -> list[str]:
    """Doc ids in the order trec_eval evaluates them.

    trec_eval ignores the rank column and the line order: it sorts by score descending and breaks
    ties by doc id descending with ``strcmp``. Python compares strings by code point, which is the
    byte order of their UTF-8 encoding, so one reversed tuple sort is exactly that order. The first
    occurrence of a doc id wins (trec_eval would refuse the run; the parsers report the repeat).
    """
    first: dict[str, float] = {}
    for doc_id, score in entries:
        if doc_id not in first:
            first[doc_id] = score
    return order_by_score(first)


def order_by_score(scores: Mapping[str, float]) -> list[str]:
    """:func:`trec_eval_order` of doc ids already unique; NaN scores must be left out before."""
    return [
        doc_id
        for _, doc_id in sorted(zip(scores.values(), scores.keys(), strict=True), reverse=True)
    ]


def _ideal_dcg(grades: Iterable[int], k: int) -> float:
    """trec_eval's IDCG: every positive judgment, highest grade first, cut at k, in that order."""
    ideal = sorted((g for g in grades if g > 0), reverse=True)[:k]
    total = 0.0
    for i, gain in enumerate(ideal):
        total += gain / math.log2(i + 2)  # rank i + 1, discounted by log2(rank + 1)
    return total


@dataclass(slots=True)
class _Pass:
    """What one walk down a ranking gathers; every metric is derived from it."""

    rel_at: dict[int, int]  # cutoff -> relevant docs in the top cutoff
    dcg_at: dict[int, float]  # cutoff -> DCG over the top cutoff, summed in rank order
    first_rel: int | None  # 1-based rank of the first relevant doc
    ap_sum: float
    num_rel: int


def _walk(
    grades: Mapping[str, int],
    ranking: Sequence[str],
    cutoffs: Sequence[int],
    depth: int | None,
    level: int,
) -> _Pass:
    """Walk the judged docs of the ranking in rank order, snapshotting counts at each cutoff the
    way trec_eval's loops do."""
    num_rel = sum(1 for g in grades.values() if g >= level and g >= 0)
    todo = sorted(set(cutoffs))
    rel_at: dict[int, int] = {}
    dcg_at: dict[int, float] = {}
    n = len(ranking) if depth is None else min(len(ranking), depth)
    rel_so_far, dcg, ap_sum, first_rel = 0, 0.0, 0.0, None
    ci = 0
    for i, g in _judged(grades, ranking, n):
        while ci < len(todo) and todo[ci] <= i:
            rel_at[todo[ci]], dcg_at[todo[ci]] = rel_so_far, dcg
            ci += 1
        if g > 0:
            dcg += g / math.log2(i + 2)
        if g >= level and g >= 0:
            rel_so_far += 1
            ap_sum += rel_so_far / (i + 1)
            if first_rel is None:
                first_rel = i + 1
    for c in todo[ci:]:
        rel_at[c], dcg_at[c] = rel_so_far, dcg
    return _Pass(rel_at, dcg_at, first_rel, ap_sum, num_rel)


def _judged(grades: Mapping[str, int], ranking: Sequence[str], n: int) -> list[tuple[int, int]]:
    """(0-based rank, grade) of the judged docs in the top n, in rank order.

    A 1,000-deep ranking has a few dozen judged docs: mapping the ranking's ids to their ranks
    runs in C, and the Python loop is then over the judgments alone. A ranking that repeats an id
    (the model never builds one, but a caller could) is walked position by position instead.
    """
    top = ranking[:n] if n < len(ranking) else ranking
    rank_of = dict(zip(top, range(n), strict=True))
    if len(rank_of) < n:
        get = grades.get
        return [(i, g) for i, d in enumerate(top) if (g := get(d)) is not None]
    return sorted((rank_of[d], g) for d, g in grades.items() if d in rank_of)


def _depth(metrics: Sequence[Metric]) -> int | None:
    """How far down the ranking the metrics look; None means to the end (map, uncut mrr)."""
    if any(m.name == "map" or (m.name == "mrr" and m.k is None) for m in metrics):
        return None
    return max((m.k for m in metrics if m.k is not None), default=0)


def _value(m: Metric, p: _Pass, grades: Mapping[str, int]) -> float:
    if m.name == "recall":
        assert m.k is not None
        return p.rel_at[m.k] / p.num_rel if p.num_rel else 0.0
    if m.name == "precision":
        assert m.k is not None
        return p.rel_at[m.k] / m.k
    if m.name == "hit_rate":
        assert m.k is not None
        return 1.0 if p.rel_at[m.k] > 0 else 0.0
    if m.name == "mrr":
        if p.first_rel is None or (m.k is not None and p.first_rel > m.k):
            return 0.0
        return 1.0 / p.first_rel
    if m.name == "map":
        return p.ap_sum / p.num_rel if p.num_rel and p.ap_sum else 0.0
    assert m.k is not None
    idcg = _ideal_dcg(grades.values(), m.k)
    return p.dcg_at[m.k] / idcg if idcg > 0.0 else p.dcg_at[m.k]


def query_scores(
    grades: Mapping[str, int],
    ranking: Sequence[str],
    metrics: Sequence[Metric],
    level: int = 1,
) -> dict[str, float]:
    """Score one query. ``ranking`` is in evaluation order, without repeated doc ids.

    Relevant means ``grade >= level`` (and never a negative grade, which trec_eval treats as
    judged-but-unjudged); nDCG uses the raw positive grades and ignores ``level``, as trec_eval's
    ``ndcg_cut`` does.
    """
    cutoffs = [m.k for m in metrics if m.k is not None]
    p = _walk(grades, ranking, cutoffs, _depth(metrics), level)
    return {str(m): _value(m, p, grades) for m in metrics}


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


@dataclass(frozen=True, slots=True)
class Since:
    """A mapping is ``base`` with the values of ``keys`` replaced, no key added or removed.

    Said by whoever made the mapping that way (the project after an edit of one entry, the
    baseline after an edit of one question), so that what was computed from ``base`` is updated
    for those keys only, without comparing ten thousand values to find them.
    """

    base: Mapping[str, object]
    keys: frozenset[str]


def _changed(new: Mapping[str, object], old: Mapping[str, object], since: Since | None) -> set[str]:
    """The keys of ``new`` whose values are not the very objects of ``old``'s."""
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
        judged = _changed(qrels, last.qrels, qrels_since)
        ranked = _changed(run, last.run, run_since)
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
    sums redone over plain lists of floats, with no pass over ten thousand per-query tables.
    """

    __slots__ = ("_at", "_columns")

    def __init__(self, at: dict[str, int], columns: dict[str, list[float]]) -> None:
        self._at = at  # query id -> its place in every column
        self._columns = columns

    @classmethod
    def of(
        cls,
        per_query: Mapping[str, Mapping[str, float]],
        counted: list[str],
        names: Iterable[str],
    ) -> _Columns:
        rows = [per_query[qid] for qid in counted]
        columns = {name: [row[name] for row in rows] for name in names}
        return cls({qid: i for i, qid in enumerate(counted)}, columns)

    def updated(
        self, per_query: Mapping[str, Mapping[str, float]], changed: Iterable[str]
    ) -> _Columns:
        columns = {name: list(column) for name, column in self._columns.items()}
        for qid in changed:
            i = self._at.get(qid)
            if i is not None:  # not counted (unanswerable, or only in the run): in no mean
                values = per_query[qid]
                for name, column in columns.items():
                    column[i] = values[name]
        return _Columns(self._at, columns)

    def means(self) -> dict[str, float]:
        # One addition after another from 0.0, as trec_eval's loop does (not sum(), which
        # compensates rounding since Python 3.12), in C: 10,000 questions on every keystroke.
        n = len(self._at)
        return {
            name: functools.reduce(operator.add, column, 0.0) / n if n else 0.0
            for name, column in self._columns.items()
        }


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
    """Score a run against a golden set with the averaging rules of METRICS.md.

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
    empty = dict.fromkeys((str(m) for m in metrics), 0.0)
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


@dataclass(frozen=True, slots=True)
class NdcgRow:
    rank: int
    doc_id: str
    grade: int | None  # None: not judged
    gain: float
    discount: float
    contribution: float


@dataclass(frozen=True, slots=True)
class NdcgExplanation:
    """How an nDCG@k value was computed, row by row, for a hover."""

    k: int
    rows: list[NdcgRow]  # the run's top k
    ideal: list[NdcgRow]  # the best possible top k from the judgments
    dcg: float
    idcg: float
    ndcg: float


def _row(rank: int, doc_id: str, grade: int | None) -> NdcgRow:
    gain = float(grade) if grade is not None and grade > 0 else 0.0
    discount = math.log2(rank + 1)
    contribution = gain / discount
    return NdcgRow(rank, doc_id, grade, gain, discount, contribution)


def _total(rows: Sequence[NdcgRow]) -> float:
    total = 0.0
    for r in rows:
        if r.gain > 0:
            total += r.contribution
    return total


def ndcg_explain(grades: Mapping[str, int], ranking: Sequence[str], k: int) -> NdcgExplanation:
    """The terms of nDCG@k; its ``ndcg`` equals ``query_scores(...)["ndcg@k"]`` exactly."""
    rows = [_row(i + 1, d, grades.get(d)) for i, d in enumerate(ranking[:k])]
    best = sorted(((g, d) for d, g in grades.items() if g > 0), key=lambda t: (-t[0], t[1]))[:k]
    ideal = [_row(i + 1, d, g) for i, (g, d) in enumerate(best)]
    dcg, idcg = _total(rows), _total(ideal)
    return NdcgExplanation(k, rows, ideal, dcg, idcg, dcg / idcg if idcg > 0.0 else dcg)


def format_value(x: float) -> str:
    """Print like trec_eval's ``%6.4f``: Python rounds the exact binary value half-to-even, as C."""
    return f"{x:6.4f}"
