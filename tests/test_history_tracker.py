"""The editor's history (core/history/tracker.py) kept up to date edit after edit equals one made
afresh for the same text, and equals what `qrels-lsp diff` computes (core/history/diff.py);
a folder outside git, or the setting off, has none, and git is not asked again per keystroke."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from history_repo import NEW_GOLDEN, OLD_GOLDEN, make_repo
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.history import git as git_module
from qrels_lsp.core.history.diff import History, RunVersions, history
from qrels_lsp.core.history.versions import context_scoring, scoring_of
from qrels_lsp.core.model import Qrels
from qrels_lsp.core.project.config import Config, load_config
from qrels_lsp.core.project.project import Project

EDITS = [
    ("{d1: 1, d2: 1, d4: 2}", "{d1: 1, d2: 3, d4: 2}"),  # a regrade
    ("relevant: [d4, d13]", "relevant: [d5, d6]"),  # the new question judged as `refund` was
    ("the app cannot pair with the hub", "how long is the refund window"),  # now its rename
    ("where can I find my invoice", "where is my invoice"),  # not reworded any more
    ("how long is the refund window", "how long is the return window"),  # no rename again
    ("    unanswerable: true\n", "    unanswerable: true\n    tags: [x]\n"),
]


def editor(root: Path, texts: dict[Path, str], config: Config | None = None) -> Project:
    """A project reading ``texts`` before the disk, as the editor's buffers are."""

    def read(path: Path) -> tuple[str | None, str | None]:
        return (texts[path], None) if path in texts else read_text(path)

    config = config or replace(load_config(root), diff_base="auto")  # (off by default)
    return Project(config, read, boundary=Boundary.of([root]), lens_metrics=True)


def made(project: Project, golden: Path) -> History | None:
    analysis = project.analyse(golden)
    assert analysis is not None
    return project.history(analysis).history


def test_edit_after_edit_equals_a_fresh_history(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit_second=False)
    golden = repo.golden.resolve()
    texts = {golden: NEW_GOLDEN}
    kept = editor(repo.root, texts)
    first = made(kept, golden)
    assert first is not None and first.base == "main" and first.problem is None
    text = NEW_GOLDEN
    for before, after in EDITS:
        text = text.replace(before, after)
        texts[golden] = text
        now = made(kept, golden)
        fresh = made(editor(repo.root, {golden: text}), golden)
        assert now is not None and fresh is not None
        assert now.lineage == first.lineage  # brought up to date, not made again
        assert replace(now, lineage=0) == replace(fresh, lineage=0), before
        assert now.runs and now.runs[0].changes[0].questions


def test_the_editor_says_what_diff_says(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit_second=False)
    golden = repo.golden.resolve()
    project = editor(repo.root, {})
    found = made(project, golden)
    assert found is not None
    ctx = project.analyse(golden).context  # type: ignore[union-attr]
    assert ctx is not None
    old = project.load(golden)[2]
    assert isinstance(old, Qrels)
    from qrels_lsp.core.formats.golden import parse_golden

    before = scoring_of(parse_golden(OLD_GOLDEN), None, project.config, lens=True)
    runs = []
    for r in found.runs:
        path = next(p for p in ctx.run_paths if project.runs.read_run(p, fast=True)[3] == r.name)
        new = project.runs.read_run(path, fast=True)[1]
        runs.append(RunVersions(r.name, _old_run(repo.root, path, new), new))
    whole = history(
        "main", golden.name, parse_golden(OLD_GOLDEN), ctx.qrels, before, context_scoring(ctx), runs
    )
    for mine, theirs in zip(found.runs, whole.runs, strict=True):
        for a, b in zip(mine.changes, theirs.changes, strict=True):
            assert (a.metric, a.mean, a.n_before, a.n_after) == (
                b.metric,
                b.mean,
                b.n_before,
                b.n_after,
            )
            if a.questions:  # (the head metric's: the editor keeps those)
                assert a.questions == b.questions
    assert found.changes == whole.changes


def _old_run(root: Path, path: Path, new: object) -> dict[str, list[str]]:
    from history_repo import OLD_TREC, OLD_YAML
    from qrels_lsp.core.formats.run_yaml import parse_run_yaml
    from qrels_lsp.core.formats.trec_run import parse_trec_run

    if path.name == "bm25.trec":
        return parse_trec_run(OLD_TREC).ranked_ids()
    if path.name == "dense.run.yaml":
        return parse_run_yaml(OLD_YAML).ranked_ids()
    return new  # type: ignore[return-value]  # (fresh.trec: not in the first commit)


def test_no_history_outside_git_or_when_off(tmp_path: Path, monkeypatch: object) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    golden = plain / "g.qrels.yaml"
    golden.write_text(NEW_GOLDEN, encoding="utf-8")
    calls = []
    real = git_module._run

    def counted(folder: Path, *args: str) -> object:
        calls.append(args)
        return real(folder, *args)

    monkeypatch.setattr(git_module, "_run", counted)  # type: ignore[attr-defined]
    project = editor(plain, {})
    for _ in range(3):
        assert made(project, golden) is None
    assert len(calls) == 1  # asked once: not a checkout, remembered
    repo = make_repo(tmp_path / "repo", commit_second=False)
    off = editor(repo.root, {}, replace(load_config(repo.root), diff_base=None))
    assert made(off, repo.golden.resolve()) is None
    named = editor(repo.root, {}, replace(load_config(repo.root), diff_base="nosuch"))
    found = made(named, repo.golden.resolve())
    assert (
        found is not None
        and found.problem == f"no commit 'nosuch' in the repository at {repo.root.resolve()}"
    )


def test_the_setting_takes_a_revision_or_off() -> None:
    from qrels_lsp.core.project.config import Config, config_from_mapping

    def base(value: object) -> tuple[object, list[str]]:
        config = config_from_mapping({"diff_base": value}, Config())
        return config.diff_base, [f.message for f in config.findings]

    assert base("main") == ("main", []) and base(" HEAD~1 ") == ("HEAD~1", [])
    assert base("off") == (None, []) and base(False) == (None, [])
    value, said = base("--output=/tmp/x")  # never an option to git
    assert value is None and "may not start with `-`" in said[0]  # the default: off
    assert base(3)[1] and base("a b")[1]


def test_a_commit_moves_the_base_and_nothing_else_does(tmp_path: Path) -> None:
    from history_repo import git

    repo = make_repo(tmp_path / "repo", commit_second=False)
    golden = repo.golden.resolve()
    project = editor(repo.root, {})
    first = made(project, golden)
    assert first is not None and first.changes
    project.forget(repo.root / ".git" / "index")  # `git status` in the editor: not a move
    project.forget(repo.root / ".git" / "HEAD")  # looked at again: the same commit
    again = made(project, golden)
    assert again is not None and again.lineage == first.lineage
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "-m", "second")
    project.forget(repo.root / ".git" / "refs" / "heads" / "main")
    moved = made(project, golden)
    assert moved is not None and moved.lineage != first.lineage
    assert not moved.changes  # the golden set is as main holds it now
