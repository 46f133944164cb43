"""The measures at parity with ir_measures, against ir_measures and the tools it runs.

Every measure added with ir_measures' names (ERR@k, alpha_nDCG@k, infAP, SetP, SetR, SetF,
nDCG with custom gains, nDCG(dcg='exp-log2')@k, ``judged_only=True``) is scored by qrels-lsp
and by ir_measures on the same files, per query, to 1e-9: trec_eval's test files, ir_measures'
compat and cwl files, the Vaswani run, and a diversity fixture this module writes (seeded:
topics judged per subtopic, a run with tied scores). ir_measures computes them with
pytrec_eval (trec_eval 9: infAP, Set*, nDCG with gains, judged_only), pyndeval (ndeval:
alpha_nDCG) and gdeval (the TREC Web track's Perl script: ERR, exp-log2 nDCG).

gdeval prints five decimals, so ir_measures' ERR is compared to 5e-6 and the same script, read
from ir_measures' package with its ``%.5f`` printing ``%.17g``, is the 1e-9 oracle. Where a tool
cannot read a file (gdeval refuses grades above 4 and query ids with no digits, ndeval cutoffs
above 20), the test says so rather than compare. Where the tools order tied scores otherwise
(ndeval breaks ties by document id ascending, trec_eval and qrels-lsp descending), the value is
compared on the run with its ties broken as qrels-lsp breaks them, and a test shows the
difference is the tie order alone. NCG@k, which no tool has, is held to its definition and to
pytrec_eval's recall@k and P@k on binary judgments.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval
from conftest import TEST_DATA, THOROUGH
from qrels_lsp.core.checks import check_golden
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels, read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.metrics import (
    Evaluation,
    Metric,
    RunCut,
    evaluate,
    parse_metric,
    query_scores,
)
from qrels_lsp.core.subtopics import SubtopicGrades

pytestmark = pytest.mark.filterwarnings("ignore")

# name -> (qrels, run); "diversity" is written by the fixture below.
FILES: dict[str, tuple[str, str]] = {
    "test": ("trec_eval/qrels.test", "trec_eval/results.test"),
    "rel_level": ("trec_eval/qrels.rel_level", "trec_eval/results.test"),
    "comment": ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test"),
    "compat": ("ir_measures/compat.qrels", "ir_measures/compat.run"),
    "cwl": ("ir_measures/cwl.qrels", "ir_measures/cwl.run"),
    "vaswani": ("vaswani/qrels", "vaswani/bm25_top100.run"),
}
QUICK = ("test", "rel_level", "compat", "cwl", "diversity")
SLOW = ("comment", "vaswani")  # 31 and 93 topics: a few seconds each through every tool
ALL = [*QUICK, *(pytest.param(name, marks=pytest.mark.slow) for name in SLOW)]

# ir_measures' names, read by parse_metric too; computed by pytrec_eval inside ir_measures.
TREC_EVAL_MEASURES = [
    "infAP",
    "infAP(rel=2)",
    "SetP",
    "SetP(rel=2)",
    "SetR",
    "SetF",
    "SetF(beta=2.0)",
    "nDCG(gains={0:0,1:1,2:3})@10",
    "nDCG(gains={0:0,1:5,2:2,3:1})",
    "nDCG(judged_only=True)@10",
    "nDCG(judged_only=True)",
    "P(judged_only=True)@10",
    "P(rel=2,judged_only=True)@5",
    "R(judged_only=True)@100",
    "AP(judged_only=True)",
    "AP(judged_only=True)@100",
    "RR(judged_only=True)",
    "Rprec(judged_only=True)",
    "Success(judged_only=True)@5",
    "SetP(judged_only=True)",
    "SetF(judged_only=True)",
]
NDEVAL_MEASURES = ["alpha_nDCG@10", "alpha_nDCG(alpha=0.8)@20", "alpha_nDCG(rel=2)@20"]
NDEVAL_MORE = [
    "alpha_nDCG@1",
    "alpha_nDCG@5",
    "alpha_nDCG(alpha=0.2)@3",
    "alpha_nDCG(alpha=1.0)@20",
]
GDEVAL_CUTOFFS = (5, 10, 20)
WHOLE = 10**6  # gdeval's k for the measures written without a cutoff: the whole ranking


@pytest.fixture(scope="module")
def diversity(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Diversity qrels (``qid subtopic docid grade``, numeric ids as gdeval wants them) and a
    run with tied scores and unjudged documents, seeded."""
    rng = random.Random(37)
    qrels, run = [], []
    for topic in range(101, 109):
        docs = [f"d{topic}-{i:03d}" for i in range(40)]
        for subtopic in range(1, rng.randint(3, 6)):
            for doc in rng.sample(docs[:30], rng.randint(4, 12)):
                qrels.append(f"{topic} {subtopic} {doc} {rng.choice((0, 1, 1, 2, 3))}")
        ranked = rng.sample(docs, 35)
        for rank, doc in enumerate(ranked, 1):
            score = round(rng.uniform(0, 4), 1)  # ~40 distinct values: ties
            run.append(f"{topic} Q0 {doc} {rank} {score} tied")
    folder = tmp_path_factory.mktemp("diversity")
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run"


