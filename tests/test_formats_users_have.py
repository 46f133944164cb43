"""The formats users already have (issue 14): MS MARCO TSV runs, the BEIR layout, TREC topics and
``<DOC>`` corpora that are never runs, topics in the format their name says, folder corpora
named by file stem, and the format each file was read as (hover, ``check --format json``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytrec_eval
from conftest import TEST_DATA
from fixtures import ANYWHERE, assert_findings, assert_spans_in
from qrels_lsp.core.formats import detect, detect_by_name, get, recognise
from qrels_lsp.core.formats.msmarco_run import parse_msmarco_run, read_msmarco_run
from qrels_lsp.core.formats.topics import parse_topics
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.metrics import evaluate, parse_metric
from qrels_lsp.core.project.config import Config, QrelsBinding, config_from_mapping
from qrels_lsp.core.project.project import Project
from qrels_lsp.ide.hover import hover_target, hover_text
from qrels_lsp.ide.locate import locate
from test_cli import qrels_lsp as cli
from test_cli import write

# -- MS MARCO TSV runs ---------------------------------------------------------------------------


def _msmarco_of_trec(trec_run: str) -> str:
    """A TREC run written as MS MARCO's ``qid<TAB>docid<TAB>rank``, ranks from trec_eval's order
    (what a system writing MS MARCO runs does)."""
    from qrels_lsp.core.formats.trec_run import read_trec_run_ids

    lines = []
    for qid, docs in read_trec_run_ids(trec_run).items():
        lines += [f"{qid}\t{doc}\t{rank}" for rank, doc in enumerate(docs, start=1)]
    return "\n".join(lines) + "\n"


def test_msmarco_run_scores_as_pytrec_eval_scores_it_by_rank() -> None:
    qrels_text = (TEST_DATA / "vaswani" / "qrels").read_text(encoding="utf-8")
    tsv = _msmarco_of_trec((TEST_DATA / "vaswani" / "bm25_top100.run").read_text("utf-8"))
    run = parse_msmarco_run(tsv)
    assert run.findings == []
    assert read_msmarco_run(tsv) == run.ranked_ids()
    grades = parse_trec_qrels(qrels_text).grades()
    # pytrec_eval on the same file, each rank r given the score -r.
    scored: dict[str, dict[str, float]] = {}
    for line in tsv.splitlines():
        qid, doc, rank = line.split("\t")
        scored.setdefault(qid, {})[doc] = -float(rank)
    want = pytrec_eval.RelevanceEvaluator(grades, {"recip_rank", "ndcg_cut.10"}).evaluate(scored)
    got = evaluate(grades, run.ranked_ids(), [parse_metric("mrr"), parse_metric("ndcg@10")])
    for qid, values in want.items():
        assert got.per_query[qid]["mrr"] == values["recip_rank"], qid
        assert got.per_query[qid]["ndcg@10"] == values["ndcg_cut_10"], qid


def test_msmarco_run_ties_gaps_duplicates_and_header() -> None:
    text = "qid\tpid\trank\nq1\td1\t3\nq1\tb\t1\nq1\tc\t1\nq1\td1\t4\nq1\tz\tx\nq2\te\t9\n"
    run = parse_msmarco_run(text)
    # Rank ascending; equal ranks by document id descending; the gap (1, 3) closes up.
    assert run.ranked_ids() == {"q1": ["c", "b", "d1"], "q2": ["e"]}
    assert read_msmarco_run(text) == run.ranked_ids()
    assert sorted(f.code for f in run.findings) == ["QR203", "QR301", "QR316"]
    assert_spans_in(text, run.findings)
    assert_findings("QR316", "q1\tb\t1\nq1\tc\t⟦1⟧\n", lambda t: parse_msmarco_run(t).findings)


def test_tsv_runs_and_beir_qrels_told_apart(tmp_path: Path) -> None:
    config = Config(root=tmp_path)
    run = "q1\td1\t1\nq1\td2\t2\nq1\td3\t3\nq2\td9\t1\n"
    qrels = "q1\td1\t1\nq1\td2\t1\nq1\td3\t2\n"
    assert detect(tmp_path / "dev.tsv", run, config) is get("msmarco-run")
    assert detect(tmp_path / "dev.tsv", qrels, config) is get("beir-qrels")
    header = "query-id\tcorpus-id\tscore\n" + qrels
    assert detect(tmp_path / "x.tsv", header, config) is get("beir-qrels")
    # By name: BEIR's qrels/<split>.tsv, and *.run.tsv; a `runs:` entry is a run.
    assert detect(tmp_path / "qrels" / "test.tsv", run, config) is get("beir-qrels")
    assert detect(tmp_path / "bm25.run.tsv", qrels, config) is get("msmarco-run")
    assert detect(tmp_path / "x.tsv", qrels, config, "run") is get("msmarco-run")


# -- TREC topics and corpora are never runs ------------------------------------------------------


def _cacm_like(tmp: Path) -> Path:
    """A collection laid out as CACM and Vaswani are: documents and topics in `.trec` files."""
    folder = tmp / "cacm"
    folder.mkdir()
    shutil.copy(TEST_DATA / "vaswani" / "corpus" / "doc-text.trec", folder / "cacm.trec")
    shutil.copy(TEST_DATA / "vaswani" / "query-text.trec", folder / "query.trec")
    shutil.copy(TEST_DATA / "vaswani" / "qrels", folder / "qrels.text")
    shutil.copy(TEST_DATA / "vaswani" / "bm25_top100.run", folder / "bm25.run")
    return folder


def test_trec_topics_and_documents_are_recognised_not_read_as_runs(tmp_path: Path) -> None:
    folder = _cacm_like(tmp_path)
    config = Config(root=folder)
    for name, kind in [("query.trec", "trec-topics"), ("cacm.trec", "trec-documents")]:
        text = (folder / name).read_text(encoding="utf-8")
        assert recognise(folder / name, text, config) == (None, kind)
        assert detect(folder / name, text, config, "run") is None
    run_text = (folder / "bm25.run").read_text(encoding="utf-8")
    assert detect(folder / "bm25.run", run_text, config) is get("trec-run")


def test_check_on_a_cacm_folder_reads_only_its_qrels_and_runs(tmp_path: Path) -> None:
    """It gave 22,476 errors: the topics and the documents were read as TREC runs."""
    folder = _cacm_like(tmp_path)
    r = cli("check", "--format", "json", ".", cwd=folder)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert errors == [] and "QR301" not in {f["code"] for f in doc["findings"]}
    files = {Path(f["path"]).name: f["format"] for f in doc["files"]}
    assert files == {
        "bm25.run": "trec-run",
        "cacm.trec": "trec-documents",
        "query.trec": "trec-topics",
    }


def test_configured_topics_and_corpus_are_never_runs(tmp_path: Path) -> None:
    folder = _cacm_like(tmp_path)
    write(
        folder / "qrels-lsp.toml",
        '[[qrels]]\npath = "qrels.text"\ntopics = "query.trec"\ncorpus = "cacm.trec"\n'
        'runs = ["*.run"]\n',
    )
    # Even written as a run would be, a file named as topics is topics.
    write(folder / "query.trec", "1 Q0 d1 1 2.5 tag\n")
    r = cli("check", "--format", "json", ".", cwd=folder)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert [f for f in doc["findings"] if f["severity"] == "error"] == []
    files = {Path(f["path"]).name: f["format"] for f in doc["files"]}
    assert files == {"bm25.run": "trec-run", "qrels.text": "trec-qrels"}
    config = Config(
        root=folder,
        qrels=(
            QrelsBinding(
                (folder / "qrels.text").resolve(),
                topics=(folder / "query.trec").resolve(),
                corpus=(folder / "cacm.trec").resolve(),
            ),
        ),
    )
    assert detect_by_name(folder / "query.trec", config) is None
    assert recognise(folder / "cacm.trec", "", config) == (None, "corpus")


# -- BEIR's layout -------------------------------------------------------------------------------


def _beir(tmp: Path) -> Path:
    data = tmp / "scifact"
    write(
        data / "corpus.jsonl",
        '{"_id": "d1", "title": "Aspirin", "text": "aspirin thins the blood"}\n'
        '{"_id": "d2", "title": "Sleep", "text": "sleep helps memory"}\n',
    )
    write(
        data / "queries.jsonl",
        '{"_id": "1", "text": "does aspirin thin blood", "metadata": {}}\n'
        '{"_id": "2", "text": "is sleep good for memory", "metadata": {}}\n',
    )
    write(data / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td3\t1\n")
    return data


def test_beir_qrels_get_their_datasets_corpus_and_queries(tmp_path: Path) -> None:
    data = _beir(tmp_path)
    project = Project(Config(root=tmp_path), boundary=ANYWHERE)
    analysis = project.analyse(data / "qrels" / "test.tsv")
    assert analysis is not None and analysis.kind == "beir-qrels"
    assert analysis.context is not None
    assert analysis.context.corpus_path == (data / "corpus.jsonl").resolve()
    questions = {q: x.question for q, x in analysis.context.qrels.queries.items()}
    assert questions == {"1": "does aspirin thin blood", "2": "is sleep good for memory"}
    unknown = [f for f in analysis.findings if f.code == "QR106"]
    assert len(unknown) == 1 and "d3" in unknown[0].message
    # `check` on the dataset's folder finds the qrels by their place.
    r = cli("check", "--format", "json", ".", cwd=data)
    files = {f["path"]: f["format"] for f in json.loads(r.stdout)["files"]}
    assert files == {str(Path("qrels") / "test.tsv"): "beir-qrels"}


# -- topics in the format their name says --------------------------------------------------------

GOLDEN = """queries:
  q1:
    question: how do I reset my password
    relevant: [kb/a.md]
  q2:
    question: where is the invoice
    relevant: {kb/c.md: 2}
