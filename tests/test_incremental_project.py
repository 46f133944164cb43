"""An analysis after edits equals a fresh project's analysis of the same text.

The project keeps per-query checks, grades and scores between analyses and derives a new
analysis from the last one when an edit touched one question; every number and finding must be
what a project that never saw the earlier texts computes.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.metrics import ScoreCache, default_metrics, evaluate
from qrels_lsp.core.project.analysis import Analysis
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary


def summary(a: Analysis) -> dict[str, object]:
    assert a.context is not None
    return {
        "findings": [(f.code, f.span, f.message, f.severity) for f in a.findings],
        "grades": a.context.grades,
        "unanswerable": a.context.unanswerable,
        "runs": [
            (
                r.name,
                r.evaluation.per_query,
                r.evaluation.mean,
                r.evaluation.n_queries,
                sorted(r.evaluation.missing),
                sorted(r.evaluation.unknown),
                sorted(r.evaluation.unanswerable),
            )
            for r in a.runs
        ],
    }


# Edits a person makes while curating: typing in a question, regrading, mistyping a doc id,
# marking a question unanswerable and back, and now and then something structural.
def edits(text: str, rng: random.Random) -> str:
    kind = rng.choice(["question", "question", "grade", "doc", "unanswerable", "anywhere"])
    if kind == "question":
        at = text.index("question: ", rng.randrange(len(text) - 400)) + len("question: ")
        at += rng.randrange(20)
        return (
            text[:at] + rng.choice(["x", "e ", "reset ", "😀", ""]) + text[at + rng.randrange(2) :]
        )
    if kind == "grade":
        at = text.find(": 3\n", rng.randrange(len(text)))
        return (
            text if at < 0 else text[:at] + rng.choice([": 1\n", ": 0\n", ": 2\n"]) + text[at + 4 :]
        )
    if kind == "doc":
        at = text.find(".md", rng.randrange(len(text)))
        return text if at < 0 else text[: at - 1] + rng.choice(["q", "", "s-"]) + text[at:]
    if kind == "unanswerable":
        if "    unanswerable: true\n" in text and rng.random() < 0.5:
            return text.replace("    unanswerable: true\n", "", 1)
        at = text.index("    question: ", rng.randrange(len(text) - 400))
        return text[:at] + "    unanswerable: true\n" + text[at:]
    at = rng.randrange(len(text))
    return text[:at] + rng.choice(["\n", " ", "x", ":"]) + text[at + rng.randrange(2) :]


def clean_entries(n: int) -> str:
    """``n`` more questions with no finding, so that few of the set's queries have any (the
    check cache then reads only theirs, in their order)."""
    words = ["router", "mesh", "guest", "firmware", "parental", "port", "band", "lights"]
    return "".join(
        f"\n  grown-{i}:\n    question: how do I change the {words[i % 8]} setting {i} from a laptop\n"
        "    relevant: [kb/local-admin-page.md]\n"
        for i in range(n)
    )


def assert_edits_equal_fresh(root: Path, seed: int, extra: int = 0) -> Analysis:
    golden = root / "support.qrels.yaml"
    current = {"text": golden.read_text(encoding="utf-8") + clean_entries(extra)}

    def reader(path: Path) -> tuple[str | None, str | None]:
        return (current["text"], None) if path == golden else read_text(path)

    config = load_config(root)
    editing = Project(config, reader, lens_metrics=True, boundary=ANYWHERE)
    rng = random.Random(seed)
    fresh = None
    for _ in range(60):
        current["text"] = edits(current["text"], rng)
        incremental = editing.analyse(golden)
        fresh = Project(config, reader, lens_metrics=True, boundary=ANYWHERE).analyse(golden)
        assert (incremental is None) == (fresh is None)
        if incremental is not None and fresh is not None:
            assert summary(incremental) == summary(fresh)
    assert fresh is not None
    return fresh


@pytest.mark.parametrize("seed", [1, *(pytest.param(s, marks=pytest.mark.slow) for s in (2, 3))])
def test_edited_analyses_equal_fresh_ones(tmp_path: Path, seed: int) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "demo")
    assert_edits_equal_fresh(tmp_path / "demo", seed)


@pytest.mark.parametrize("seed", [4, 5])
def test_edits_of_a_set_with_few_findings_equal_fresh_ones(tmp_path: Path, seed: int) -> None:
    """Most queries clean: the findings of an edited analysis are gathered from the few
    queries that have any, and must come out as a fresh check orders them."""
    shutil.copytree(EXAMPLES, tmp_path / "demo")
    last = assert_edits_equal_fresh(tmp_path / "demo", seed, extra=400)
    assert last.model is not None
    assert 8 * len({f.span.start for f in last.findings}) < len(last.model.queries)


def test_a_derived_evaluation_says_what_changed() -> None:
    """A run whose rankings are the last ones but for a few (the same lists elsewhere) is scored
    for those few, says which they were, and equals a fresh evaluation to the last bit."""
    rng = random.Random(5)
    docs = [f"d{i}" for i in range(40)]
    qrels = {f"q{i}": {d: rng.randint(0, 2) for d in rng.sample(docs, 6)} for i in range(30)}
    run = {q: rng.sample(docs, 20) for q in qrels if q not in ("q5", "q9")}  # two missing
    metrics = default_metrics(10)
    cache = ScoreCache()
    first = evaluate(qrels, run, metrics, cache=cache)
    assert first.since is None
    assert first.missing_ids() == {"q5", "q9"}  # (made now, and handed on to the next)
    changed = dict(run)
    changed["q3"] = rng.sample(docs, 20)
    changed["q17"] = list(reversed(run["q17"]))
    derived = evaluate(qrels, changed, metrics, cache=cache)
    assert derived.since is not None and derived.since.base is first.per_query
    assert derived.since.keys == {"q3", "q17"}
    fresh = evaluate(qrels, changed, metrics)
    assert (derived.per_query, derived.mean) == (fresh.per_query, fresh.mean)
    assert derived.missing_ids() == fresh.missing_ids() == set(fresh.missing) == {"q5", "q9"}


def copy_question(text: str, rng: random.Random) -> str:
    """Ask one question again in another entry (a duplicate, QR108), or reword one (which may
    end a duplicate): edits of one entry, so the duplicate check is updated, not redone."""
    lines = text.splitlines(keepends=True)
    asked = [i for i, line in enumerate(lines) if line.startswith("    question: ")]
    target = rng.choice(asked)
    if rng.random() < 0.6:
        lines[target] = lines[rng.choice(asked)]
    else:
        lines[target] = lines[target].rstrip("\n") + rng.choice([" now", "?", " (again)"]) + "\n"
    return "".join(lines)


@pytest.mark.parametrize("seed", [1, 2])
def test_duplicate_questions_after_edits_equal_a_fresh_check(tmp_path: Path, seed: int) -> None:
    root = tmp_path / "demo"
    shutil.copytree(EXAMPLES, root)
    golden = root / "support.qrels.yaml"
    current = {"text": golden.read_text(encoding="utf-8")}

    def reader(path: Path) -> tuple[str | None, str | None]:
        return (current["text"], None) if path == golden else read_text(path)

    config = load_config(root)
    editing = Project(config, reader, boundary=ANYWHERE)
    rng = random.Random(seed)
    seen = 0
    assert editing.analyse(golden, with_runs=False) is not None
    for _ in range(40):
        before, current["text"] = current["text"], copy_question(current["text"], rng)
        if current["text"] == before:
            continue
        incremental = editing.analyse(golden, with_runs=False)
        fresh = Project(config, reader, boundary=ANYWHERE).analyse(golden, with_runs=False)
        assert incremental is not None and fresh is not None
        assert incremental.edit is not None  # the path under test: one entry re-parsed
        found = [(f.code, f.span, f.message, f.related) for f in incremental.findings]
        assert found == [(f.code, f.span, f.message, f.related) for f in fresh.findings]
        seen = max(seen, sum(f.code == "QR108" for f in incremental.findings))
    assert seen >= 3  # duplicates were made (and so compared)
