"""A golden set's comparison after an edit: while it is brought up to date (on the editor's
reports thread) the first line shows the last one, each lens marked as being updated, never
nothing and never a mix; once made, exactly what a fresh project computes of the new text."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLES
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.project.analysis import Analysis
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from qrels_lsp.ide.lenses import lens_groups
from qrels_lsp.ide.present import UPDATING

GOLDEN = "support.qrels.yaml"
EDIT = ("      kb/two-factor-authentication.md: 1\n", "")


def _header(analysis: Analysis) -> list[str]:
    top = [g for g in lens_groups(analysis) if g.qid is None]
    return [t for g in top for t in g.titles if " vs " in t]


def _project(root: Path, buffers: dict[Path, str]) -> Project:
    def read(path: Path) -> tuple[str | None, str | None]:
        if path in buffers:
            return buffers[path], None
        return read_text(path)  # (None, why) for a file that is not there, as a reader says

    return Project(load_config(root), read, boundary=Boundary.of([root]))


def _compared(tmp_path: Path) -> tuple[Path, Path, dict[Path, str], Project, Analysis]:
    """The demo workspace's golden set analysed and compared, as the editor first shows it;
    ``buffers`` are the editor's texts (none yet)."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    golden = (root / GOLDEN).resolve()
    buffers: dict[Path, str] = {}
    project = _project(root, buffers)
    first = project.analyse(golden)
    assert first is not None
    first = project.compare(first)
    assert first.compared
    return root, golden, buffers, project, first


def test_the_last_comparison_is_shown_marked_until_the_new_one_is_made(tmp_path: Path) -> None:
    root, golden, buffers, project, first = _compared(tmp_path)
    before = _header(first)
    assert len(before) >= 2 and not any(t.endswith(UPDATING) for t in before)

    text = golden.read_text(encoding="utf-8")
    assert EDIT[0] in text
    buffers[golden] = text.replace(*EDIT, 1)
    edited = project.analyse(golden)
    assert edited is not None and not edited.compared
    # what the editor starts as the edit's diagnostics go out: the analysis shown meanwhile
    staged, job = project.decisions.compare_job(edited)
    assert staged.previous is not None and edited.previous is None  # a new value, not a change
    assert _header(staged) == [t + UPDATING for t in before]  # the last one, all of it marked

    made = job()  # made (on the reports thread, in the editor)
    assert _header(staged) == [t + UPDATING for t in before]  # still what it was
    after = _header(made)
    assert not any(t.endswith(UPDATING) for t in after) and after != before
    fresh = _project(root, dict(buffers))
    again = fresh.analyse(golden)
    assert again is not None
    assert after == _header(fresh.compare(again))


def test_a_comparison_of_other_runs_is_not_shown_for_these(tmp_path: Path) -> None:
    """Removing a run from `runs:` changes what is compared: the last comparison is not shown
    (the lens says the comparison is being made instead)."""
    _root, golden, buffers, project, first = _compared(tmp_path)
    runs = [r.name for r in first.runs]
    text = golden.read_text(encoding="utf-8")
    runs_line = "runs: [runs/*.run.yaml, runs/*.trec]"
    assert runs_line in text
    buffers[golden] = text.replace(runs_line, "runs: [runs/*.run.yaml]", 1)
    edited = project.analyse(golden)
    assert edited is not None and len(edited.runs) < len(runs)
    staged, _job = project.decisions.compare_job(edited)
    assert staged.previous is None
    header = [t for g in lens_groups(staged) if g.qid is None for t in g.titles]
    assert any(t.startswith("comparing with ") for t in header), header
