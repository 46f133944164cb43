"""Quality hints: each reason on a corpus written for it, and leads on the demo."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.formats.corpus import Corpus, load_corpus
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project
from qrels_lsp.core.search.quality import (
    exact_tokens,
    miss_reasons,
    missed_judgments,
    quality_notes,
)

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary


def corpus_of(tmp_path: Path, docs: dict[str, str]) -> Corpus:
    for name, text in docs.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    corpus = load_corpus(tmp_path)
    assert isinstance(corpus, Corpus)
    return corpus


def test_reasons(tmp_path: Path) -> None:
    corpus = corpus_of(
        tmp_path,
        {
            "auth.md": "# Authentication failure\nCredentials rejected by the identity provider.",
            "codes.md": "# Error codes\nError E2000 means the node firmware is too old.",
            "wifi.md": "# Slow wifi\nMove the node closer; interference slows wifi.",
            "part1.md": "# Router ports\nThe router has two ethernet ports.",
            "part2.md": "# Guest network\nA guest network isolates visitors.",
        },
    )
    baseline = ["wifi.md"]  # BM25 found none of them in its top 1
    grades = {"auth.md": 1}
    [miss] = miss_reasons("can't log in", grades, baseline, 1, 1, corpus)
    assert miss.reason.startswith("no shared vocabulary")
    [miss] = miss_reasons("node says E1042 error", {"codes.md": 1}, baseline, 1, 1, corpus)
    assert "`e1042`" in miss.reason
    split = miss_reasons(
        "router ethernet ports guest network visitors lan",
        {"part1.md": 1, "part2.md": 1},
        baseline,
        1,
        1,
        corpus,
    )
    assert [m.reason.startswith("the answer is split") for m in split] == [True, True]
    assert exact_tokens("what does E1042 mean on the LM-300 Pro") >= {"e1042", "300", "pro"}


def test_missed_judgments_stop_at_the_first_relevant() -> None:
    ranking = ["a", "b", "judged0", "rel", "c"]
    assert missed_judgments({"rel": 1, "judged0": 0}, ranking, 1) == ["a", "b"]
    assert missed_judgments({"rel": 1}, ["rel", "a"], 1) == []


def test_demo_hover_notes() -> None:
    project = Project(Config(root=EXAMPLES), build_indexes=True, boundary=ANYWHERE)
    analysis = project.analyse(EXAMPLES / "support.qrels.yaml")
    assert analysis is not None and analysis.context is not None
    ctx = analysis.context
    assert isinstance(ctx.corpus, Corpus)
    [base] = [r for r in analysis.runs if r.baseline]
    query = ctx.qrels.queries["hot-router"]  # "router is really hot": the doc says "overheating"
    notes = quality_notes(
        query.question, query.grades(), base.rankings[query.qid], ctx.k, ctx.level, ctx.corpus
    )
    assert any("errors/e4001-overheating.md" in n and "no shared vocabulary" in n for n in notes)
