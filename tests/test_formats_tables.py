"""The formats people have: TSV with a header, JSONL rows (ir_datasets' exports) and BEIR/MTEB
datasets in Hugging Face's Parquet layout, each read where any qrels or run file is read (the
command line, the API), and scoring exactly as the same data in the formats read before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import TEST_DATA
from qrels_lsp import api
from qrels_lsp.core.formats import columns, detect
from qrels_lsp.core.formats.parquet import NO_PYARROW, parquet_text
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.project.config import Config, load_config
from test_cli import qrels_lsp, write

METRICS = "recall@10,ndcg@10,P@5,map,mrr"


def score(*args: str | Path, cwd: Path) -> dict[str, object]:
    r = qrels_lsp("score", *args, "--format", "json", "--metrics", METRICS, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def trec_pair() -> tuple[dict[str, dict[str, int]], dict[str, list[tuple[str, float]]]]:
    grades = parse_trec_qrels((TEST_DATA / "trec_eval/qrels.rel_level").read_text()).grades()
    run = parse_trec_run((TEST_DATA / "trec_eval/results.test").read_text())
    lines = {
        q: [(d.doc_id, float(d.score or 0.0)) for d in r.docs] for q, r in run.rankings.items()
    }
    return grades, lines


def test_tsv_with_a_header_and_jsonl_rows_score_as_trec(tmp_path: Path) -> None:
    """The same judgments and run as TSV with a header (other columns around them, in another
    order) and as ir_datasets' JSONL exports: the same numbers as the TREC files."""
    grades, ranked = trec_pair()
    rows = [(q, d, g) for q, docs in grades.items() for d, g in docs.items()]
    write(
        tmp_path / "judged.txt",
        "topic\titeration\tdocno\tlabel\n" + "".join(f"{q}\t0\t{d}\t{g}\n" for q, d, g in rows),
    )
    write(
        tmp_path / "qrels.jsonl",
        "".join(
            json.dumps({"query_id": q, "doc_id": d, "relevance": g, "iteration": "0"}) + "\n"
            for q, d, g in rows
        ),
    )
    scored = [(q, d, s) for q, docs in ranked.items() for d, s in reversed(docs)]  # any order
    write(
        tmp_path / "run.tsv",
        "qid\tdocno\tscore\n" + "".join(f"{q}\t{d}\t{s!r}\n" for q, d, s in scored),
    )
    write(
        tmp_path / "run.jsonl",
        "".join(json.dumps({"query_id": q, "doc_id": d, "score": s}) + "\n" for q, d, s in scored),
    )
    (tmp_path / "qrels.trec").write_bytes((TEST_DATA / "trec_eval/qrels.rel_level").read_bytes())
    (tmp_path / "results.trec").write_bytes((TEST_DATA / "trec_eval/results.test").read_bytes())
    want = score("qrels.trec", "results.trec", cwd=tmp_path)["runs"][0]  # type: ignore[index]
    for qrels in ("judged.txt", "qrels.jsonl"):
        for run in ("run.tsv", "run.jsonl"):
            got = score(qrels, run, cwd=tmp_path)["runs"][0]  # type: ignore[index]
            assert (got["queries"], got["mean"]) == (want["queries"], want["mean"]), (qrels, run)
    config = Config(root=tmp_path)
    kinds = {
        p: detect(tmp_path / p, (tmp_path / p).read_text(), config)
        for p in ("judged.txt", "qrels.jsonl", "run.tsv", "run.jsonl")
    }
    assert {p: f.name if f else None for p, f in kinds.items()} == {
        "judged.txt": "tsv-qrels", "qrels.jsonl": "jsonl-qrels", "run.tsv": "tsv-run", "run.jsonl": "jsonl-run"
    }  # fmt: skip


def test_a_row_without_its_columns_is_reported_where_it_is(tmp_path: Path) -> None:
    write(
        tmp_path / "q.jsonl",
        '{"query_id": "1", "doc_id": "a", "relevance": 1}\nnot json\n{"query_id": "1", "relevance": 1}\n',
    )
    r = qrels_lsp("check", "q.jsonl", "--format", "json", cwd=tmp_path)
    found = [
        (f["line"], f["code"]) for f in json.loads(r.stdout)["findings"] if f["code"] == "QR301"
    ]
    assert found == [(2, "QR301"), (3, "QR301")]


