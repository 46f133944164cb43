"""Per-tag answers (`score --by tag`, `compare --by tag`, `gate --per-tag-max-drop`): a tag's
numbers are the numbers of the golden set filtered to that tag's questions, exactly, and its
comparison is a family of its own that says "too few to decide" short of the questions needed
(docs/compare.md, "Per tag").

The golden set is the Vaswani collection's (real judgments, tests/data/vaswani), its questions
tagged by their number; the runs are its BM25 run and one with the relevant documents of a
seeded third of the questions demoted (tests/compare_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_data import bm25, demoted, grades
from test_cli import qrels_lsp, write
from test_gate import golden as gate_golden
from test_gate import ranking, trec

TAGS = {0: ["even"], 1: ["odd"], 2: ["even", "third"]}


def tags_of(qid: str) -> list[str]:
    return TAGS[int(qid) % 3]


def golden_yaml(keep: set[str] | None = None) -> str:
    """The Vaswani judgments as a golden set with tags; ``keep``: only those questions."""
    lines = ["k: 10", "queries:"]
    for qid, judged in grades().items():
        if keep is not None and qid not in keep:
            continue
        relevant = ", ".join(f"'{d}': {g}" for d, g in judged.items())
        lines += [
            f"  '{qid}':",
            f"    question: question {qid}",
            f"    tags: [{', '.join(tags_of(qid))}]",
            f"    relevant: {{{relevant}}}",
        ]
    return "\n".join(lines) + "\n"


def run_text(rankings: dict[str, list[str]], tag: str) -> str:
    return "".join(
        f"{q} Q0 {d} {i + 1} {1000 - i} {tag}\n"
        for q, ids in rankings.items()
        for i, d in enumerate(ids)
    )


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tagged")
    write(root / "all.qrels.yaml", golden_yaml())
    write(root / "bm25.trec", run_text(bm25(), "bm25"))
    write(root / "demoted.trec", run_text(demoted(), "demoted"))
    for tag in ("even", "odd", "third"):
        keep = {q for q in grades() if tag in tags_of(q)}
        write(root / f"{tag}.qrels.yaml", golden_yaml(keep))
    return root


METRICS = "recall@10,ndcg@10,mrr,precision@5,map"


def cli_json(root: Path, *args: str) -> dict:
    r = qrels_lsp(*args, "--metrics", METRICS, "--format", "json", cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_tags_means_are_the_filtered_golden_sets(tagged: Path) -> None:
    whole = cli_json(tagged, "score", "all.qrels.yaml", "bm25.trec", "demoted.trec", "--by", "tag")
    for tag in ("even", "odd", "third"):
        alone = cli_json(tagged, "score", f"{tag}.qrels.yaml", "bm25.trec", "demoted.trec")
        for mine, theirs in zip(whole["runs"], alone["runs"], strict=True):
            assert mine["tags"][tag] == {"n": theirs["n_queries"], "mean": theirs["mean"]}
    assert set(whole["runs"][0]["tags"]) == {"even", "odd", "third"}


def test_a_tags_comparison_is_the_filtered_golden_sets(tagged: Path) -> None:
    whole = cli_json(
        tagged, "compare", "all.qrels.yaml", "bm25.trec", "demoted.trec", "--base", "bm25",
        "--by", "tag",
    )  # fmt: skip
    assert {c["tag"] for c in whole["comparisons"]} == {None, "even", "odd", "third"}
    plain = cli_json(
        tagged, "compare", "all.qrels.yaml", "bm25.trec", "demoted.trec", "--base", "bm25"
    )
    mine = [c for c in whole["comparisons"] if c["tag"] is None]
    assert [{k: v for k, v in c.items() if k not in ("tag", "n_queries")} for c in mine] == plain[
        "comparisons"
    ]
    for tag in ("even", "odd", "third"):
        alone = cli_json(
            tagged, "compare", f"{tag}.qrels.yaml", "bm25.trec", "demoted.trec", "--base", "bm25"
        )
        ours = [c for c in whole["comparisons"] if c["tag"] == tag]
        assert len(ours) == len(alone["comparisons"])  # Holm's family: this tag's metrics
        for c, theirs in zip(ours, alone["comparisons"], strict=True):
            assert c["n_queries"] == alone["n_queries"]
            same = ("delta", "ci95", "p_randomization", "p_adjusted", "p_ttest", "questions_needed")
            assert {k: c[k] for k in same} == {k: theirs[k] for k in same}
            needed = theirs["questions_needed"]
            if theirs["verdict"] == "too few questions to tell" or (
                needed is not None and c["n_queries"] < needed
            ):
                assert c["verdict"] == "too few to decide"
            else:
                assert c["verdict"] == theirs["verdict"]


def test_compare_by_tag_in_words(tagged: Path) -> None:
    r = qrels_lsp(
        "compare", "all.qrels.yaml", "bm25.trec", "demoted.trec", "--base", "bm25",
        "--by", "tag", "--metrics", "recall@10", cwd=tagged,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "By tag" in r.stdout and "third" in r.stdout
    markdown = qrels_lsp(
        "compare", "all.qrels.yaml", "bm25.trec", "demoted.trec", "--base", "bm25",
        "--by", "tag", "--format", "markdown", cwd=tagged,
    )  # fmt: skip
    assert "**By tag**" in markdown.stdout and "**third** (" in markdown.stdout


def two_tag_workspace(root: Path) -> Path:
    """40 fully judged questions, the first 20 tagged billing: the head loses both relevant
    documents' places on every billing question and gains them on every other one, so the
    whole set does not move while billing does."""
    text = gate_golden()
    for q in range(20):
        text = text.replace(f"  q{q:02d}:\n", f"  q{q:02d}:\n    tags: [billing]\n", 1)
    write(root / "g.qrels.yaml", text)
    base = {f"q{q:02d}": ranking(f"q{q:02d}", (0, 1) if q < 20 else (5, 7)) for q in range(40)}
    head = {f"q{q:02d}": ranking(f"q{q:02d}", (5, 7) if q < 20 else (0, 1)) for q in range(40)}
    write(root / "runs" / "base.trec", trec(base, "base"))
    write(root / "runs" / "head.trec", trec(head, "head"))
    return root / "g.qrels.yaml"


def test_the_gate_per_tag(tmp_path: Path) -> None:
    two_tag_workspace(tmp_path)
    args = ["gate", "g.qrels.yaml", "--base", "runs/base.trec", "--head", "runs/head.trec"]
    args += ["--metric", "recall@5", "--summary", "summary.md"]
    whole = qrels_lsp(*args, cwd=tmp_path)
    assert whole.returncode == 0, whole.stdout + whole.stderr  # the whole set did not move
    per_tag = qrels_lsp(*args, "--per-tag-max-drop", "0.05", cwd=tmp_path)
    assert per_tag.returncode == 1, per_tag.stdout + per_tag.stderr
    assert "tag billing (20 questions): recall@5 -1.0000 (worse" in per_tag.stdout
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "### By tag" in summary and "| billing | 20 | recall@5 | worse |" in summary
