"""Per-query metric values against pytrec_eval (trec_eval 9.0.8) on real TREC data.

Every pair of qrels and run in the test data (tests/data) is parsed with our parsers and scored with our
metrics; every per-query value must equal pytrec_eval's. pytrec_eval reads scores as float32, so
two documents whose scores are equal in float32 but not in float64 can be ordered differently
there; such queries are found programmatically and must be listed in FLOAT32_EXCEPTIONS, which a
test keeps exact so that it cannot grow silently.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest
import pytrec_eval
from conftest import TEST_DATA
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids
from qrels_lsp.core.metrics import (
    Metric,
    UnknownMetric,
    default_metrics,
    evaluate,
    format_value,
    ndcg_explain,
    parse_metric,
    query_scores,
    trec_eval_order,
)
from qrels_lsp.core.model import Run
from trec_data import qrels_of, run_of

# (qrels, run, relevance level)
PAIRS: list[tuple[str, str, int]] = [
    ("trec_eval/qrels.test", "trec_eval/results.test", 1),
    ("trec_eval/qrels.test", "trec_eval/results.trunc", 1),
    ("trec_eval/qrels.test.with-comments", "trec_eval/results.test", 1),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", 1),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", 2),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", 3),
    ("trec_eval/qrels-302.test", "trec_eval/results-302.test", 1),
    ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test", 1),
    ("vaswani/qrels", "vaswani/bm25_top100.run", 1),
    ("ir_measures/compat.qrels", "ir_measures/compat.run", 1),
    ("ir_measures/cwl.qrels", "ir_measures/cwl.run", 1),
    ("pyterrier/qrels", "pyterrier/two_queries_result", 1),
]

# trec_eval measure -> our name.
MEASURES: dict[str, str] = {
    "recall_5": "recall@5",
    "recall_10": "recall@10",
    "recall_100": "recall@100",
    "P_5": "precision@5",
    "recip_rank": "mrr",
    "ndcg_cut_5": "ndcg@5",
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
    # issue 16's measures, with trec_eval's definitions
    "ndcg": "ndcg",
    "map_cut_5": "map@5",
    "map_cut_100": "map@100",
    "bpref": "bpref",
    "Rprec": "rprec",
    "P_20": "precision@20",
    "recall_1000": "recall@1000",
    "success_5": "hit_rate@5",
}
PYTREC_MEASURES = {
    "recall.5,10,100,1000",
    "P.5,20",
    "recip_rank",
    "ndcg_cut.5,10",
    "map",
    "ndcg",
    "map_cut.5,100",
    "bpref",
    "Rprec",
    "success.5",
}
METRICS = [parse_metric(name) for name in MEASURES.values()]

# (pair index, query id) whose values differ from pytrec_eval's because of float32 score ties.
# None today: every per-query value on the test data is bit-identical.
FLOAT32_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()


def scored_run(run: Run) -> dict[str, dict[str, float]]:
    """The run as pytrec_eval takes it: the first occurrence of each document, with its score."""
    out: dict[str, dict[str, float]] = {}
    for qid, ranking in run.rankings.items():
        out[qid] = {d.doc_id: d.score for d in ranking.docs if d.score is not None}
    return out


@cache
def reference(qrels_name: str, run_name: str, level: int) -> dict[str, dict[str, float]]:
    grades = qrels_of(qrels_name).grades()
    evaluator = pytrec_eval.RelevanceEvaluator(grades, PYTREC_MEASURES, relevance_level=level)
    result: dict[str, dict[str, float]] = evaluator.evaluate(scored_run(run_of(run_name)))
    return result


def f32(x: float) -> float:
    """``x`` rounded to float32, as trec_eval 9.0.8 stores a score."""
    value: float = struct.unpack("f", struct.pack("f", x))[0]
    return value


def float32_order(scores: Mapping[str, float]) -> list[str]:
    return trec_eval_order((d, f32(s)) for d, s in scores.items())


def float32_sensitive(run: Run) -> set[str]:
    """Queries whose evaluation order changes when scores are read as float32."""
    out = set()
    for qid, scores in scored_run(run).items():
        if float32_order(scores) != run.rankings[qid].doc_ids():
            out.add(qid)
    return out


def differing(qrels_name: str, run_name: str, level: int) -> dict[str, list[str]]:
    """qid -> the measures whose value differs from pytrec_eval's."""
    grades = qrels_of(qrels_name).grades()
    run = run_of(run_name)
    out: dict[str, list[str]] = {}
    for qid, expected in reference(qrels_name, run_name, level).items():
        ours = query_scores(grades[qid], run.rankings[qid].doc_ids(), METRICS, level)
        bad = [m for m, name in MEASURES.items() if abs(ours[name] - expected[m]) > 1e-12]
        if bad:
            out[qid] = bad
    return out