@pytest.fixture
def pair(request: pytest.FixtureRequest, diversity: tuple[Path, Path]) -> tuple[Path, Path]:
    name = request.param
    if name == "diversity":
        return diversity
    qrels, run = FILES[name]
    return TEST_DATA / qrels, TEST_DATA / run


def ours(pair: tuple[Path, Path], names: Sequence[str]) -> Evaluation:
    grades = parse_trec_qrels(pair[0].read_text()).grades()
    rankings = parse_trec_run(pair[1].read_text()).ranked_ids()
    return evaluate(grades, rankings, [parse_metric(n) for n in names])


def collapsed(qrels: Path, tmp: Path) -> Path:
    """The qrels as every measure but alpha-nDCG reads diversity qrels: each document's highest
    grade over its subtopics, one line each (iteration 0)."""
    grades = parse_trec_qrels(qrels.read_text()).grades()
    if not any(isinstance(g, SubtopicGrades) for g in grades.values()):
        return qrels  # plain qrels: the file itself
    out = tmp / "collapsed.qrels"
    out.write_text("".join(f"{q} 0 {d} {g}\n" for q, gs in grades.items() for d, g in gs.items()))
    return out


def broken_ties(run: Path, tmp: Path) -> Path:
    """The run with its scores replaced by -rank in trec_eval's order (ties broken by document
    id descending): the same ranking for a tool that breaks ties otherwise."""
    rankings = parse_trec_run(run.read_text()).ranked_ids()
    out = tmp / "untied.run"
    out.write_text(
        "".join(
            f"{q} Q0 {d} {i} {-i} untied\n"
            for q, ranking in rankings.items()
            for i, d in enumerate(ranking, 1)
        )
    )
    return out


def reference(names: Sequence[str], qrels: Path, run: Path) -> dict[str, dict[str, float]]:
    """ir_measures' per-query values, by our key of each name, one measure per call: given
    several, ir_measures 0.4 groups them into invocations of each tool and gets some wrong (a
    second pyndeval invocation, for another alpha or level, is handed the run the first used
    up and gives zeros; a plain nDCG may join the invocation of pytrec_eval made for custom
    gains, and is computed with them)."""
    out: dict[str, dict[str, float]] = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        found = ir_measures.iter_calc(
            [measure], ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run))
        )
        out[str(parse_metric(name))] = {v.query_id: v.value for v in found}
    return out


def assert_close(
    mine: Evaluation, theirs: Mapping[str, Mapping[str, float]], tolerance: float = 1e-9
) -> None:
    compared = 0
    for key, values in theirs.items():
        for qid, value in values.items():
            assert abs(mine.per_query[qid][key] - value) <= tolerance, (key, qid)
            compared += 1
    assert compared and set(mine.per_query) == {q for v in theirs.values() for q in v}


@pytest.mark.parametrize("pair", ALL, indirect=True)
def test_trec_eval_measures_equal_ir_measures(pair: tuple[Path, Path], tmp_path: Path) -> None:
    """infAP, SetP/R/F, nDCG's gains and judged_only: ir_measures through pytrec_eval."""
    qrels = collapsed(pair[0], tmp_path)
    assert_close(ours(pair, TREC_EVAL_MEASURES), reference(TREC_EVAL_MEASURES, qrels, pair[1]))


@pytest.mark.parametrize("pair", ALL, indirect=True)
def test_alpha_ndcg_equals_ndeval(pair: tuple[Path, Path], tmp_path: Path) -> None:
    """alpha_nDCG through pyndeval, on the run with its ties broken as trec_eval's: plain qrels
    (one iteration value) are one subtopic to both, diversity qrels several."""
    run = broken_ties(pair[1], tmp_path)
    names = NDEVAL_MEASURES + (NDEVAL_MORE if THOROUGH else [])
    assert_close(ours((pair[0], run), names), reference(names, pair[0], run))


