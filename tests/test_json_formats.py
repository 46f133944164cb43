"""ranx / pytrec_eval JSON runs and qrels: scored as ranx's own files give pytrec_eval, read with
spans and findings like the other formats, and found by name and by content.

The oracle: the TREC files under tests/data are converted to JSON by ranx itself (``Qrels.from_file`` /
``Run.from_file``, then ``save``), those JSON files are loaded again with ranx, and pytrec_eval
scores ranx's dictionaries. qrels-lsp reads the same JSON files, through the command line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from conftest import TEST_DATA
from fixtures import ANYWHERE, assert_findings, assert_spans_in
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.formats import detect, get
from qrels_lsp.core.formats.json_qrels import parse_json_qrels, read_json_grades
from qrels_lsp.core.formats.json_run import parse_json_run, read_json_run
from qrels_lsp.core.formats.trec_run import read_trec_run_ids
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project


def _ranx() -> Any:
    """ranx (a test dependency), imported by the slow test that uses it: its import takes
    seconds (numba), which the default suite would pay at collection."""
    import ranx

    return ranx


PAIRS = [
    ("trec_eval/qrels.test", "trec_eval/results.test"),  # 500 docs a query, score ties
    ("trec_eval/qrels.rel_level", "trec_eval/results.test"),  # grades -1..4
    ("vaswani/qrels", "vaswani/bm25_top100.run"),  # 175 tied score pairs
    ("ir_measures/compat.qrels", "ir_measures/compat.run"),  # grades up to 50
    ("pyterrier/qrels", "pyterrier/two_queries_result"),  # 1,318 tied rows
]
# trec_eval measure -> ours
MEASURES = {
    "recall_5": "recall@5",
    "recall_100": "recall@100",
    "P_10": "precision@10",
    "recip_rank": "mrr",
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
}
PYTREC = {"recall.5,100", "P.10", "recip_rank", "ndcg_cut.10", "map"}


def _ranx_json(tmp: Path, qrels_name: str, run_name: str) -> tuple[Path, Path]:
    """The TREC pair converted to JSON by ranx."""
    stem = Path(qrels_name).parent.name
    qrels_path = tmp / f"{stem}.qrels.json"
    run_path = tmp / f"{stem}.run.json"
    _ranx().Qrels.from_file(str(TEST_DATA / qrels_name), kind="trec").save(str(qrels_path))
    _ranx().Run.from_file(str(TEST_DATA / run_name), kind="trec").save(str(run_path))
    return qrels_path, run_path


def _oracle(qrels_path: Path, run_path: Path) -> dict[str, dict[str, float]]:
    """pytrec_eval on what ranx loads from the JSON files."""
    qrels = _ranx().Qrels.from_file(str(qrels_path)).to_dict()
    run = _ranx().Run.from_file(str(run_path)).to_dict()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC)
    return evaluator.evaluate({q: dict(d) for q, d in run.items() if q in qrels})


def _score(qrels_path: Path, run_path: Path) -> dict[str, dict[str, float]]:
    args = ["score", str(qrels_path), str(run_path), "--format", "json"]
    out = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", *args, "--metrics", ",".join(MEASURES.values())],
        cwd=qrels_path.parent,  # the folder holding both files: the command line's workspace
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    (result,) = json.loads(out.stdout)["runs"]
    per_query: dict[str, dict[str, float]] = result["queries"]
    return per_query


@pytest.mark.slow  # ranx imports and compiles numba kernels: about 10 s per process
@pytest.mark.parametrize(("qrels_name", "run_name"), PAIRS)
def test_ranx_json_files_score_what_pytrec_eval_gives(
    tmp_path: Path, qrels_name: str, run_name: str
) -> None:
    qrels_path, run_path = _ranx_json(tmp_path, qrels_name, run_name)
    expected = _oracle(qrels_path, run_path)
    got = _score(qrels_path, run_path)
    judged = set(_ranx().Qrels.from_file(str(qrels_path)).to_dict())
    assert expected, "the oracle scored nothing"
    for qid in judged:
        want = (
            {ours: expected[qid][theirs] for theirs, ours in MEASURES.items()}
            if (qid in expected)
            else dict.fromkeys(MEASURES.values(), 0.0)
        )
        assert {m: got[qid][m] for m in MEASURES.values()} == want, qid  # bit for bit


@pytest.mark.parametrize(("qrels_name", "run_name"), PAIRS)
def test_span_and_fast_readers_agree_on_ranx_files(
    tmp_path: Path, qrels_name: str, run_name: str
) -> None:
    qrels_path, run_path = _ranx_json(tmp_path, qrels_name, run_name)
    run_text = run_path.read_text(encoding="utf-8")
    qrels_text = qrels_path.read_text(encoding="utf-8")
    run = parse_json_run(run_text)
    qrels = parse_json_qrels(qrels_text)
    assert run.findings == [] and qrels.findings == []
    assert read_json_run(run_text) == run.ranked_ids()
    assert read_json_grades(qrels_text) == qrels.grades()
    # The same order the TREC reader gives the TREC file ranx converted.
    trec = read_trec_run_ids((TEST_DATA / run_name).read_text(encoding="utf-8"))
    assert run.ranked_ids() == trec
    assert_spans_in(run_text, run.findings)
    for ranking in run.rankings.values():
        assert run_text[ranking.span.start : ranking.span.end] == ranking.qid
        for doc in ranking.docs:
            assert run_text[doc.span.start : doc.span.end] == doc.doc_id


WEIRD = [
    '{"q1": {"d1": 1.5, "d2": 1.5, "d1": 0.5}, "q2": {}}',  # a key twice: the last counts
    '{"q1": {"d1": 1.5}, "q1": {"d3": 2.0}}',  # a query twice: the last counts
    '{"q1": {"d1": NaN, "d2": 1e400, "d3": -Infinity, "d4": 3}}',
    '{"q1": {"d1": 1, "d2": true, "d3": [1, {"x": 2}]}, "q2": [], "q3": {"a": 2}}',
    '{"q\\u00e9": {"d\\"1": 2.5, "d\\\\2": 0}}',
    '{"q1": {"d1": 1.5,}}',  # not JSON: a trailing comma
    '{"q1": {"d1": 1.5}} extra',
    '\ufeff {"q1": {"d1": 2}}',
    "[1, 2]",
    "",
    '{"q1": {"d1": 1' + "0" * 5000 + "}}",  # more digits than int() reads
    '{"q1": {"d1": 1.5, "d2": ' + "[" * 100000,
]


@pytest.mark.parametrize("text", WEIRD)
def test_readers_agree_on_odd_files_and_never_raise(text: str) -> None:
    run, qrels = parse_json_run(text), parse_json_qrels(text)
    assert read_json_run(text) == run.ranked_ids()
    assert read_json_grades(text) == qrels.grades()
    assert_spans_in(text, run.findings + qrels.findings)
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        # What json.loads refuses is said, but for a BOM and an integer of 5,000 digits, which
        # are read (a file decoded here has no BOM; the integer is a number all the same).
        lenient = text.startswith("\ufeff") or "0" * 5000 in text
        assert lenient or any(f.code == "QR314" for f in run.findings)


def test_duplicate_keys_read_as_json_loads_reads_them() -> None:
    text = '{"q1": {"d1": 1.5, "d2": 1.0, "d1": 0.5}, "q2": {"x": 1}, "q2": {"y": 2}}'
    assert parse_json_run(text).ranked_ids() == {"q1": ["d2", "d1"], "q2": ["y"]}
    found = assert_findings(
        "QR315",
        '{"q1": {"d1": 1.5, "d2": 1.0, "⟦d1⟧": 0.5}, "q2": {"x": 1}, "⟦q2⟧": {"y": 2}}',
        lambda t: parse_json_run(t).findings,
    )
    assert found[0].related and "last one counts" in found[0].message


def test_shape_and_syntax_findings_are_located() -> None:
    assert_findings(
        "QR314",
        '{"q1": {"d1": ⟦"high"⟧, "d2": ⟦NaN⟧}, "q2": ⟦[1]⟧}',
        lambda t: parse_json_run(t).findings,
    )
    found = assert_findings(
        "QR314", '{"q1": {"d1": 1.5,⟦}⟧}\n', lambda t: parse_json_run(t).findings
    )
    assert "trailing comma" in found[0].message
    found = assert_findings("QR314", '{"q1": {"d1": 1}}⟦x⟧', lambda t: parse_json_qrels(t).findings)
    assert "extra text" in found[0].message
    # A grade with a fraction is read as trec_eval reads grades, and said.
    assert_findings("QR302", '{"q1": {"d1": ⟦2.7⟧}}', lambda t: parse_json_qrels(t).findings)
    assert parse_json_qrels('{"q1": {"d1": 2.7}}').grades() == {"q1": {"d1": 2}}


def test_detected_by_name_and_by_content(tmp_path: Path) -> None:
    config = Config(root=tmp_path)
    run_text = '{"q1": {"d1": 12.5, "d2": 3.25}}'
    qrels_text = '{"q1": {"d1": 1, "d2": 0}}'
    assert detect(tmp_path / "bm25.run.json", qrels_text, config) is get("json-run")
    assert detect(tmp_path / "test.qrels.json", run_text, config) is get("json-qrels")
    assert detect(tmp_path / "bm25.json", run_text, config) is get("json-run")
    assert detect(tmp_path / "judged.json", qrels_text, config) is get("json-qrels")
    # What the caller uses it as settles a run of integer scores.
    assert detect(tmp_path / "ranks.json", qrels_text, config, "run") is get("json-run")
    assert detect(tmp_path / "other.json", '{"a": [1]}', config) is None


GOLDEN = """corpus: corpus/
k: 2
runs: [runs/*.json]
queries:
  q1:
    question: how do I reset my password
    relevant: [a.md, b.md]
  q2:
    question: where is the invoice
    relevant: {c.md: 2}
"""


def test_a_json_run_in_runs_is_scored(tmp_path: Path) -> None:
    """It scored all zeros: the file was not taken for a run at all."""
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / "corpus").mkdir(exist_ok=True)
        (tmp_path / "corpus" / name).write_text(name, encoding="utf-8")
    (tmp_path / "g.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "dense.json").write_text(
        json.dumps({"q1": {"b.md": 0.9, "x.md": 0.8}, "q2": {"c.md": 2, "a.md": 3}}),
        encoding="utf-8",
    )
    project = Project(Config(root=tmp_path, bm25_baseline=False), boundary=ANYWHERE)
    analysis = project.analyse(tmp_path / "g.qrels.yaml")
    assert analysis is not None
    (result,) = analysis.runs
    assert result.error is None and result.name == "dense"
    assert result.rankings == {"q1": ["b.md", "x.md"], "q2": ["a.md", "c.md"]}
    assert result.evaluation.per_query["q1"]["recall@2"] == 0.5
    assert result.evaluation.per_query["q2"]["mrr"] == 0.5
    assert not [f for f in analysis.findings if f.code == "QR111"]


_IDS = st.text(alphabet=st.sampled_from('ab1_"\\é\n '), min_size=0, max_size=4)
_NUMBERS = st.sampled_from(["1", "0", "-2", "1.5", "2e3", "NaN", "-Infinity", "true", '"x"', "[1]"])


@st.composite
def _nested_texts(draw: st.DrawFn) -> str:
    """Objects of objects written member by member (keys may repeat, values may be anything),
    then perhaps cut or spliced: the readers must agree and never raise."""
    groups = []
    for _ in range(draw(st.integers(0, 3))):
        members = [
            f"{json.dumps(draw(_IDS))}: {draw(_NUMBERS)}" for _ in range(draw(st.integers(0, 4)))
        ]
        groups.append(f"{json.dumps(draw(_IDS))}: {{{', '.join(members)}}}")
    text = "{" + ", ".join(groups) + "}"
    if draw(st.booleans()):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["", ",", "}", '"', "{", " x"])) + text[at + 1 :]
    return text


@settings(max_examples=300, deadline=None)
@given(_nested_texts())
def test_readers_agree_on_generated_files(text: str) -> None:
    run, qrels = parse_json_run(text), parse_json_qrels(text)
    assert read_json_run(text) == run.ranked_ids()
    assert read_json_grades(text) == qrels.grades()
    assert_spans_in(text, run.findings + qrels.findings)
    try:
        loaded = json.loads(text)
    except ValueError:
        assert any(f.code == "QR314" for f in run.findings)
        return
    if isinstance(loaded, dict) and all(isinstance(v, dict) for v in loaded.values()):
        # What json.loads reads, number for number (NaN left out of a ranking).
        assert {q: set(d) for q, d in loaded.items()} == {
            q: {e.doc_id for e in r.docs} | {k for k, v in loaded[q].items() if v != v}
            for q, r in run.rankings.items()
        } or any(f.code == "QR314" for f in run.findings)


def test_judging_adds_one_member_and_keeps_the_rest() -> None:
    from fixtures import apply_edits
    from qrels_lsp.core.formats.format import EditRefused
    from qrels_lsp.core.formats.json_qrels import add_judgment

    text = '{\n  "q1": {"d1": 1},\n  "q2": {}\n}\n'
    for qid, doc, want in [
        ("q1", "d2", '{\n  "q1": {"d1": 1, "d2": 2},\n  "q2": {}\n}\n'),
        ("q2", "d2", '{\n  "q1": {"d1": 1},\n  "q2": {"d2": 2}\n}\n'),
        ("q3", 'd"2', '{\n  "q1": {"d1": 1},\n  "q2": {}, "q3": {"d\\"2": 2}\n}\n'),
    ]:
        changed = apply_edits(text, add_judgment(text, qid, doc, 2))
        assert changed == want
        assert parse_json_qrels(changed).findings == []
        assert parse_json_qrels(changed).grades()[qid][doc] == 2
    assert apply_edits("{}", add_judgment("{}", "q", "d", 0)) == '{"q": {"d": 0}}'
    with pytest.raises(EditRefused):
        add_judgment('{"q1": {"d1": 1,}}', "q1", "d2", 1)