@pytest.mark.parametrize(("qrels_name", "run_name", "level"), PAIRS)
def test_every_per_query_value_equals_pytrec_eval(
    qrels_name: str, run_name: str, level: int
) -> None:
    expected = reference(qrels_name, run_name, level)
    assert expected, "pytrec_eval scored no query: the pair is wrong"
    bad = differing(qrels_name, run_name, level)
    allowed = {qid for pair, qid in FLOAT32_EXCEPTIONS if pair == f"{qrels_name}|{run_name}"}
    assert set(bad) <= allowed, {q: bad[q] for q in sorted(set(bad) - allowed)}


def test_float32_exception_list_is_exact() -> None:
    """Differences exist only where float32 changes the order, and all of them are listed."""
    found: set[tuple[str, str]] = set()
    for qrels_name, run_name, level in PAIRS:
        bad = differing(qrels_name, run_name, level)
        assert set(bad) <= float32_sensitive(run_of(run_name)), "a difference not caused by float32"
        found |= {(f"{qrels_name}|{run_name}", qid) for qid in bad}
    assert found == FLOAT32_EXCEPTIONS


def test_float32_ties_are_detected_and_explain_the_difference() -> None:
    """Make two real scores equal in float32 only: pytrec_eval must follow the float32 order,
    and our float64 order must be the one trec_eval 10 uses."""
    run = run_of("trec_eval/results.test")
    qrels = qrels_of("trec_eval/qrels.test").grades()
    qid = "301"
    scores = scored_run(run)[qid]
    ranked = run.rankings[qid].doc_ids()
    grades = qrels[qid]
    # A relevant document just below a non-relevant one: nudge the non-relevant one's score up by
    # less than float32 resolution, so the two tie in float32 and the doc id decides there.
    top, below = next(
        (a, b) for a, b in pairwise(ranked) if grades.get(a, 0) < 1 <= grades.get(b, 0) and a < b
    )
    scores = dict(scores)
    scores[top] = scores[below] + abs(scores[below]) * 1e-9
    assert f32(scores[top]) == f32(scores[below])
    ours = trec_eval_order(scores.items())
    assert ours.index(top) < ours.index(below)
    order32 = float32_order(scores)
    assert order32.index(below) < order32.index(top)
    evaluator = pytrec_eval.RelevanceEvaluator({qid: grades}, PYTREC_MEASURES)
    expected = evaluator.evaluate({qid: scores})[qid]
    assert query_scores(grades, order32, METRICS)["map"] == expected["map"]
    assert query_scores(grades, ours, METRICS)["map"] != expected["map"]


@pytest.mark.parametrize("run_name", sorted({r for _, r, _ in PAIRS}))
def test_fast_reader_agrees_with_parser(run_name: str) -> None:
    text = (TEST_DATA / run_name).read_text(encoding="utf-8")
    assert read_trec_run_ids(text) == run_of(run_name).ranked_ids()


