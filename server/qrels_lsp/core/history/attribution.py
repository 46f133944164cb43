"""Why a number moved between two versions of a golden set G0 -> G1 and of a run R0 -> R1
(docs/compare.md, "Attribution of a change"; docs/history.md).

For a metric m (a mean over the golden set's scored questions, docs/metrics.md):

- ``total = m(R1, G1) - m(R0, G0)``
- ``judgments = m(R0, G1) - m(R0, G0)``: the golden set's part, the old run scored both ways;
- ``run_change = m(R1, G0) - m(R0, G0)``: the run's part, on the old golden set;
- ``interaction = total - judgments - run_change``: what neither explains alone (the new run's
  answers to the new judgments), defined as the rest so that the three sum to ``total`` as
  computed, with no rounding left over.

Each term but the last is the difference of two evaluations that equal trec_eval's (four in
all: :class:`Evaluations`). Per question the same, with a question absent from one version
counted as absent (``None``, and 0 in the differences): a question added or removed changes the
mean's denominator as well as its sum, which the per-question parts cannot show, so the counts
of questions each mean is over are kept beside them.

The metrics are those of each version: ``recall@k`` is recall@5 on a golden set with ``k: 5``
and recall@10 on one with ``k: 10``, so a change of ``k`` is part of the golden set's share.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..chunks import ChunkedRankings, ChunkRule
from ..metrics import Evaluation, Metric, ScoreCache, Since, evaluate

Rankings = Mapping[str, Sequence[str]]


@dataclass(frozen=True, slots=True)
class Scoring:
    """One version of a golden set as scoring reads it."""

    grades: Mapping[str, Mapping[str, int]]
    unanswerable: Collection[str]
    level: int
    metrics: Sequence[Metric]
    k: int = 10
    chunks: ChunkRule | None = None
    since: Since | None = None  # how ``grades`` was made from the last ones (after an edit)


@dataclass(frozen=True, slots=True)
class Evaluations:
    """A run's two versions scored on the golden set's two: ``rg`` is run r on golden set g."""

    e00: Evaluation
    e01: Evaluation
    e10: Evaluation
    e11: Evaluation


@dataclass(frozen=True, slots=True)
class Part:
    """One number's change and its parts (``before``/``after`` None: the question is absent
    from that version)."""

    before: float | None
    after: float | None
    judgments: float
    run_change: float
    interaction: float

    @property
    def total(self) -> float:
        return (self.after or 0.0) - (self.before or 0.0)


def split(v00: float | None, v01: float | None, v10: float | None, v11: float | None) -> Part:
    """The parts of a change from the four values (None: absent, 0 in the differences)."""
    a, b, c, d = (v or 0.0 for v in (v00, v01, v10, v11))
    total = d - a
    judgments = b - a
    run_change = c - a
    return Part(v00, v11, judgments, run_change, total - judgments - run_change)


@dataclass(frozen=True, slots=True)
class Change:
    """A run's metric between the two versions: the mean's change and its parts, and the
    questions whose value or a part of it is not 0 (by their new id; a removed one by its
    old), each with its own."""

    run: str
    metric: str  # as the new version names it
    before_metric: str  # as the old one does (another cutoff when `k` changed)
    mean: Part
    n_before: int  # the questions the mean is over, in each version
    n_after: int
    questions: Mapping[str, Part] = field(default_factory=dict)


class Prepared:
    """Rankings mapped to documents by a version's chunk rule, the same objects for the same
    inputs (the score caches compare rankings by identity)."""

    def __init__(self) -> None:
        self._chunked: dict[int, tuple[Rankings, ChunkedRankings]] = {}

    def of(self, rankings: Rankings, rule: ChunkRule | None) -> Rankings:
        if rule is None:
            return rankings
        hit = self._chunked.get(id(rankings))
        if hit is None or hit[0] is not rankings:
            hit = self._chunked[id(rankings)] = (rankings, ChunkedRankings())
            if len(self._chunked) > 16:  # runs come and go: keep the latest only
                self._chunked = {id(rankings): hit}
        return hit[1].of(rankings, rule)  # type: ignore[arg-type]


def score(
    side: Scoring,
    rankings: Rankings,
    cache: ScoreCache | None = None,
    prepared: Prepared | None = None,
) -> Evaluation:
    """A run's version scored on a golden set's version, as ``score`` scores it."""
    mapped = (prepared or Prepared()).of(rankings, side.chunks)
    return evaluate(
        side.grades,
        mapped,
        side.metrics,
        level=side.level,
        unanswerable=side.unanswerable,
        cache=cache,
        qrels_since=side.since,
    )


def evaluations(old: Scoring, new: Scoring, r0: Rankings, r1: Rankings) -> Evaluations:
    """The four evaluations of a run's versions on a golden set's (two when the run is one)."""
    e00, e01 = score(old, r0), score(new, r0)
    if r1 is r0:
        return Evaluations(e00, e01, e00, e01)
    return Evaluations(e00, e01, score(old, r1), score(new, r1))


def metric_pairs(old: Sequence[Metric], new: Sequence[Metric]) -> list[tuple[Metric, Metric]]:
    """Each metric of the new version with its counterpart in the old: the same place in the
    list (both are resolved from the same names at each version's ``k``), else the same name."""
    if len(old) == len(new):
        return list(zip(old, new, strict=True))
    named = {str(m): m for m in old}
    return [(named[str(m)], m) for m in new if str(m) in named]


def changes(
    run: str,
    ev: Evaluations,
    pairs: Sequence[tuple[Metric, Metric]],
    old_id: Callable[[str], str],
    keys: Iterable[str] | None = None,
) -> list[Change]:
    """Every metric's change for one run; ``keys``: the questions to look at (by new id, a
    removed one by its old; None: every question of either version)."""
    asked = list(keys) if keys is not None else question_keys(ev, old_id)
    out = []
    for m0, m1 in pairs:
        mean = split(*(e.mean.get(str(m)) for e, m in _cells(ev, m0, m1)))
        out.append(
            Change(
                run,
                str(m1),
                str(m0),
                mean,
                ev.e00.n_queries,
                ev.e11.n_queries,
                moved(ev, m0, m1, asked, old_id),
            )
        )
    return out


def _cells(ev: Evaluations, m0: Metric, m1: Metric) -> tuple[tuple[Evaluation, Metric], ...]:
    """Each evaluation with the metric it is read at (the golden set's version decides)."""
    return ((ev.e00, m0), (ev.e01, m1), (ev.e10, m0), (ev.e11, m1))


def question_keys(ev: Evaluations, old_id: Callable[[str], str]) -> list[str]:
    """Every question of either version: the new one's ids, then the old one's that it lacks."""
    new = ev.e11.per_query
    renamed = {old_id(q) for q in new}
    return [*new, *(q for q in ev.e00.per_query if q not in renamed and q not in new)]


def moved(
    ev: Evaluations,
    m0: Metric,
    m1: Metric,
    keys: Iterable[str],
    old_id: Callable[[str], str],
) -> dict[str, Part]:
    """The questions among ``keys`` whose value or a part of it is not 0, with their parts."""
    n0, n1 = str(m0), str(m1)
    q00, q01, q10, q11 = ev.e00.per_query, ev.e01.per_query, ev.e10.per_query, ev.e11.per_query
    out = {}
    for key in keys:
        was = old_id(key)
        values = (_at(q00, was, n0), _at(q01, key, n1), _at(q10, was, n0), _at(q11, key, n1))
        if values[0] is None and values[3] is None and values[1] is None and values[2] is None:
            continue
        part = split(*values)
        if (
            part.total
            or part.judgments
            or part.run_change
            or (values[0] is None) != (values[3] is None)
        ):
            out[key] = part
    return out


def _at(per_query: Mapping[str, Mapping[str, float]], qid: str, name: str) -> float | None:
    values = per_query.get(qid)
    return None if values is None else values.get(name)