def test_the_diversity_fixture_has_subtopics_and_ties(diversity: tuple[Path, Path]) -> None:
    """What the diversity comparisons rest on: queries judged on several subtopics, documents
    judged on more than one, and tied scores in the top 20."""
    grades = parse_trec_qrels(diversity[0].read_text()).grades()
    assert all(isinstance(g, SubtopicGrades) for g in grades.values())
    assert all(len({s for by in g.subtopics.values() for s in by}) > 1 for g in grades.values())
    assert any(len(by) > 1 for g in grades.values() for by in g.subtopics.values())
    assert read_trec_qrels_grades(diversity[0].read_text()) == grades  # the fast reader too
    assert tied_topics(diversity[1])


def tied_topics(run: Path) -> set[str]:
    """Queries with two documents of one score in the top 20."""
    out = set()
    for qid, ranking in parse_trec_run(run.read_text()).rankings.items():
        scores = [d.score for d in ranking.docs]
        top = sorted(scores, reverse=True)[:20]
        if len(set(top)) < len(top):
            out.add(qid)
    return out


def test_alpha_ndcg_differs_from_ndeval_by_the_tie_order_alone(
    diversity: tuple[Path, Path],
) -> None:
    """On the tied run ndeval's order differs from trec_eval's; scored in ndeval's order
    (score, then document id ascending) qrels-lsp's alpha-nDCG is ndeval's again."""
    names = ["alpha_nDCG@10", "alpha_nDCG@20"]
    theirs = reference(names, *diversity)
    grades = parse_trec_qrels(diversity[0].read_text()).grades()
    tied = ours(diversity, names)
    differs = 0
    for qid, ranking in parse_trec_run(diversity[1].read_text()).rankings.items():
        ascending = [
            d.doc_id for d in sorted(ranking.docs, key=lambda d: (-(d.score or 0), d.doc_id))
        ]
        mine = query_scores(grades[qid], ascending, [parse_metric(n) for n in names])
        for key, values in theirs.items():
            assert abs(mine[key] - values[qid]) <= 1e-9, (key, qid)
            differs += abs(tied.per_query[qid][key] - values[qid]) > 1e-9
    assert differs, "no tie changed a value: the fixture no longer tests the tie order"


# --- gdeval: ERR@k and the exp-log2 nDCG ---------------------------------------------------


@cache
def gdeval_script(folder: Path) -> Path:
    """ir_measures' gdeval.pl printing every digit (``%.17g`` for its ``%.5f``)."""
    text = (files("ir_measures") / "bin" / "gdeval.pl").read_text()
    assert text.count("%.5f,%.5f") == 1
    out = folder / "gdeval17.pl"
    out.write_text(text.replace("%.5f,%.5f", "%.17g,%.17g"))
    return out