def _summary(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, value = line.split()
        out[name] = value
    return out


@pytest.mark.parametrize(
    ("qrels_name", "run_name", "summary"),
    [
        ("trec_eval/qrels.test", "trec_eval/results.test", "trec_eval/out.test"),
        (
            "trec_eval/qrels.comment.test",
            "trec_eval/results.comment.test",
            "trec_eval/out.comment.test",
        ),
    ],
)
def test_means_print_as_trec_eval_does(qrels_name: str, run_name: str, summary: str) -> None:
    """The means, printed with ``%6.4f``, equal trec_eval's own expected output."""
    expected = _summary(TEST_DATA / summary)
    cutoffs = [int(name[2:]) for name in expected if name.startswith("P_")]
    metrics = [Metric("map"), Metric("mrr"), *(Metric("precision", k) for k in cutoffs)]
    grades = qrels_of(qrels_name).grades()
    run = run_of(run_name).ranked_ids()
    # trec_eval without -c averages over the judged queries the run answers.
    ev = evaluate({q: g for q, g in grades.items() if q in run}, run, metrics)
    assert str(ev.n_queries) == expected["num_q"]
    assert format_value(ev.mean["map"]).strip() == expected["map"]
    assert format_value(ev.mean["mrr"]).strip() == expected["recip_rank"]
    for k in cutoffs:
        assert format_value(ev.mean[f"precision@{k}"]).strip() == expected[f"P_{k}"]


def test_format_value_rounds_half_even_on_the_binary_value() -> None:
    assert format_value(0.03125) == "0.0312"  # exactly representable: ties go to even
    assert format_value(0.03135) == f"{0.03135:6.4f}"
    assert format_value(1.0) == "1.0000"
    assert len(format_value(0.5)) == 6


def test_missing_unknown_and_unanswerable_queries() -> None:
    qrels = qrels_of("trec_eval/qrels.test").grades()
    full = run_of("trec_eval/results.test").ranked_ids()
    trunc = run_of("trec_eval/results.trunc").ranked_ids()
    metrics = default_metrics(10)
    missing = sorted(set(qrels) - set(trunc))
    assert missing, "results.trunc is expected to leave topics out"
    ev = evaluate(qrels, trunc, metrics)
    assert ev.missing == missing
    assert ev.n_queries == len(qrels)
    for qid in missing:  # an empty ranking: 0, but nothing retrieved is unjudged
        values = ev.per_query[qid]
        assert {n: v for n, v in values.items() if not n.startswith("judged")} == dict.fromkeys(
            (n for n in values if not n.startswith("judged")), 0.0
        )
        assert values["judged@10"] == 1.0
    for name in ev.mean:
        assert math.isclose(
            ev.mean[name], sum(v[name] for v in ev.per_query.values()) / len(qrels), rel_tol=1e-15
        )

    # Unknown run queries are ignored.
    extra = dict(full)
    extra["not-a-golden-query"] = full["301"]
    ev2 = evaluate(qrels, extra, metrics)
    assert ev2.unknown == ["not-a-golden-query"]
    assert ev2.mean == evaluate(qrels, full, metrics).mean
    assert "not-a-golden-query" not in ev2.per_query

    # Unanswerable queries are out of the means, and counted on their own.
    ev3 = evaluate(qrels, full, metrics, unanswerable={"302"})
    assert ev3.unanswerable == ["302"]
    assert "302" not in ev3.per_query  # not scored: there is nothing to find
    assert ev3.n_queries == len(qrels) - 1
    ev4 = evaluate(qrels, trunc, metrics, unanswerable={missing[0]})
    assert missing[0] not in ev4.missing  # an unanswerable query is not missing from a run
    rest = {q: g for q, g in qrels.items() if q != "302"}
    assert ev3.mean == evaluate(rest, full, metrics).mean


def test_query_without_relevant_documents_stays_in_the_mean() -> None:
    qrels = {q: dict(g) for q, g in qrels_of("trec_eval/qrels.test").grades().items()}
    run = run_of("trec_eval/results.test").ranked_ids()
    qrels["301"] = {d: 0 for d in qrels["301"]}
    metrics = default_metrics(5)
    ev = evaluate(qrels, run, metrics)
    assert ev.n_queries == 3
    effectiveness = {str(m) for m in metrics if m.measure.compared}  # judged@k is coverage
    assert {v for m, v in ev.per_query["301"].items() if m in effectiveness} == {0.0}


def _pairs() -> list[tuple[Mapping[str, int], Sequence[str]]]:
    out: list[tuple[Mapping[str, int], Sequence[str]]] = []
    for qrels_name, run_name, _ in PAIRS:
        grades, run = qrels_of(qrels_name).grades(), run_of(run_name).ranked_ids()
        out += [(grades[q], run[q]) for q in grades if q in run]
    return out


def test_metric_identities_on_real_queries() -> None:
    """mrr@k, hit_rate@k and the uncut mrr agree with each other on every real query."""
    metrics = [Metric("mrr"), Metric("mrr", 10), Metric("hit_rate", 10), Metric("precision", 10)]
    for grades, ranking in _pairs():
        v = query_scores(grades, ranking, metrics)
        assert v["mrr@10"] == (v["mrr"] if v["mrr"] >= 1 / 10 else 0.0)
        assert v["hit_rate@10"] == (1.0 if v["precision@10"] > 0 else 0.0)


def test_ndcg_explain_reproduces_the_value() -> None:
    for grades, ranking in _pairs():
        for k in (5, 10):
            ex = ndcg_explain(grades, ranking, k)
            assert ex.ndcg == query_scores(grades, ranking, [Metric("ndcg", k)])[f"ndcg@{k}"]
            assert [r.doc_id for r in ex.rows] == list(ranking[:k])
            assert len(ex.ideal) <= k


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        ("recall@5", Metric("recall", 5)),
        ("P@5", Metric("precision", 5)),
        ("P_5", Metric("precision", 5)),
        ("ndcg_cut_10", Metric("ndcg", 10)),
        ("nDCG@10", Metric("ndcg", 10)),
        ("recip_rank", Metric("mrr")),
        ("MRR@10", Metric("mrr", 10)),
        ("map", Metric("map")),
        ("success@3", Metric("hit_rate", 3)),
        ("hit_rate@5", Metric("hit_rate", 5)),
        # ir_measures' names
        ("R@100", Metric("recall", 100)),
        ("P(rel=2)@5", Metric("precision", 5, rel=2)),
        ("RR", Metric("mrr")),
        ("RR@10", Metric("mrr", 10)),
        ("AP", Metric("map")),
        ("AP@100", Metric("map", 100)),
        ("nDCG", Metric("ndcg")),
        ("Bpref", Metric("bpref")),
        ("Rprec", Metric("rprec")),
        ("Judged@10", Metric("judged", 10)),
        ("RBP(p=0.8)", Metric("rbp")),
        ("RBP(p=0.9)", Metric("rbp", param=0.9)),
        ("RBP(rel=2)", Metric("rbp", rel=2)),
        ("Success@5", Metric("hit_rate", 5)),
        # trec_eval's names, as -m takes them and as it prints them
        ("ndcg_cut.10", Metric("ndcg", 10)),
        ("recall.100", Metric("recall", 100)),
        ("P.5", Metric("precision", 5)),
        ("map_cut.5", Metric("map", 5)),
        ("map_cut_100", Metric("map", 100)),
        ("bpref", Metric("bpref")),
        ("success.5", Metric("hit_rate", 5)),
        ("unj.10", Metric("judged", 10)),
        ("unj_10", Metric("judged", 10)),
        ("rbp.p=0.9", Metric("rbp", param=0.9)),
        ("rbp_p=0.8", Metric("rbp")),
        # the project's own
        ("rbp@0.9", Metric("rbp", param=0.9)),
        ("judged@5", Metric("judged", 5)),
        ("precision(rel=2)@5", Metric("precision", 5, rel=2)),
    ],
)
def test_parse_metric(text: str, metric: Metric) -> None:
    assert parse_metric(text) == metric
    assert parse_metric(str(metric)) == metric


