"""The project graph both ways: a golden set's runs are its `runs:`, its `[[qrels]]` runs and
every run in the workspace whose `qrels:` names it; each lens names its run; a run beside a
golden set that names none is offered the line that binds it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytrec_eval
from fixtures import apply_edits, only
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from qrels_lsp.ide.lenses import REPORT_TITLE, lens_groups

GOLDEN = """\
k: 2
queries:
  q1:
    question: how do I reset
    relevant: [d1]
  q2:
    question: pairing fails
    relevant: {d2: 2, d3: 1}
"""

RUN_A = """\
# exported by the dense retriever
qrels: ../g.qrels.yaml
name: dense
results:
  q1: [d9, d1]
  q2: [d3, d2]
"""

RUN_B = """\
results:
  q1: [d1]
  q2: [d9, d8, d2]
"""


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "runs").mkdir()
    (tmp_path / "g.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    (tmp_path / "runs" / "dense.run.yaml").write_text(RUN_A, encoding="utf-8")
    return tmp_path


def _project(root: Path) -> Project:
    return Project(load_config(root), boundary=Boundary.of([root]))


def test_a_run_naming_the_golden_set_is_one_of_its_runs(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    analysis = _project(root).analyse(root / "g.qrels.yaml")
    assert analysis is not None and analysis.context is not None
    assert analysis.context.run_paths == [(root / "runs" / "dense.run.yaml").resolve()]
    [result] = analysis.runs
    assert result.name == "dense"
    # The numbers are pytrec_eval's on the same judgments and rankings.
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 2, "d3": 1}}
    run = {"q1": {"d9": 2.0, "d1": 1.0}, "q2": {"d3": 2.0, "d2": 1.0}}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    for qid, values in oracle.items():
        assert result.evaluation.per_query[qid]["mrr"] == values["recip_rank"]


def test_every_lens_names_its_run_even_when_there_is_one(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    analysis = _project(root).analyse(root / "g.qrels.yaml")
    assert analysis is not None
    groups = lens_groups(analysis)
    header = groups[0][1]
    assert len(header) == 1 and "dense: recall@2" in header[0]
    assert [g.titles for g in groups[1:] if g.action == "report"] == [(REPORT_TITLE,)]
    for _span, titles, qid, _action in (g for g in groups[1:] if g.action == "explain"):
        assert qid is not None and len(titles) == 1 and titles[0].startswith("dense: ")


def test_runs_listed_bound_and_naming_are_one_union(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    golden = GOLDEN.replace("k: 2\n", "k: 2\nruns: [runs/listed.run.yaml]\n")
    (root / "g.qrels.yaml").write_text(golden, encoding="utf-8")
    (root / "runs" / "listed.run.yaml").write_text(RUN_B, encoding="utf-8")
    (root / "runs" / "bound.run.yaml").write_text(RUN_B, encoding="utf-8")
    (root / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "g.qrels.yaml"\nruns = ["runs/bound.run.yaml"]\n', encoding="utf-8"
    )
    analysis = _project(root).analyse(root / "g.qrels.yaml")
    assert analysis is not None
    names = sorted(r.name for r in analysis.runs)
    assert names == ["bound", "dense", "listed"]


def test_a_run_naming_another_golden_set_is_not_counted(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "other.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    (root / "runs" / "dense.run.yaml").write_text(
        RUN_A.replace("../g.qrels.yaml", "../other.qrels.yaml"), encoding="utf-8"
    )
    project = _project(root)
    golden = project.analyse(root / "g.qrels.yaml")
    other = project.analyse(root / "other.qrels.yaml")
    assert golden is not None and other is not None
    assert [r.name for r in golden.runs] == []
    assert [r.name for r in other.runs] == ["dense"]


def test_an_edited_run_moves_to_the_golden_set_it_now_names(tmp_path: Path) -> None:
    """The editor's buffer of a run is analysed before its golden set: its new `qrels:` counts
    at once, with no disk change."""
    root = _workspace(tmp_path)
    (root / "other.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    buffers: dict[Path, str] = {}

    def read(path: Path) -> tuple[str | None, str | None]:
        if path in buffers:
            return buffers[path], None
        return read_text(path)  # (None, why) for a file that is not there, as a reader says

    project = Project(load_config(root), read, boundary=Boundary.of([root]))
    run = (root / "runs" / "dense.run.yaml").resolve()
    golden = project.analyse(root / "g.qrels.yaml")
    assert golden is not None and [r.name for r in golden.runs] == ["dense"]
    buffers[run] = RUN_A.replace("../g.qrels.yaml", "../other.qrels.yaml")
    project.analyse(run)
    golden = project.analyse(root / "g.qrels.yaml")
    other = project.analyse(root / "other.qrels.yaml")
    assert golden is not None and other is not None
    assert [r.name for r in golden.runs] == []
    assert [r.name for r in other.runs] == ["dense"]


def test_a_new_run_on_disk_appears_once_the_change_is_told(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    project = _project(root)
    assert len(project.analyse(root / "g.qrels.yaml").runs) == 1  # type: ignore[union-attr]
    new = root / "runs" / "late.run.yaml"
    new.write_text("qrels: ../g.qrels.yaml\n" + RUN_B, encoding="utf-8")
    project.forget(new)  # what file watching does
    analysis = project.analyse(root / "g.qrels.yaml")
    assert analysis is not None
    assert sorted(r.name for r in analysis.runs) == ["dense", "late"]


def test_an_unbound_run_beside_a_golden_set_gets_the_line_that_binds_it(tmp_path: Path) -> None:
    (tmp_path / "g.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    text = "# run of Tuesday\r\nname: tuesday  # keep\r\n" + RUN_B.replace("\n", "\r\n")
    path = tmp_path / "tuesday.run.yaml"
    path.write_bytes(text.encode("utf-8"))
    project = _project(tmp_path)
    analysis = project.analyse(path)
    assert analysis is not None
    unbound = only(analysis.findings, "QR207")
    [fix] = unbound.fixes
    assert fix.title == "Add `qrels: g.qrels.yaml`" and fix.preferred
    fixed = apply_edits(text, fix.edits)
    # One line added, in the file's own line break; everything the user wrote is kept.
    assert fixed == text.replace("results:", "qrels: g.qrels.yaml\r\nresults:")
    path.write_bytes(fixed.encode("utf-8"))
    project.forget(path)
    bound = project.analyse(path)
    assert bound is not None and bound.context is not None
    assert "QR207" not in [f.code for f in bound.findings]
    assert bound.context.path == (tmp_path / "g.qrels.yaml").resolve()


def test_no_fix_for_a_run_that_already_names_a_missing_golden_set(tmp_path: Path) -> None:
    (tmp_path / "g.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    path = tmp_path / "x.run.yaml"
    path.write_text("qrels: gone.qrels.yaml\n" + RUN_B, encoding="utf-8")
    analysis = _project(tmp_path).analyse(path)
    assert analysis is not None
    assert only(analysis.findings, "QR207").fixes == ()


def test_score_finds_the_runs_that_name_the_golden_set(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "score", "g.qrels.yaml", "--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    [run] = json.loads(out.stdout)["runs"]
    assert run["name"] == "dense"