"""


def test_convert_writes_and_reads_topics_as_their_name_says(tmp_path: Path) -> None:
    golden = write(tmp_path / "g.qrels.yaml", GOLDEN)
    questions = {"q1": "how do I reset my password", "q2": "where is the invoice"}
    for name in ("queries.jsonl", "queries.tsv", "topics.trec"):
        topics = tmp_path / name
        r = cli("convert", golden, "-o", tmp_path / "g.qrels", "--topics", topics, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        text = topics.read_text(encoding="utf-8")
        assert ("<top>" in text) == name.endswith(".trec")
        assert {q: t.text for q, t in parse_topics(name, text).items()} == questions
        back = tmp_path / f"back-{name}.qrels.yaml"
        r = cli("convert", tmp_path / "g.qrels", "-o", back, "--topics", topics, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert "how do I reset my password" in back.read_text(encoding="utf-8"), name


def test_a_topics_file_named_by_its_content(tmp_path: Path) -> None:
    jsonl = '{"_id": "1", "text": "first question"}\n'
    assert {q: t.text for q, t in parse_topics("queries.txt", jsonl).items()} == {
        "1": "first question"
    }
    assert {q: t.text for q, t in parse_topics("queries", "1\tfirst question\n").items()} == {
        "1": "first question"
    }


# -- folder corpora named by stem ----------------------------------------------------------------

STEM_GOLDEN = """corpus: docs/
queries:
  q1:
    question: what is in the report
    relevant: [1410, 22]
