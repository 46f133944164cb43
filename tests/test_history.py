"""``qrels-lsp diff``: what changed between two versions of a golden set, and each run's change
split into the golden set's part, the run's part and their interaction; every part checked
against differences of pytrec_eval evaluations of the very files, and git read without running
anything of the repository's (docs/history.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval
from history_repo import (
    NEW_GOLDEN,
    NEW_TREC,
    NEW_YAML,
    OLD_GOLDEN,
    OLD_TREC,
    OLD_YAML,
    ONLY_NEW_TREC,
    arm,
    git,
    make_repo,
    write,
)
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.history.changes import changes_after_edit, golden_changes
from qrels_lsp.core.history.git import GitError, Repository
from qrels_lsp.core.project.incremental import reparse
from test_cli import qrels_lsp

PYTREC = {
    "recall@5": "recall_5",
    "precision@5": "P_5",
    "mrr": "recip_rank",
    "ndcg@5": "ndcg_cut_5",
    "map": "map",
}
METRICS = ",".join(PYTREC)


def trec_scores(text: str) -> dict[str, dict[str, float]]:
    return {
        q: {d.doc_id: float(d.score or 0.0) for d in r.docs}
        for q, r in parse_trec_run(text).rankings.items()
    }


def yaml_scores(text: str) -> dict[str, dict[str, float]]:
    """A listed ranking as scores that give trec_eval the same order."""
    ranked = parse_run_yaml(text).ranked_ids()
    return {q: {d: float(len(ids) - i) for i, d in enumerate(ids)} for q, ids in ranked.items()}


def pytrec_values(
    golden_text: str, run: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    """pytrec_eval's value of every scored question (a question the run lacks: 0), by our names."""
    golden = parse_golden(golden_text)
    grades = golden.grades()
    scored = [q for q in grades if q not in golden.unanswerable()]
    evaluator = pytrec_eval.RelevanceEvaluator(grades, set(PYTREC.values()))
    found = evaluator.evaluate({q: docs for q, docs in run.items() if q in grades})
    return {
        q: {ours: found[q][theirs] if q in found else 0.0 for ours, theirs in PYTREC.items()}
        for q in scored
    }


def mean(values: dict[str, dict[str, float]], metric: str) -> float:
    return sum(v[metric] for v in values.values()) / len(values)