# -- BEIR in Parquet -----------------------------------------------------------------------------

CORPUS = [
    ("d1", "Resetting", "How to reset the router password after a failed login"),
    ("d2", "Billing", "Refunds take five days after the return is received"),
    ("d3", "Firmware", "Update the firmware from the admin page, then restart"),
    ("d4", "Login", "The app login fails when the password was changed"),
]
QUERIES = [
    ("q1", "reset router password"),
    ("q2", "refund days"),
    ("q3", "firmware update restart"),
]
QRELS = [("q1", "d1", 2), ("q1", "d4", 1), ("q2", "d2", 1), ("q3", "d3", 1), ("q3", "d9", 1)]


def beir_dataset(root: Path, parquet: bool) -> Path:
    """A BEIR dataset as BEIR writes it (JSONL, TSV), or as Hugging Face holds it (Parquet:
    qrels/test.parquet, corpus/ and queries/ folders of shards), written by pyarrow."""
    root.mkdir(parents=True)
    (root / "qrels").mkdir()
    docs = [{"_id": i, "title": t, "text": x} for i, t, x in CORPUS]
    questions = [{"_id": i, "text": x} for i, x in QUERIES]
    judged = {
        "query-id": [q for q, _, _ in QRELS],
        "corpus-id": [d for _, d, _ in QRELS],
        "score": [g for *_, g in QRELS],
    }
    if not parquet:
        write(root / "corpus.jsonl", "".join(json.dumps(d) + "\n" for d in docs))
        write(root / "queries.jsonl", "".join(json.dumps(q) + "\n" for q in questions))
        write(
            root / "qrels/test.tsv",
            "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, d, g in QRELS),
        )
        return root / "qrels/test.tsv"
    (root / "corpus").mkdir()
    (root / "queries").mkdir()
    pq.write_table(pa.Table.from_pylist(docs[:2]), root / "corpus/corpus-00000-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(docs[2:]), root / "corpus/corpus-00001-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(questions), root / "queries/queries-00000-of-00001.parquet")
    pq.write_table(pa.Table.from_pydict(judged), root / "qrels/test.parquet")
    return root / "qrels/test.parquet"


def test_parquet_dataset_scores_as_its_tsv_and_jsonl_form(tmp_path: Path) -> None:
    """The BM25 baseline needs the questions and the corpus, found beside the qrels in each
    layout: both forms give the same judgments, questions and documents, so the same numbers,
    the same corpus findings (d9 is judged and not in the corpus), in the command and the API."""
    plain = beir_dataset(tmp_path / "tsv" / "demo", parquet=False)
    hf = beir_dataset(tmp_path / "hf" / "demo", parquet=True)
    run = write(
        tmp_path / "run.trec",
        "".join(
            f"{q} Q0 {d} {i} {9 - i}.5 r\n"
            for q in ("q1", "q2", "q3")
            for i, d in enumerate(("d4", "d2", "d1", "d3"), 1)
        ),
    )
    got = {}
    for name, qrels in (("tsv", plain), ("hf", hf)):
        doc = score(qrels.relative_to(tmp_path), "run.trec", "--baseline", "bm25", cwd=tmp_path)
        got[name] = [(r["name"], r["queries"], r["mean"]) for r in doc["runs"]]  # type: ignore[attr-defined]
        assert [r[0] for r in got[name]] == ["run", "bm25 (built-in)"]
    assert got["tsv"] == got["hf"]
    assert got["hf"][1][2]["mrr"] > 0  # the baseline ranked the corpus with the questions
    findings = {}
    for name, qrels in (("tsv", plain), ("hf", hf)):
        r = qrels_lsp("check", qrels.relative_to(tmp_path), "--format", "json", cwd=tmp_path)
        findings[name] = sorted((f["code"], f["message"]) for f in json.loads(r.stdout)["findings"])
    assert findings["tsv"] == findings["hf"] and any(c == "QR106" for c, _ in findings["hf"])
    assert (
        api.evaluate(hf, run, ["nDCG@10"]).per_query
        == api.evaluate(plain, run, ["nDCG@10"]).per_query
    )
    assert run.exists()