"""


def test_corpus_ids_stem_names_folder_documents_without_extension(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "1410.txt", "the report\n")
    write(tmp_path / "docs" / "22.md", "another\n")
    golden = write(tmp_path / "g.qrels.yaml", STEM_GOLDEN)
    by_path = Project(Config(root=tmp_path), boundary=ANYWHERE).analyse(golden)
    assert by_path is not None
    assert sum(f.code == "QR106" for f in by_path.findings) == 2
    stem = Project(Config(root=tmp_path, corpus_ids="stem"), boundary=ANYWHERE).analyse(golden)
    assert stem is not None
    assert [f.code for f in stem.findings if f.severity == 1] == []
    # Two files with one stem: one of them is left out, and said where the corpus is named.
    write(tmp_path / "docs" / "22.txt", "a clash\n")
    stem = Project(Config(root=tmp_path, corpus_ids="stem"), boundary=ANYWHERE).analyse(golden)
    assert stem is not None
    (clash,) = [f for f in stem.findings if f.code == "QR114"]
    assert "22.md and 22.txt" in clash.message
    assert stem.text[clash.span.start : clash.span.end] == "docs/"


def test_corpus_ids_setting_is_validated() -> None:
    assert config_from_mapping({"corpus_ids": "stem"}, Config()).corpus_ids == "stem"
    bad = config_from_mapping({"corpus_ids": "name"}, Config())
    assert bad.corpus_ids == "path" and [f.code for f in bad.findings] == ["QR401"]


# -- what a file was read as ---------------------------------------------------------------------


def test_hover_on_the_first_line_says_the_format(tmp_path: Path) -> None:
    run = write(tmp_path / "bm25.run.json", '{"q1": {"d1": 1.5}}\n')
    tsv = write(tmp_path / "dev.tsv", "q1\td1\t1\nq1\td2\t2\nq1\td3\t3\n")
    project = Project(Config(root=tmp_path), boundary=ANYWHERE)
    for path, display in [(run, "JSON run (ranx / pytrec_eval)"), (tsv, "MS MARCO run (TSV)")]:
        analysis = project.analyse(path)
        assert analysis is not None
        at = analysis.text.index("\n") - 1  # the end of the first line: no id there
        assert locate(analysis.model, at, analysis.text) is None  # no id: the file itself
        target = hover_target(analysis, at)
        assert target is not None and target.kind == "file"
        text = hover_text(project, analysis, target)
        assert text is not None and text.startswith(f"Read as {display}."), text