def diff_json(cwd: Path, *args: str | Path) -> dict[str, object]:
    r = qrels_lsp("diff", *args, "--format", "json", "--metrics", METRICS, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def assert_parts_are_pytrec_differences(
    change: dict[str, object], versions: tuple[tuple[str, dict[str, dict[str, float]]], ...]
) -> None:
    """Each part of ``change`` (a run's metric) is the difference of two pytrec_eval evaluations
    of the files (``versions``: (golden text, run) for 00, 01, 10, 11), to 1e-12; the three parts
    sum to the total as computed; and so does each question's."""
    metric = str(change["metric"])
    v00, v01, v10, v11 = (pytrec_values(g, r) for g, r in versions)
    m00, m01, m10, m11 = (mean(v, metric) for v in (v00, v01, v10, v11))
    assert change["before"] == pytest.approx(m00, abs=1e-12)
    assert change["after"] == pytest.approx(m11, abs=1e-12)
    assert change["total"] == pytest.approx(m11 - m00, abs=1e-12)
    assert change["judgments"] == pytest.approx(m01 - m00, abs=1e-12)
    assert change["run_change"] == pytest.approx(m10 - m00, abs=1e-12)
    assert change["interaction"] == pytest.approx(m11 - m01 - m10 + m00, abs=1e-12)
    assert change["total"] - change["judgments"] - change["run_change"] == change["interaction"]  # type: ignore[operator]
    questions: dict[str, dict[str, float | None]] = change["questions"]  # type: ignore[assignment]
    renamed = {"wifi-evening": "wifi"}  # new id -> old id
    for key in {*v11, *(q for q in v00 if q not in renamed.values())}:
        was = renamed.get(key, key)
        a, c = (v.get(was, {}).get(metric, 0.0) for v in (v00, v10))
        b, d = (v.get(key, {}).get(metric, 0.0) for v in (v01, v11))
        got = questions.get(key)
        if got is None:  # (only the questions that moved are listed)
            assert (d - a, b - a, c - a) == (0.0, 0.0, 0.0), (metric, key)
            continue
        assert got["total"] == pytest.approx(d - a, abs=1e-12), (metric, key)
        assert got["judgments"] == pytest.approx(b - a, abs=1e-12), (metric, key)
        assert got["run_change"] == pytest.approx(c - a, abs=1e-12), (metric, key)
        assert got["total"] - got["judgments"] - got["run_change"] == got["interaction"]  # type: ignore[operator]


def test_two_commits_split_exactly_into_pytrec_eval_differences(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    doc = diff_json(repo.root, "golden.qrels.yaml", "--against", "HEAD~1")
    assert doc["questions"] == {
        "added": ["pairing"],
        "removed": ["refund"],
        "renamed": [["wifi", "wifi-evening"]],  # a rename, not a removal and an addition
        "reworded": ["invoice"],
        "unanswerable": ["mars"],
    }
    assert doc["judgments"] == {
        "added": [["reset", "d4", 2], ["invoice", "d12", 2]],
        "removed": [["reset", "d7", 1], ["mars", "d11", 1]],
        "regraded": [["reset", "d1", 2, 1]],
    }
    assert doc["n"] == {"before": 5, "after": 4}
    changes: list[dict[str, object]] = doc["changes"]  # type: ignore[assignment]
    assert {(c["run"], c["metric"]) for c in changes} == {
        (run, m) for run in ("bm25", "dense", "fresh") for m in PYTREC
    }
    runs = {
        "bm25": (trec_scores(OLD_TREC), trec_scores(NEW_TREC)),
        "dense": (yaml_scores(OLD_YAML), yaml_scores(NEW_YAML)),
        "fresh": (trec_scores(ONLY_NEW_TREC), trec_scores(ONLY_NEW_TREC)),  # not in the first
    }
    for change in changes:
        r0, r1 = runs[str(change["run"])]
        versions = ((OLD_GOLDEN, r0), (NEW_GOLDEN, r0), (OLD_GOLDEN, r1), (NEW_GOLDEN, r1))
        assert_parts_are_pytrec_differences(change, versions)
    fresh = next(c for c in changes if c["run"] == "fresh")
    assert (fresh["run_change"], fresh["interaction"]) == (0.0, 0.0)
    assert "not read from HEAD~1" in str(fresh["note"])
    moved = next(c for c in changes if (c["run"], c["metric"]) == ("bm25", "recall@5"))
    questions: dict[str, dict[str, object]] = moved["questions"]  # type: ignore[assignment]
    assert questions["pairing"]["before"] is None and questions["refund"]["after"] is None


def test_two_files_keep_the_runs_the_same(tmp_path: Path) -> None:
    old = write(tmp_path / "old.qrels.yaml", OLD_GOLDEN)
    new = write(tmp_path / "new.qrels.yaml", NEW_GOLDEN)
    run = write(tmp_path / "bm25.trec", NEW_TREC)
    doc = diff_json(tmp_path, old, new, run)
    scores = trec_scores(NEW_TREC)
    for change in doc["changes"]:  # type: ignore[attr-defined]
        assert (change["run_change"], change["interaction"]) == (0.0, 0.0)
        versions = ((OLD_GOLDEN, scores), (NEW_GOLDEN, scores)) * 2
        assert_parts_are_pytrec_differences(
            change, (versions[0], versions[1], versions[0], versions[1])
        )


def test_text_and_markdown_say_the_same(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    text = qrels_lsp("diff", "golden.qrels.yaml", "--against", "HEAD~1", cwd=repo.root)
    assert text.returncode == 0, text.stderr
    first = text.stdout.splitlines()[0]
    assert first.startswith("golden.qrels.yaml (working tree) since HEAD~1 (")
    assert "+1 question, -1 question, 1 renamed, 1 reworded" in first
    assert "renamed: wifi → wifi-evening" in text.stdout
    assert "means over 5 questions before and 4 after" in text.stdout
    md = qrels_lsp(
        "diff", "golden.qrels.yaml", "--against", "HEAD~1", "--format", "markdown", cwd=repo.root
    )
    assert md.returncode == 0, md.stderr
    assert "| run | metric | before | after | total | judgments | run | interaction |" in md.stdout


def test_default_base_is_the_merge_base_with_the_default_branch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit_second=False)  # main holds the first version
    git(repo.root, "checkout", "-q", "-b", "topic")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "-m", "on a branch")
    alone = qrels_lsp("diff", "golden.qrels.yaml", "--format", "json", cwd=repo.root)
    assert alone.returncode == 0, alone.stderr
    doc = json.loads(alone.stdout)
    assert doc["old"].startswith("main (")
    assert doc["questions"]["renamed"] == [["wifi", "wifi-evening"]]


def test_git_runs_nothing_of_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    marker = arm(repo)
    # The trap is armed: git's own porcelain runs it (the fsmonitor, the textconv).
    git(repo.root, "status", "--short")
    git(repo.root, "show", "--textconv", "HEAD~1:golden.qrels.yaml")
    assert marker.exists()
    marker.unlink()
    for fmt in ("text", "json"):
        r = qrels_lsp(
            "diff", "golden.qrels.yaml", "--against", "HEAD~1", "--format", fmt, cwd=repo.root
        )
        assert r.returncode == 0, r.stderr
    r = qrels_lsp(
        "diff", "golden.qrels.yaml", cwd=repo.root
    )  # the merge base: rev-parse, merge-base
    assert r.returncode == 0, r.stderr
    assert not marker.exists()


def test_git_problems_are_said_clearly(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    write(plain / "g.qrels.yaml", NEW_GOLDEN)
    r = qrels_lsp("diff", "g.qrels.yaml", "--against", "HEAD", cwd=plain)
    assert r.returncode == 2
    assert "is not in a git checkout" in r.stderr and "Traceback" not in r.stderr
    repo = make_repo(tmp_path / "repo")
    for rev, said in (
        ("--output=x", "may not start with `-`"),
        ("nosuch", "no commit 'nosuch'"),
        ("HEAD\n", "no blank or control character"),
    ):
        r = qrels_lsp("diff", "golden.qrels.yaml", f"--against={rev}", cwd=repo.root)
        assert r.returncode == 2 and said in r.stderr, r.stderr
    assert not (repo.root / "x").exists()


def test_a_missing_git_binary_is_said(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    bin_dir = tmp_path / "bin"  # a PATH with python and no git
    bin_dir.mkdir()
    env = {**os.environ, "PATH": str(bin_dir), "PYTHONIOENCODING": "utf-8"}
    r = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "diff", "golden.qrels.yaml", "--against", "HEAD"],
        cwd=repo.root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2
    assert "git is not installed" in r.stderr


def test_a_golden_set_new_since_the_base_is_all_added(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    other = write(repo.root / "other.qrels.yaml", NEW_GOLDEN)
    r = qrels_lsp("diff", other, "--against", "HEAD", "--format", "json", cwd=repo.root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["questions"]["added"] == [
        "reset",
        "wifi-evening",
        "invoice",
        "mars",
        "pairing",
    ]
    assert "not in" in r.stderr


def test_repository_reads_only_blobs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    found = Repository.of(repo.golden)
    assert found.root == repo.root.resolve()
    base = found.base("HEAD~1")
    assert found.read(base.commit, repo.golden) == (OLD_GOLDEN, None)
    text, problem = found.read(base.commit, repo.fresh)
    assert text is None and problem is not None and problem.startswith("not in")
    with pytest.raises(GitError, match="not in a git checkout"):
        Repository.of(tmp_path)
    assert shutil.which("git")


# -- the golden diff --------------------------------------------------------------------------


def test_a_rename_needs_the_same_question_and_judgments() -> None:
    old = parse_golden(
        "queries:\n  a:\n    question: x\n    relevant: [d1]\n  b:\n    question: y\n    relevant: [d2]\n"
    )
    new = parse_golden(
        "queries:\n  a2:\n    question: x\n    relevant: [d1]\n  b2:\n    question: y2\n    relevant: [d2]\n"
    )
    found = golden_changes(old, new)
    assert found.renamed == (("a", "a2"),)
    assert (found.added, found.removed) == (("b2",), ("b",))


def test_an_edit_of_one_entry_updates_the_diff_as_a_fresh_one() -> None:
    old = parse_golden(OLD_GOLDEN)
    text = NEW_GOLDEN
    model = parse_golden(text)
    last = golden_changes(old, model)
    edits = [
        ("relevant: [d4, d13]", "relevant: [d5, d6]"),  # pairing judged as `refund` was
        ("the app cannot pair with the hub", "how long is the refund window"),  # now a rename
        ("{d1: 1, d2: 1, d4: 2}", "{d1: 2, d2: 1, d7: 1}"),  # reset as it was
        ("where can I find my invoice", "where is my invoice"),
        ("how long is the refund window", "how long is the return window"),  # no rename again
    ]
    for before, after in edits:
        new_text = text.replace(before, after)
        reparsed = reparse(text, model, new_text)
        assert reparsed is not None and reparsed[1] is not None
        model, edit = reparsed
        last = changes_after_edit(last, old, model, edit.qid, {})  # type: ignore[union-attr]
        assert last == golden_changes(old, parse_golden(new_text)), before
        text = new_text
    assert last.renamed == (("wifi", "wifi-evening"),) and last.added == ("pairing",)
    assert "reset" not in last.changed and "invoice" in last.changed  # (d12 still added)