@pytest.mark.parametrize(
    "text",
    [
        "recall",
        "ndcg_cut",
        "bpref@5",
        "P@0",
        "",
        "recall@x",
        "judged",
        "nDCG(rel=2)@5",
        "Judged(rel=2)@5",
        "P(p=0.5)@5",
        "RBP(p=1.5)",
        "rbp@2",
        "P@0.5",
        "P(rel=x)@5",
        "P(foo=1)@5",
        "bleu",
        "SetF(p=0.5)",
        "SetP@5",
        "alpha_nDCG(alpha=2)@10",
        "nDCG(gains={0:0,1:-1})@10",
        "nDCG(gains={0:0,1:1.5})@10",
        "nDCG(gains=[1])@10",
        "P(gains={1:2})@5",
        "nDCG(dcg='exp')@10",
        "Judged(judged_only=True)@10",
        "nDCG(judged_only=maybe)@10",
        "ERR(rel=2)@10",
        "ERR@0.5",
    ],
)
def test_parse_metric_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        parse_metric(text)


@pytest.mark.parametrize(
    ("text", "closest"),
    [
        ("nDGC@10", ["ndcg@10"]),
        ("alpha_ndgc@20", ["alpha_ndcg@20"]),
        ("reciprank", ["recip_rank"]),
        ("infAPP", ["infap"]),
        ("Precison@5", ["precision@5"]),
        ("bleu", []),
        ("ndgc@x", []),  # what follows the name is wrong too: no name mends it
    ],
)
def test_an_unknown_name_gets_the_closest_names(text: str, closest: list[str]) -> None:
    with pytest.raises(UnknownMetric) as caught:
        parse_metric(text, 5)
    assert caught.value.closest[: len(closest) or None] == closest
    if closest:
        assert f"did you mean {closest[0]}" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("ERR@20", "err@20"),
        ("alpha_nDCG@20", "alpha_ndcg@20"),
        ("alpha_nDCG(alpha=0.7,rel=2)@20", "alpha_ndcg(rel=2,alpha=0.7)@20"),
        ("infAP", "infap"),
        ("SetP", "set_precision"),
        ("set_P", "set_precision"),
        ("SetR", "set_recall"),
        ("SetF", "set_f"),
        ("SetF(beta=1)", "set_f"),
        ("SetF(beta=2)", "set_f(beta=2.0)"),
        ("NCG@10", "ncg@10"),
        ("nDCG(gains={0:0,1:1,2:3})@10", "ndcg(gains={2:3})@10"),
        ("nDCG(gains={2:3, 1:1})@10", "ndcg(gains={2:3})@10"),
        ("nDCG(gains={0:0,1:1})@10", "ndcg@10"),
        ("nDCG(dcg='exp-log2')@10", "ndcg_burges@10"),
        ('nDCG(dcg="log2")@10', "ndcg@10"),
        ("nDCG(judged_only=True)@10", "ndcg(judged_only=True)@10"),
        ("P(rel=2,judged_only=True)@5", "precision(rel=2,judged_only=True)@5"),
        ("nDCG(judged_only=False)@10", "ndcg@10"),
    ],
)
def test_ir_measures_names_of_the_new_measures(text: str, key: str) -> None:
    """Each reads as one metric whose name reads back as itself."""
    metric = parse_metric(text, 5)
    assert str(metric) == key and parse_metric(key, 5) == metric