def test_parquet_without_pyarrow_says_which_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(
        pa.Table.from_pydict({"query-id": ["q"], "corpus-id": ["d"], "score": [1]}), path
    )
    assert parquet_text(path.read_bytes())[0] is not None
    text, why = parquet_text(path.read_bytes(), limit=4)  # rows past a reader's cap: not unpacked
    assert text is None and why is not None and "unpacked" in why
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert parquet_text(path.read_bytes()) == (None, NO_PYARROW)
    assert "qrels-lsp[parquet]" in NO_PYARROW
    assert parquet_text(b"PAR1 but broken")[0] is None  # never raises


def test_the_api_reads_dataframe_columns_by_the_same_names() -> None:
    assert columns.first_of(["Query-ID", "Corpus-ID", "Score"], columns.QUERY) == "Query-ID"


def test_convert_reads_the_parquet_layout_with_its_questions(tmp_path: Path) -> None:
    beir_dataset(tmp_path / "hf" / "demo", parquet=True)
    (tmp_path / "evals").mkdir()
    r = qrels_lsp(
        "convert", "hf/demo/qrels/test.parquet", "-o", "evals/demo.qrels.yaml", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    from qrels_lsp.core.formats.golden import parse_golden

    golden = parse_golden((tmp_path / "evals/demo.qrels.yaml").read_text(encoding="utf-8"))
    assert {q: v.question for q, v in golden.queries.items()} == dict(QUERIES)
    assert golden.grades() == {q: {d: g for q2, d, g in QRELS if q2 == q} for q, _ in QUERIES}
    assert golden.corpus is not None and golden.corpus.value == "../hf/demo/corpus"


def test_a_qrels_table_binds_jsonl_judgments_to_parquet_questions_and_corpus(
    tmp_path: Path,
) -> None:
    """`[[qrels]]` takes the new formats as any other: the same baseline as the BEIR layout."""
    plain = beir_dataset(tmp_path / "tsv" / "demo", parquet=False)
    write(
        tmp_path / "data/judged.jsonl",
        "".join(
            json.dumps({"query_id": q, "doc_id": d, "relevance": g}) + "\n" for q, d, g in QRELS
        ),
    )
    pq.write_table(
        pa.Table.from_pylist([{"_id": i, "text": x} for i, x in QUERIES]),
        tmp_path / "data/q.parquet",
    )
    pq.write_table(
        pa.Table.from_pylist([{"_id": i, "title": t, "text": x} for i, t, x in CORPUS]),
        tmp_path / "data/c.parquet",
    )
    write(
        tmp_path / "qrels-lsp.toml",
        '[[qrels]]\npath = "data/judged.jsonl"\ntopics = "data/q.parquet"\ncorpus = "data/c.parquet"\n',
    )
    write(tmp_path / "run.trec", "q1 Q0 d1 1 2.0 r\nq2 Q0 d2 1 1.0 r\n")
    bound = score("data/judged.jsonl", "run.trec", "--baseline", "bm25", cwd=tmp_path)["runs"]
    beir = score(plain.relative_to(tmp_path), "run.trec", "--baseline", "bm25", cwd=tmp_path)[
        "runs"
    ]
    assert [(r["queries"], r["mean"]) for r in bound] == [(r["queries"], r["mean"]) for r in beir]  # type: ignore[attr-defined]


def test_an_empty_tsv_is_read_by_its_role(tmp_path: Path) -> None:
    """A `.tsv` whose content says nothing (empty): bound as qrels, BEIR's qrels (as it was before
    TSV with a header was read); matched by a run glob, a run, never judgments."""
    write(tmp_path / "data/judged.tsv", "")
    write(tmp_path / "runs/dense.tsv", "")
    write(
        tmp_path / "qrels-lsp.toml",
        'runs = ["runs/*.tsv"]\n\n[[qrels]]\npath = "data/judged.tsv"\n',
    )
    config = load_config(tmp_path)
    kinds = {p: detect(tmp_path / p, "", config) for p in ("data/judged.tsv", "runs/dense.tsv")}
    assert {p: f.name if f else None for p, f in kinds.items()} == {
        "data/judged.tsv": "beir-qrels",
        "runs/dense.tsv": "trec-run",
    }
