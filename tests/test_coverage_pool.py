"""Optimistic bounds and the judging queue (issue 16), against independent paths.

Bounds: the qrels with each run's unjudged top documents added are built here in a few lines and
scored by pytrec_eval; ours must equal them. The queue: on generated runs, judging its first N
pairs raises the runs' mean judged@depth (measured by evaluating again, not by a formula) at
least as much as judging any other N pairs of the pool, checked against every N-subset.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

import pytest
import pytrec_eval
from qrels_lsp.core.coverage.bounds import upper_bounds
from qrels_lsp.core.coverage.pool import PoolCache, judging_queue
from qrels_lsp.core.metrics import Metric, Since, evaluate, parse_metric
from trec_data import qrels_of, run_of

# -- bounds --------------------------------------------------------------------------------------

# ours -> (pytrec_eval measure, its key, how deep the unjudged are taken, graded)
BOUNDED = {
    "recall@5": ("recall.5", "recall_5", 5, False),
    "precision@10": ("P.10", "P_10", 10, False),
    "mrr": ("recip_rank", "recip_rank", None, False),
    "map": ("map", "map", None, False),
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10", 10, True),
    "hit_rate@5": ("success.5", "success_5", 5, False),
    "map@5": ("map_cut.5", "map_cut_5", 5, False),
}


def with_unjudged(
    grades: Mapping[str, Mapping[str, int]],
    ranked: Mapping[str, Sequence[str]],
    depth: int,
    graded: bool,
    level: int,
) -> dict[str, dict[str, int]]:
    """The qrels with each query's unjudged top ``depth`` documents judged relevant."""
    out = {}
    for qid, judged in grades.items():
        top = max([g for g in judged.values() if g > 0] + [max(level, 1)])
        new = dict(judged)
        for d in ranked.get(qid, [])[:depth]:
            if judged.get(d, -1) < 0:
                new[d] = top if graded else level
        out[qid] = new
    return out


@pytest.mark.parametrize(
    ("qrels_name", "run_name", "level"),
    [
        ("vaswani/qrels", "vaswani/bm25_top100.run", 1),
        ("trec_eval/qrels.rel_level", "trec_eval/results.test", 2),
        ("trec_eval/qrels.test", "trec_eval/results.trunc", 1),
    ],
)
def test_bounds_equal_metrics_on_qrels_with_the_unjudged_added(
    qrels_name: str, run_name: str, level: int
) -> None:
    k = 7  # the k in force: how deep the metrics without a cutoff take the unjudged
    grades = qrels_of(qrels_name).grades()
    run = run_of(run_name)
    ranked = run.ranked_ids()
    metrics = [parse_metric(name) for name in BOUNDED]
    ours = upper_bounds(grades, ranked, metrics, k, level)
    scored = {
        q: {d.doc_id: d.score for d in r.docs if d.score is not None}
        for q, r in run.rankings.items()
    }
    for name, (measure, key, depth, graded) in BOUNDED.items():
        extended = with_unjudged(grades, ranked, depth or k, graded, level)
        evaluator = pytrec_eval.RelevanceEvaluator(extended, {measure}, relevance_level=level)
        expected = evaluator.evaluate(scored)
        for qid, values in expected.items():
            assert ours.per_query[qid][name] == pytest.approx(values[key], abs=1e-12), (name, qid)
    lower = evaluate(grades, ranked, metrics, level)
    assert ours.n_queries == lower.n_queries and ours.missing == lower.missing
    for qid in lower.missing:  # nothing retrieved, nothing to judge: the bound is the value
        assert ours.per_query[qid] == lower.per_query[qid]
    assert ours.mean["recall@5"] >= lower.mean["recall@5"]


def test_judged_has_no_bound() -> None:
    ev = upper_bounds(
        {"q": {"a": 1}}, {"q": ["b", "a"]}, [Metric("judged", 2), Metric("recall", 2)], 2
    )
    assert ev.per_query == {"q": {"recall@2": 1.0}}


# -- the queue -----------------------------------------------------------------------------------


def generated(
    seed: int,
) -> tuple[dict[str, dict[str, int]], list[tuple[str, dict[str, list[str]]]]]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(12)]
    grades = {
        f"q{q}": {d: rng.choice([0, 1, 2, -1]) for d in rng.sample(docs, 4)} for q in range(3)
    }
    runs = [
        (f"run{r}", {q: rng.sample(docs, rng.randint(2, 8)) for q in grades if rng.random() < 0.9})
        for r in range(3)
    ]
    return grades, runs


def mean_judged(
    grades: Mapping[str, Mapping[str, int]],
    runs: Sequence[tuple[str, Mapping[str, list[str]]]],
    depth: int,
) -> float:
    metric = [Metric("judged", depth)]
    means = [evaluate(grades, rankings, metric).mean[f"judged@{depth}"] for _, rankings in runs]
    return sum(means) / len(means)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("depth", [3, 5])