def test_a_measure_without_a_written_cutoff_takes_the_k_in_force() -> None:
    assert parse_metric("recall", 5) == Metric("recall", 5)
    assert parse_metric("ndcg_cut", 5) == Metric("ndcg", 5)  # trec_eval's cut form
    assert parse_metric("Judged", 7) == Metric("judged", 7)
    assert parse_metric("ndcg", 5) == Metric("ndcg")  # trec_eval's and ir_measures' uncut nDCG


def test_default_metric_names() -> None:
    names = [str(m) for m in default_metrics(5)]
    assert names == [
        "recall@5",
        "precision@5",
        "mrr",
        "ndcg@5",
        "map",
        "hit_rate@5",
        "judged@5",
    ]


# -- trec_eval's -M and -J (core/metrics/cut.py) ---------------------------------------------------


def _top(scores: Mapping[str, float], depth: int) -> dict[str, float]:
    """The first ``depth`` documents as trec_eval orders them, found independently of the code
    under test: score descending (float32, as pytrec_eval stores it), then id descending as
    bytes."""
    ranked = sorted(
        scores.items(),
        key=lambda kv: (f32(kv[1]), kv[0].encode("utf-8", "surrogateescape")),
        reverse=True,
    )
    return dict(ranked[:depth])


@pytest.mark.parametrize(("qrels_name", "run_name", "level"), PAIRS)
@pytest.mark.parametrize(
    ("depth", "judged_only"), [(None, True), (5, False), (3, True), (40, True)]
)
def test_depth_and_judged_only_equal_pytrec_eval(
    qrels_name: str, run_name: str, level: int, depth: int | None, judged_only: bool
) -> None:
    """RunCut(-M, -J) then our metrics equals pytrec_eval given the run cut to its top ``depth``
    (an oracle built here) and ``judged_docs_only_flag`` for -J."""
    from qrels_lsp.core.metrics import RunCut

    grades = qrels_of(qrels_name).grades()
    run = run_of(run_name)
    scores = scored_run(run)
    if depth is not None:
        scores = {qid: _top(docs, depth) for qid, docs in scores.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(
        grades, PYTREC_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only
    )
    expected = evaluator.evaluate(scores)
    assert expected
    cut = RunCut(depth, judged_only).apply(run.ranked_ids(), grades)
    ours = evaluate(grades, cut, METRICS, level=level).per_query
    for qid, values in expected.items():
        for m, name in MEASURES.items():
            assert abs(ours[qid][name] - values[m]) <= 1e-12, (qid, m, ours[qid][name], values[m])
    if depth is not None:
        assert all(len(r) <= depth for r in cut.values())


# -- mrr@k and ir_measures' RR@k ---------------------------------------------------------------------


def _ir_measures(name: str, grades: Mapping[str, Mapping[str, int]], run: Run) -> dict[str, float]:
    import ir_measures

    measure = ir_measures.parse_measure(name)
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], grades, scored_run(run))}


