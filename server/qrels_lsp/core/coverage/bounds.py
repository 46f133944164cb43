"""Optimistic bounds: what each metric would be if the unjudged documents a run puts in its top
k were relevant.

Every metric treats an unjudged document as not relevant, so its usual value is a lower bound.
The bound counts the unjudged documents of the run's top k (no judgment, or a negative grade:
judged@k's unjudged) as relevant, adds them to that query's judgments and scores the same
metric again: at the relevance level (the metric's own ``rel=`` if it has one), and at the
query's highest grade for the measures that read grades, not the level (nDCG, RBP); on every
subtopic, where the query is judged per subtopic (alpha-nDCG). The top k
is the metric's cutoff, or, for a metric without one (map, mrr, bpref...), the k in force. The
gap between the two is what judging could still change. judged@k itself has no bound.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ..metrics import Evaluation, Metric, evaluate
from ..subtopics import SubtopicGrades


def bounded(metrics: Sequence[Metric]) -> list[Metric]:
    """The metrics that have a bound: the measures of effectiveness, not judged@k."""
    return [m for m in metrics if m.measure.compared]


def unjudged_top(grades: Mapping[str, int], ranking: Sequence[str] | None, depth: int) -> list[str]:
    """The documents of the top ``depth`` with no judgment or a negative grade."""
    if ranking is None:
        return []
    return [d for d in ranking[:depth] if grades.get(d, -1) < 0]


def _grade_rule(metric: Metric, level: int) -> int | None:
    """The grade an unjudged document gets for ``metric``: relevant at the level the metric
    reads; None for the query's highest grade, for a measure whose gains are the grades."""
    if metric.rel is not None:
        return max(metric.rel, 0)
    return None if metric.measure.graded else max(level, 0)


def _top_grade(grades: Mapping[str, int], level: int) -> int:
    return max([g for g in grades.values() if g > 0] + [max(level, 1)])


def upper_bounds(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Sequence[str]],
    metrics: Sequence[Metric],
    k: int,
    level: int = 1,
    unanswerable: Collection[str] = (),
) -> Evaluation:
    """The run's evaluation on the golden set with its unjudged top documents judged relevant:
    per query and mean, over the same queries as the usual one (a query missing from the run
    retrieved nothing unjudged, so its bound is its value)."""
    groups: dict[tuple[int, int | None], list[Metric]] = {}
    for m in bounded(metrics):
        groups.setdefault((m.k or k, _grade_rule(m, level)), []).append(m)
    out = Evaluation()
    for (depth, rule), group in groups.items():
        extended: dict[str, Mapping[str, int]] = {}
        for qid, grades in qrels.items():
            extra = unjudged_top(grades, run.get(qid), depth)
            if extra:
                grade = _top_grade(grades, level) if rule is None else rule
                if isinstance(grades, SubtopicGrades):  # relevant to every subtopic
                    extended[qid] = grades.extended(extra, grade)
                else:
                    extended[qid] = {**grades, **dict.fromkeys(extra, grade)}
            else:
                extended[qid] = grades
        ev = evaluate(extended, run, group, level=level, unanswerable=unanswerable)
        for qid, values in ev.per_query.items():
            out.per_query.setdefault(qid, {}).update(values)
        out.mean.update(ev.mean)
        out.n_queries, out.missing, out.unknown = ev.n_queries, ev.missing, ev.unknown
        out.unanswerable = ev.unanswerable
    order = [str(m) for m in bounded(metrics)]  # the metrics' own order, not the groups'
    out.per_query = {q: {n: v[n] for n in order} for q, v in out.per_query.items()}
    out.mean = {n: out.mean[n] for n in order if n in out.mean}
    return out