def gdeval(qrels: Path, run: Path, k: int, tmp: Path) -> dict[str, tuple[float, float]]:
    """topic -> (ndcg@k, err@k), as gdeval computes them, every digit."""
    output = subprocess.run(
        ["perl", str(gdeval_script(tmp)), str(qrels), str(run), str(k)],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    out = {}
    for line in output.splitlines()[1:]:
        _run, topic, ndcg, err = line.split(",")
        out[topic] = (float(ndcg), float(err))
    return out


def gdeval_topic(qid: str) -> str:
    """What gdeval makes of a query id: what follows the last ``-`` (``2024-127266``)."""
    return qid.rsplit("-", 1)[-1]


needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval is a Perl script")

GDEVAL_FILES = [
    "test",
    "rel_level",
    "diversity",
    pytest.param("comment", marks=pytest.mark.slow),
    pytest.param("vaswani", marks=pytest.mark.slow),
]


@needs_perl
@pytest.mark.parametrize("pair", GDEVAL_FILES, indirect=True)
@pytest.mark.parametrize(
    "k", [10, None, *(pytest.param(k, marks=pytest.mark.slow) for k in GDEVAL_CUTOFFS if k != 10)]
)
def test_err_and_exp_ndcg_equal_gdeval(
    pair: tuple[Path, Path], k: int | None, tmp_path: Path
) -> None:
    """ERR@k and nDCG(dcg='exp-log2')@k against gdeval printing every digit, and against
    ir_measures (which prints gdeval's five decimals) to 5e-6; without a cutoff, gdeval's k is
    past the end of every ranking."""
    qrels = collapsed(pair[0], tmp_path)
    names = [f"ERR@{k}", f"nDCG(dcg='exp-log2')@{k}"] if k else ["ERR", "nDCG(dcg='exp-log2')"]
    mine = ours((qrels, pair[1]), names)
    keys = [str(parse_metric(n)) for n in names]
    full = gdeval(qrels, pair[1], k or WHOLE, tmp_path)
    by_topic = {gdeval_topic(q): q for q in mine.per_query}
    assert len(by_topic) == len(mine.per_query)
    for topic, (ndcg, err) in full.items():
        values = mine.per_query[by_topic[topic]]
        assert abs(values[keys[0]] - err) <= 1e-9, (topic, "err")
        assert abs(values[keys[1]] - ndcg) <= 1e-9, (topic, "ndcg")
    positive = {
        q
        for q, gs in parse_trec_qrels(qrels.read_text()).grades().items()
        if any(g > 0 for g in gs.values())
    }
    assert {by_topic[t] for t in full} == positive & set(
        parse_trec_run(pair[1].read_text()).rankings
    )
    if k is None:
        return  # (ir_measures has no ERR without a cutoff)
    theirs = reference(names, qrels, pair[1])
    for key, values in theirs.items():
        for topic, value in values.items():
            if topic in by_topic:  # (ir_measures also gives 0 to each id gdeval renamed)
                assert abs(mine.per_query[by_topic[topic]][key] - value) <= 5.000001e-6, key


@needs_perl
@pytest.mark.parametrize("name", ["compat", "cwl"])
def test_gdeval_refuses_what_it_cannot_read(name: str, tmp_path: Path) -> None:
    """Why ERR is not compared on ir_measures' own files: gdeval stops on a grade above 4
    (compat's go to 50) and on a query id with no digits (cwl's are T1, T2...)."""
    qrels, run = (TEST_DATA / f for f in FILES[name])
    with pytest.raises(subprocess.CalledProcessError):
        gdeval(qrels, run, 10, tmp_path)


def test_err_caps_grades_at_gdevals_maximum() -> None:
    """gdeval's ERR stops a user at grade 4 with 15/16; above 4 (which gdeval refuses) the
    chance is the same, so ERR stays a probability."""
    four, fifty = (query_scores({"d": g}, ["d"], [parse_metric("ERR@5")]) for g in (4, 50))
    assert four == fifty == {"err@5": 15 / 16}


def test_exp_ndcg_on_a_huge_grade_is_no_traceback() -> None:
    """2^grade has no double past 1023: the value is not a number, as ranx's would be."""
    value = query_scores({"d": 2000, "e": 1}, ["e", "d"], [parse_metric("ndcg_burges@5")])
    assert value["ndcg_burges@5"] != value["ndcg_burges@5"]


# --- NCG@k: no tool has it ----------------------------------------------------------------


def ncg_by_definition(grades: Mapping[str, int], ranking: Sequence[str], k: int) -> float:
    """Järvelin & Kekäläinen's normalised cumulated gain at k: CG[k] / ICG[k], the gain of a
    document its grade when positive."""
    gain = [max(grades.get(d, 0), 0) for d in ranking[:k]]
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    return sum(gain) / sum(ideal) if sum(ideal) else 0.0


@pytest.mark.parametrize("pair", ALL, indirect=True)
def test_ncg_is_its_definition(pair: tuple[Path, Path]) -> None:
    cutoffs = (1, 5, 10, 100)
    grades = parse_trec_qrels(pair[0].read_text()).grades()
    rankings = parse_trec_run(pair[1].read_text()).ranked_ids()
    mine = ours(pair, [f"NCG@{k}" for k in cutoffs])
    for qid, values in mine.per_query.items():
        for k in cutoffs:
            expected = ncg_by_definition(grades[qid], rankings.get(qid, []), k)
            assert abs(values[f"ncg@{k}"] - expected) <= 1e-12


@pytest.mark.parametrize("name", ["test", "cwl"])
def test_ncg_on_binary_judgments_is_capped_recall(name: str) -> None:
    """On binary judgments NCG@k is the relevant documents in the top k over min(k, R): recall@k
    when k >= R, P@k when k <= R, both as pytrec_eval computes them."""
    qrels, run = (TEST_DATA / f for f in FILES[name])
    grades = parse_trec_qrels(qrels.read_text()).grades()
    assert {g for gs in grades.values() for g in gs.values()} <= {0, 1}
    cutoffs = (1, 3, 5, 10, 100, 1000)
    mine = ours((qrels, run), [f"NCG@{k}" for k in cutoffs])
    scores = {
        q: {d.doc_id: d.score for d in r.docs}
        for q, r in parse_trec_run(run.read_text()).rankings.items()
    }
    evaluator = pytrec_eval.RelevanceEvaluator(
        grades, {"recall." + ",".join(map(str, cutoffs)), "P." + ",".join(map(str, cutoffs))}
    )
    theirs = evaluator.evaluate(scores)
    for qid, values in theirs.items():
        r = sum(1 for g in grades[qid].values() if g > 0)
        for k in cutoffs:
            if k >= r:
                assert mine.per_query[qid][f"ncg@{k}"] == values[f"recall_{k}"]
            if k <= r:
                assert mine.per_query[qid][f"ncg@{k}"] == values[f"P_{k}"]
    assert theirs


# --- judged_only is trec_eval's -J for one metric -----------------------------------------


@pytest.mark.parametrize("pair", ["test", "rel_level"], indirect=True)
def test_judged_only_is_minus_j_for_that_metric(pair: tuple[Path, Path]) -> None:
    """``nDCG(judged_only=True)@10`` equals nDCG@10 of the run cut by -J (RunCut), and the
    metric without it is untouched by its neighbour's condensing."""
    grades = parse_trec_qrels(pair[0].read_text()).grades()
    rankings = parse_trec_run(pair[1].read_text()).ranked_ids()
    names = ["nDCG@10", "P@5", "AP", "SetP", "infAP", "alpha_nDCG@10"]
    condensed = evaluate(
        grades, RunCut(judged_only=True).apply(rankings, grades), [parse_metric(n) for n in names]
    )
    plain = evaluate(grades, rankings, [parse_metric(n) for n in names])
    with_j = [Metric(m.name, m.k, judged_only=True) for m in (parse_metric(n) for n in names)]
    both = evaluate(grades, rankings, [parse_metric(n) for n in names] + with_j)
    for qid in plain.per_query:
        for n, m in zip(names, with_j, strict=True):
            key = str(parse_metric(n))
            assert both.per_query[qid][str(m)] == condensed.per_query[qid][key]
            assert both.per_query[qid][key] == plain.per_query[qid][key]
    assert any(plain.per_query[q] != condensed.per_query[q] for q in plain.per_query)


# --- trec_eval 10 itself, where it is built -------------------------------------------------

TREC_EVAL = os.environ.get("QRELS_TREC_EVAL", "")


@pytest.mark.skipif(
    not TREC_EVAL or not os.access(TREC_EVAL, os.X_OK), reason="no trec_eval 10 (QRELS_TREC_EVAL)"
)
@pytest.mark.parametrize("pair", ["test", "rel_level", "compat", "diversity"], indirect=True)
@pytest.mark.parametrize("judged_only", [False, True])
def test_trec_eval_measures_equal_trec_eval_10(
    pair: tuple[Path, Path], judged_only: bool, tmp_path: Path
) -> None:
    """infAP, set_P, set_recall and set_F per query as trec_eval 10 prints them (``-J`` for
    the judged_only forms), to its four decimals."""
    qrels = collapsed(pair[0], tmp_path)
    names = ["infAP", "SetP", "SetR", "SetF"]
    metrics = [Metric(parse_metric(n).name, judged_only=judged_only) for n in names]
    grades = parse_trec_qrels(qrels.read_text()).grades()
    mine = evaluate(grades, parse_trec_run(pair[1].read_text()).ranked_ids(), metrics)
    command = [
        TREC_EVAL,
        "-q",
        "-c",
        "-m",
        "infAP",
        "-m",
        "set_P",
        "-m",
        "set_recall",
        "-m",
        "set_F",
    ]
    printed = subprocess.run(
        [*command, *(["-J"] if judged_only else []), str(qrels), str(pair[1])],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    ours_by_name = dict(
        zip(("infAP", "set_P", "set_recall", "set_F"), map(str, metrics), strict=True)
    )
    seen = 0
    for line in printed.splitlines():
        name, qid, value = line.split()
        if qid != "all":
            assert f"{mine.per_query[qid][ours_by_name[name]]:6.4f}" == value, (name, qid)
            seen += 1
    assert seen == 4 * len(mine.per_query)


# --- the subtopics of TREC qrels ----------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "trec_eval/qrels.test",
        "trec_eval/qrels.rel_level",
        "trec_eval/qrels.comment.test",
        "trec_eval/qrels.test.with-comments",
        "ir_measures/compat.qrels",
        "ir_measures/cwl.qrels",
        "vaswani/qrels",
        "pyterrier/qrels",
    ],
)
def test_plain_qrels_have_no_subtopics(name: str) -> None:
    """One iteration value per query: plain qrels, read exactly as before (the conformance
    tests hold their numbers)."""
    text = (TEST_DATA / name).read_text()
    qrels = parse_trec_qrels(text)
    assert all(j.subtopic is None for q in qrels.queries.values() for j in q.judgments)
    grades = qrels.grades()
    assert not any(isinstance(g, SubtopicGrades) for g in grades.values())
    assert read_trec_qrels_grades(text) == grades