def test_rr_at_k_breaks_ties_otherwise_in_ir_measures() -> None:
    """ir_measures computes `RR@k` with MS MARCO's script (its msmarco provider: pytrec_eval's
    recip_rank takes no cutoff), which sorts by score, then document id *ascending*; trec_eval's
    order, ours, breaks ties by id descending. docs/metrics.md says so."""
    import ir_measures

    run = parse_trec_run("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\n")
    grades = {"q": {"a": 1}}
    ours = evaluate(grades, run.ranked_ids(), [Metric("mrr", 10), Metric("mrr")]).per_query["q"]
    assert run.ranked_ids()["q"] == ["c", "b", "a"] and ours == {"mrr@10": 1 / 3, "mrr": 1 / 3}
    assert _ir_measures("RR@10", grades, run) == {"q": 1.0}  # a, b, c: a first
    assert _ir_measures("RR", grades, run) == {"q": 1 / 3}  # pytrec_eval: trec_eval's order
    provider = ir_measures.msmarco.evaluator([ir_measures.parse_measure("RR@10")], grades)
    assert {m.value for m in provider.iter_calc(scored_run(run))} == {1.0}


@pytest.mark.parametrize(("qrels_name", "run_name", "level"), PAIRS)
def test_rr_at_k_equals_ir_measures_with_ties_broken_ascending(
    qrels_name: str, run_name: str, level: int
) -> None:
    """Ours equals ir_measures' RR@10 on every query without a tie, and on every query once the
    ranking is ordered as ir_measures orders it (score descending, id ascending); the queries
    where the two differ are all tied ones."""
    grades = qrels_of(qrels_name).grades()
    run = run_of(run_name)
    name = "RR@10" if level == 1 else f"RR(rel={level})@10"
    theirs = _ir_measures(name, grades, run)
    metric = parse_metric(name)
    for qid, scores in scored_run(run).items():
        if qid not in grades:
            continue
        ascending = [d for d, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))]
        assert query_scores(grades[qid], ascending, [metric], level)[str(metric)] == theirs[qid]
        ours = query_scores(grades[qid], run.rankings[qid].doc_ids(), [metric], level)
        if len(set(scores.values())) == len(scores):
            assert ours[str(metric)] == theirs[qid], qid
