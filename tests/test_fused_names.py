"""A fused run is a run like any other on the command line: `score GOLDEN hybrid`, `gate --head
hybrid` and `pool GOLDEN hybrid` name a fusion of the BM25 baseline, whose index is built for
the command (a corpus past the editor's small size is indexed only when asked). The data: the
Vaswani collection (11,429 documents, 93 questions with their texts) and its BM25 run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from compare_data import grades
from conftest import TEST_DATA
from qrels_lsp.core.formats.topics import parse_topics
from test_cli import qrels_lsp, write

VASWANI = TEST_DATA / "vaswani"


def write_vaswani_fusion(root: Path) -> Path:
    """The Vaswani collection as a golden set with its corpus, its BM25 run as a run file
    (`terrier`) and a fusion of that run with the built-in baseline (`hybrid`)."""
    shutil.copytree(VASWANI / "corpus", root / "corpus")
    shutil.copyfile(VASWANI / "bm25_top100.run", root / "terrier.trec")
    topics = parse_topics("query-text.trec", (VASWANI / "query-text.trec").read_text("utf-8"))
    lines = [
        "corpus: corpus/doc-text.trec",
        "runs: [terrier.trec]",
        "fusions:",
        "  - {name: hybrid, method: rrf, runs: [bm25, terrier]}",
        "queries:",
    ]
    for qid, judged in grades().items():
        question = " ".join((topics[qid].text or "").split())
        docs = ", ".join(f"'{d}'" for d in judged)
        lines += [f"  '{qid}':", f"    question: {json.dumps(question)}", f"    relevant: [{docs}]"]
    return write(root / "g.qrels.yaml", "\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fused")
    write_vaswani_fusion(root)
    return root


def test_score_gate_and_pool_name_a_fusion_of_the_baseline(fused: Path) -> None:
    scored = qrels_lsp("score", "g.qrels.yaml", "hybrid", "--format", "json", cwd=fused)
    assert scored.returncode == 0, scored.stderr
    (run,) = json.loads(scored.stdout)["runs"]
    assert run["name"] == "hybrid" and run["n_queries"] == 93
    everything = qrels_lsp("score", "g.qrels.yaml", "--format", "json", "--summary", cwd=fused)
    listed = {r["name"]: r["mean"] for r in json.loads(everything.stdout)["runs"]}
    assert listed["hybrid"] == run["mean"]  # the same fused run as the golden set's own
    gate = qrels_lsp(
        "gate", "g.qrels.yaml", "--base", "terrier", "--head", "hybrid", "--metric", "recall@10",
        cwd=fused,
    )  # fmt: skip
    assert gate.returncode in (0, 1) and "hybrid against terrier" in gate.stdout, gate.stderr
    pooled = qrels_lsp("pool", "g.qrels.yaml", "hybrid", "--format", "json", cwd=fused)
    assert pooled.returncode == 0, pooled.stderr
    assert json.loads(pooled.stdout) and all(
        "hybrid" in entry["runs"] for entry in json.loads(pooled.stdout)
    )