def test_a_document_judged_per_subtopic_is_no_duplicate() -> None:
    """``q 1 d 1`` and ``q 2 d 0``: two subtopics, one document, no QR303 or QR102; the same
    subtopic twice is still a duplicate, its first grade counting."""
    text = "q 1 d 1\nq 2 d 0\nq 2 e 2\nq 2 e 3\nr 0 d 1\n"
    qrels = parse_trec_qrels(text)
    duplicates = [
        f
        for f in [*qrels.findings, *check_golden(qrels, text, None)]
        if f.code in ("QR102", "QR303")
    ]
    assert sorted((f.code, f.span.start) for f in duplicates) == [("QR102", 28), ("QR303", 28)]
    grades = qrels.grades()
    assert isinstance(grades["q"], SubtopicGrades)
    assert dict(grades["q"]) == {"d": 1, "e": 2} and grades["q"].subtopics == {
        "d": {"1": 1, "2": 0},
        "e": {"2": 2},
    }
    assert isinstance(grades["r"], SubtopicGrades)  # (the file judges per subtopic)
    assert grades["q"] != {"d": 1, "e": 2}  # equal grades, other subtopics: not the same


def test_diversity_qrels_are_written_back_with_their_subtopics(
    diversity: tuple[Path, Path],
) -> None:
    """`convert` to TREC qrels keeps a line per subtopic, so the file reads back the same."""
    from qrels_lsp.core.formats.trec_qrels import trec_qrels_text

    grades = parse_trec_qrels(diversity[0].read_text()).grades()
    again = parse_trec_qrels(trec_qrels_text(parse_trec_qrels(diversity[0].read_text())))
    assert again.grades() == grades and not again.findings