def test_the_first_n_pairs_raise_judged_at_least_as_much_as_any_other_n(
    seed: int, depth: int
) -> None:
    grades, runs = generated(seed)
    queue = judging_queue(grades, runs, depth)
    assert len({(p.query, p.doc) for p in queue}) == len(queue)
    for pair in queue:  # every pair is unjudged and in some run's top depth
        assert grades[pair.query].get(pair.doc, -1) < 0  # unjudged, or a negative grade
        assert all(pair.doc in dict(runs)[r][pair.query][:depth] for r in pair.runs)

    def judged_after(pairs: Sequence[tuple[str, str]]) -> float:
        new = {q: dict(g) for q, g in grades.items()}
        for q, d in pairs:
            new[q][d] = 0
        return mean_judged(new, runs, depth)

    pool = [(p.query, p.doc) for p in queue]
    for n in (1, 2, 3):
        if n > len(pool):
            break
        first = judged_after(pool[:n])
        best = max(judged_after(c) for c in itertools.combinations(pool, n))
        assert first == pytest.approx(best, abs=1e-12), (n, pool)


def test_queue_order_runs_then_best_rank_then_ids() -> None:
    grades = {"q1": {"a": 1}, "q2": {}}
    runs = [
        ("x", {"q1": ["b", "c", "a"], "q2": ["c", "b"]}),
        ("y", {"q1": ["c", "b"], "q2": ["z"]}),
    ]
    queue = judging_queue(grades, runs, depth=3)
    assert [(p.query, p.doc, p.runs, p.best_rank) for p in queue] == [
        ("q1", "b", ("x", "y"), 1),
        ("q1", "c", ("x", "y"), 1),
        ("q2", "c", ("x",), 1),
        ("q2", "z", ("y",), 1),
        ("q2", "b", ("x",), 2),
    ]
    assert judging_queue(grades, runs, depth=3, unanswerable={"q2"})[-1].query == "q1"


def test_the_cache_after_an_edit_equals_a_fresh_queue() -> None:
    grades, runs = generated(3)
    cache = PoolCache()
    first = cache.pool(grades, runs, 5)
    assert first.pairs == judging_queue(grades, runs, 5)
    qid = next(iter(grades))
    edited = dict(grades)
    edited[qid] = {**grades[qid], **{p.doc: 1 for p in first.of_query(qid)}}
    again = cache.pool(edited, runs, 5, since=Since(grades, frozenset([qid])))
    assert again.pairs == judging_queue(edited, runs, 5)
    assert len(again) == len(again.pairs)  # the size kept by the cache
    assert not again.of_query(qid) and len(again) < len(first)
    assert first.pairs == judging_queue(grades, runs, 5)  # the first pool is left as it was
    assert first.of_query(qid) and first.next() == first.pairs[0]  # (its questions too)
    assert again.next() == again.pairs[0]


def test_an_edit_that_changes_no_pair_gives_the_same_queue() -> None:
    """Typing in a question's text gives its entry new (equal) grades: the queue is the same,
    and so is every later pool's after a real change."""
    grades, runs = generated(3)
    cache = PoolCache()
    first = cache.pool(grades, runs, 5)
    qid = next(iter(grades))
    retyped = {**grades, qid: dict(grades[qid])}
    again = cache.pool(retyped, runs, 5, since=Since(grades, frozenset([qid])))
    assert again.pairs == first.pairs and len(again) == len(first)
    judged = {**retyped, qid: {**retyped[qid], **{p.doc: 1 for p in again.of_query(qid)}}}
    last = cache.pool(judged, runs, 5, since=Since(retyped, frozenset([qid])))
    assert last.pairs == judging_queue(judged, runs, 5) and len(last) == len(last.pairs)
    assert again.of_query(qid) == first.of_query(qid) != last.of_query(qid)


def test_the_cache_after_edits_it_was_not_asked_about_equals_a_fresh_queue() -> None:
    """Two edits analysed between two pools (typing faster than the lenses are asked for): the
    second pool's Since names the first edit's grades, not the pool's, and the identity of each
    question's judgments says what changed; a question gone is gone from the queue."""
    grades, runs = generated(5)
    cache = PoolCache()
    first = cache.pool(grades, runs, 5)
    q1, q2 = list(grades)[:2]
    once = {**grades, q1: {**grades[q1], **{p.doc: 0 for p in first.of_query(q1)}}}
    twice = {**once, q2: {}}
    del twice[list(grades)[2]]
    again = cache.pool(twice, runs, 5, since=Since(once, frozenset([q2])))
    assert again.pairs == judging_queue(twice, runs, 5)
    assert len(again) == len(again.pairs)
