"""judged@k, RBP, bpref and per-metric relevance levels (issue 16), against their definitions.

judged@k follows trec_eval 10's ``m_unjudged.c`` (hand-worked cases: short runs, ties, negative
grades) and equals ir_measures' ``Judged@k`` where the two definitions agree: rankings at least k
deep, no tie in the top k, no negative grade. RBP has no pytrec_eval oracle (trec_eval 9.0.8 has
no ``m_rbp.c``): it is compared with the formula written out plainly here, on real runs, and
tests/test_trec_eval_diff.py compares it with trec_eval 10 itself where that binary is built.
bpref, Rprec, nDCG, map@k equal pytrec_eval in tests/test_metrics_conformance.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import ir_measures
import pytest
import pytrec_eval
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.metrics import Metric, evaluate, parse_metric, query_scores
from qrels_lsp.core.model import Run
from trec_data import qrels_of, run_of


def judged_at(grades: Mapping[str, int], ranking: Sequence[str], k: int) -> float:
    return query_scores(grades, ranking, [Metric("judged", k)])[f"judged@{k}"]


# -- judged@k, hand-worked from m_unjudged.c ---------------------------------------------------


def test_judged_counts_the_top_k_over_k() -> None:
    grades = {"a": 1, "c": 0}
    assert judged_at(grades, ["a", "b", "c", "d"], 2) == 1 - 1 / 2  # b is unjudged
    assert judged_at(grades, ["a", "b", "c", "d"], 4) == 1 - 2 / 4
    assert judged_at(grades, ["a", "c"], 2) == 1.0


def test_a_short_ranking_fills_its_empty_places_as_judged() -> None:
    # trec_eval: "if the cutoff is larger than the number of docs retrieved, then it is assumed
    # irrelevant (not unjudged) docs fill in the rest": 1 unjudged of 3 retrieved -> unj_10 0.1.
    assert judged_at({"a": 1, "c": 0}, ["a", "b", "c"], 10) == 1 - 1 / 10
    assert judged_at({"a": 1}, [], 5) == 1.0


def test_a_negative_grade_counts_as_unjudged() -> None:
    # trec_eval reads any negative grade as RELVALUE_UNJUDGED ("in the pool, not judged").
    assert judged_at({"a": -1, "b": 0, "c": -2}, ["a", "b", "c"], 3) == 1 - 2 / 3


def test_ties_are_broken_as_trec_eval_breaks_them() -> None:
    # Equal scores: trec_eval ranks docid descending (b before a), ir_measures ascending.
    run = parse_trec_run("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\n")
    ranking = run.ranked_ids()["q"]
    assert ranking == ["b", "a"]
    assert judged_at({"a": 1}, ranking, 1) == 0.0


def test_a_query_missing_from_the_run_is_fully_judged() -> None:
    """trec_eval -c scores a missing query 0 on every measure: unj_k 0, so judged@k 1."""
    ev = evaluate({"q1": {"a": 1}, "q2": {"a": 1}}, {"q1": ["b"]}, [Metric("judged", 1)])
    assert ev.per_query == {"q1": {"judged@1": 0.0}, "q2": {"judged@1": 1.0}}
    assert ev.mean == {"judged@1": 0.5}


def _ir_measures_judged(
    grades: Mapping[str, Mapping[str, int]], run: Run, k: int
) -> dict[str, float]:
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in grades.items() for d, g in docs.items()]
    scored = [
        ir_measures.ScoredDoc(q, d.doc_id, d.score)
        for q, ranking in run.rankings.items()
        for d in ranking.docs
        if d.score is not None
    ]
    measure = ir_measures.parse_measure(f"Judged@{k}")
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, scored)}


@pytest.mark.parametrize("k", [1, 5, 10, 20, 100])
def test_judged_equals_ir_measures_where_the_definitions_agree(k: int) -> None:
    qrels, run = qrels_of("vaswani/qrels"), run_of("vaswani/bm25_top100.run")
    grades = qrels.grades()
    expected = _ir_measures_judged(grades, run, k)
    compared = 0
    for qid, ranking in run.rankings.items():
        docs = ranking.docs
        scores = [d.score for d in docs[: k + 1]]
        if qid not in grades or len(docs) < k or len(set(scores)) < len(scores):
            continue  # short, or tied around the cutoff: the two definitions differ there
        if any(g < 0 for g in grades[qid].values()):
            continue
        assert judged_at(grades[qid], ranking.doc_ids(), k) == pytest.approx(
            expected[qid], abs=1e-12
        ), qid
        compared += 1
    assert compared >= 20


# -- RBP -----------------------------------------------------------------------------------------


def rbp_plain(grades: Mapping[str, int], ranking: Sequence[str], p: float) -> float:
    """RBP written out: gain = grade, scaled by the highest grade when that is above 1."""
    top = max((g for g in grades.values() if g >= 0), default=0)
    total = 0.0
    for i, doc in enumerate(ranking):
        g = grades.get(doc, 0)
        gain = 0.0 if g <= 0 else (g / top if top > 1 else g)
        total += gain * p**i
    return (1 - p) * total


PAIRS = [
    ("trec_eval/qrels.rel_level", "trec_eval/results.test"),  # grades 0-4 and -1
    ("trec_eval/qrels.test", "trec_eval/results.test"),
    ("vaswani/qrels", "vaswani/bm25_top100.run"),
]


@pytest.mark.parametrize(("qrels_name", "run_name"), PAIRS)
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_equals_the_formula(qrels_name: str, run_name: str, p: float) -> None:
    grades, run = qrels_of(qrels_name).grades(), run_of(run_name).ranked_ids()
    metric = Metric("rbp", param=p)
    for qid, ranking in run.items():
        if qid in grades:
            ours = query_scores(grades[qid], ranking, [metric])[str(metric)]
            assert ours == pytest.approx(rbp_plain(grades[qid], ranking, p), abs=1e-12), qid


def test_rbp_at_a_level_of_its_own_is_binary() -> None:
    grades, ranking = {"a": 3, "b": 1, "c": 2}, ["a", "b", "c"]
    metric = parse_metric("RBP(p=0.5,rel=2)")
    assert query_scores(grades, ranking, [metric])[str(metric)] == 0.5 * (1 + 0.25)


def test_rbp_names() -> None:
    assert str(Metric("rbp")) == "rbp" and str(parse_metric("RBP(p=0.9)")) == "rbp@0.9"


# -- a relevance level per metric (ir_measures' rel=) --------------------------------------------


@pytest.mark.parametrize(
    ("ours", "measure", "key"),
    [
        ("P(rel=2)@5", "P.5", "P_5"),
        ("R(rel=2)@100", "recall.100", "recall_100"),
        ("AP(rel=2)", "map", "map"),
        ("RR(rel=2)", "recip_rank", "recip_rank"),
        ("Bpref(rel=2)", "bpref", "bpref"),
        ("Success(rel=2)@10", "success.10", "success_10"),
        ("Rprec(rel=3)", "Rprec", "Rprec"),
    ],
)
def test_a_metric_with_a_level_of_its_own_equals_trec_eval_at_that_level(
    ours: str, measure: str, key: str
) -> None:
    qrels, run = qrels_of("trec_eval/qrels.rel_level"), run_of("trec_eval/results.test")
    grades = qrels.grades()
    metric = parse_metric(ours)
    level = metric.rel
    assert level is not None
    evaluator = pytrec_eval.RelevanceEvaluator(grades, {measure}, relevance_level=level)
    scored = {
        q: {d.doc_id: d.score for d in r.docs if d.score is not None}
        for q, r in run.rankings.items()
    }
    expected = evaluator.evaluate(scored)
    assert expected
    for qid, values in expected.items():
        # the golden set's own level stays 1: only this metric reads another
        got = query_scores(grades[qid], run.rankings[qid].doc_ids(), [metric], level=1)
        assert got[str(metric)] == pytest.approx(values[key], abs=1e-12), (qid, ours)


# -- bpref, the worked example of trec_eval's bpref_bug ----------------------------------------


def test_bpref_counts_unretrieved_nonrelevant_documents() -> None:
    # 6 relevant (4 retrieved), 4 non-relevant (1 retrieved, first): ((4 * 3/4) + 2 * 0) / 6.
    grades = {f"r{i}": 1 for i in range(6)} | {f"n{i}": 0 for i in range(4)}
    ranking = ["n0", "r0", "r1", "r2", "r3", "x", "y"]
    assert query_scores(grades, ranking, [Metric("bpref")])["bpref"] == 0.5