# --- the command line, through the registry -----------------------------------------------


def test_score_prints_the_new_measures_as_ir_measures_computes_them(
    diversity: tuple[Path, Path], tmp_path: Path
) -> None:
    """`score --metrics` with ir_measures' names: JSON per query equal to ir_measures (ties
    broken as ours, the other measures on the collapsed qrels); `--format trec` under
    trec_eval's names where it has one; a misspelt name names the closest."""
    from test_cli import qrels_lsp

    run = broken_ties(diversity[1], tmp_path)
    qrels = shutil.copy(diversity[0], tmp_path / "diversity.qrels")
    names = ["alpha_nDCG@10", "infAP", "SetF", "SetP", "nDCG(judged_only=True)@10"]
    names.append("nDCG(gains={0:0,1:1,2:3})@10")
    metrics = ("--metrics", ",".join(names))
    done = qrels_lsp("score", qrels, run, *metrics, "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [scored] = json.loads(done.stdout)["runs"]
    theirs = reference(names[:1], diversity[0], run)
    theirs.update(reference(names[1:], collapsed(diversity[0], tmp_path), run))
    for key, values in theirs.items():
        for qid, value in values.items():
            assert abs(scored["queries"][qid][key] - value) <= 1e-9, (key, qid)
    trec = qrels_lsp("score", qrels, run, *metrics, "--format", "trec", cwd=tmp_path)
    printed = {line.split()[0] for line in trec.stdout.splitlines()}
    ours_only = {"alpha_ndcg@10", "ndcg(judged_only=True)@10", "ndcg(gains={2:3})@10"}
    assert {"infAP", "set_F", "set_P", *ours_only} <= printed
    typo = qrels_lsp("score", qrels, run, "--metrics", "alpha_nDGC@10", cwd=tmp_path)
    assert typo.returncode == 2 and "did you mean alpha_ndcg@10?" in typo.stderr
