"""BEIR's layout through `convert` and back: a BEIR dataset's qrels become a golden set with the
dataset's questions (queries.jsonl) and corpus (corpus.jsonl) written relative to the golden
set, and the golden set goes back to BEIR's qrels TSV and queries JSONL (or TREC qrels and
topics) with every judgment and question. The dataset is the demo's, laid out as BEIR lays out
its own: corpus.jsonl, queries.jsonl, qrels/test.tsv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.formats.beir_qrels import parse_beir_qrels
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.topics import parse_topics
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from test_cli import qrels_lsp, write


def demo() -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    golden = parse_golden((EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8"))
    grades = {q: g for q, g in golden.grades().items() if g}
    questions = {q: golden.queries[q].question or "" for q in grades}
    return grades, questions


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    grades, questions = demo()
    root = tmp_path / "beir" / "demo"
    corpus = EXAMPLES / "corpus"
    docs = [
        json.dumps(
            {"_id": p.relative_to(corpus).as_posix(), "title": "", "text": p.read_text("utf-8")}
        )
        for p in sorted(corpus.rglob("*.md"))
    ]
    write(root / "corpus.jsonl", "\n".join(docs) + "\n")
    queries = [json.dumps({"_id": q, "text": t}) for q, t in questions.items()]
    write(root / "queries.jsonl", "\n".join(queries) + "\n")
    lines = ["query-id\tcorpus-id\tscore"]
    lines += [f"{q}\t{d}\t{g}" for q, judged in grades.items() for d, g in judged.items()]
    write(root / "qrels" / "test.tsv", "\n".join(lines) + "\n")
    (tmp_path / "evals").mkdir()
    return tmp_path


def test_beir_to_a_golden_set_keeps_the_questions_and_finds_the_corpus(dataset: Path) -> None:
    grades, questions = demo()
    r = qrels_lsp("convert", "beir/demo/qrels/test.tsv", "-o", "evals/demo.qrels.yaml", cwd=dataset)
    assert r.returncode == 0, r.stderr
    golden = parse_golden((dataset / "evals" / "demo.qrels.yaml").read_text(encoding="utf-8"))
    assert golden.grades() == grades
    assert {q: golden.queries[q].question for q in grades} == questions
    assert golden.corpus is not None and golden.corpus.value == "../beir/demo/corpus.jsonl"
    check = qrels_lsp("check", "evals/demo.qrels.yaml", "--format", "json", cwd=dataset)
    found = json.loads(check.stdout)["findings"]
    assert not {f["code"] for f in found} & {"QR109", "QR112"}, check.stdout  # its corpus is read
    (unknown,) = [f for f in found if f["code"] == "QR106"]  # the demo's planted misspelling
    assert "Did you mean `errors/e1107-weak-backhaul.md`?" in unknown["message"]


def test_a_corpus_named_from_here_is_written_relative_to_the_output(dataset: Path) -> None:
    r = qrels_lsp(
        "convert", "beir/demo/qrels/test.tsv", "-o", "evals/g.qrels.yaml", "--corpus",
        "beir/demo/corpus.jsonl", "--runs", "runs/*.trec", cwd=dataset,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    golden = parse_golden((dataset / "evals" / "g.qrels.yaml").read_text(encoding="utf-8"))
    assert golden.corpus is not None and golden.corpus.value == "../beir/demo/corpus.jsonl"
    assert [ref.value for ref in golden.runs] == ["../runs/*.trec"]


@pytest.mark.parametrize(
    ("qrels", "topics"), [("back.tsv", "back.jsonl"), ("back.qrels", "back.trec")]
)
def test_a_round_trip_keeps_every_judgment_and_question(
    dataset: Path, qrels: str, topics: str
) -> None:
    grades, questions = demo()
    assert (
        qrels_lsp(
            "convert", "beir/demo/qrels/test.tsv", "-o", "g.qrels.yaml", cwd=dataset
        ).returncode
        == 0
    )
    r = qrels_lsp("convert", "g.qrels.yaml", "-o", qrels, "--topics", topics, cwd=dataset)
    assert r.returncode == 0, r.stderr
    text = (dataset / qrels).read_text(encoding="utf-8")
    parsed = parse_beir_qrels(text) if qrels.endswith(".tsv") else parse_trec_qrels(text)
    assert parsed.grades() == grades
    if qrels.endswith(".tsv"):
        assert text.startswith("query-id\tcorpus-id\tscore\n")
    back = parse_topics(topics, (dataset / topics).read_text(encoding="utf-8"))
    assert {q: t.text for q, t in back.items()} == {
        q: " ".join(t.split()) for q, t in questions.items()
    }
