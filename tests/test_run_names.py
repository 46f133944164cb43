"""Runs named once (core/project/naming.py). The documented way to a run YAML, `convert
runs/hybrid.trec -o runs/hybrid.run.yaml --qrels ...`, leaves two runs called `hybrid` in the
demo's runs folder: each file says so (QR210, with a fix in the run YAML), the golden set says
so (QR121), every output shows each by name and file, and the copy is compared once, so Holm's
family and every p are what they were before the copy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_cli import qrels_lsp

GOLDEN = "support.qrels.yaml"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(EXAMPLES, root)
    return root


def compare(root: Path) -> dict:
    r = qrels_lsp("compare", GOLDEN, "--format", "json", cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def findings(root: Path, *paths: str) -> list[dict]:
    r = qrels_lsp("check", *paths, "--format", "json", cwd=root)
    return json.loads(r.stdout)["findings"]


def test_a_converted_copy_is_named_once_and_compared_once(demo: Path) -> None:
    before = compare(demo)
    made = qrels_lsp(
        "convert", "runs/hybrid.trec", "-o", "runs/hybrid.run.yaml", "--qrels", f"../{GOLDEN}",
        cwd=demo,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    after = compare(demo)
    runs = [c["run"] for c in after["comparisons"]]
    assert "hybrid (hybrid.run.yaml)" in runs and "hybrid" not in runs
    assert "hybrid (hybrid.trec)" not in runs  # the copy: compared once
    assert len(after["comparisons"]) == len(before["comparisons"])  # Holm's family unchanged
    renamed = {
        (c["run"].replace("hybrid (hybrid.run.yaml)", "hybrid"), c["metric"]): c
        for c in after["comparisons"]
    }
    for c in before["comparisons"]:
        assert renamed[(c["run"], c["metric"])]["p_adjusted"] == c["p_adjusted"], c["run"]

    found = findings(demo, GOLDEN, "runs/hybrid.trec", "runs/hybrid.run.yaml")
    (golden,) = [f for f in found if f["code"] == "QR121"]
    assert golden["path"] == GOLDEN and "`runs/hybrid.trec` ranks exactly as" in golden["message"]
    taken = {f["path"]: f for f in found if f["code"] == "QR210"}
    assert set(taken) == {"runs/hybrid.trec", "runs/hybrid.run.yaml"}
    assert taken["runs/hybrid.run.yaml"]["fixes"] == ["Name this run `hybrid-yaml`"]


def test_the_fix_names_the_run_yaml_and_the_clash_is_gone(demo: Path) -> None:
    qrels_lsp(
        "convert", "runs/hybrid.trec", "-o", "runs/hybrid.run.yaml", "--qrels", f"../{GOLDEN}",
        cwd=demo,
    )  # fmt: skip
    text = (demo / "runs" / "hybrid.run.yaml").read_text(encoding="utf-8")
    assert "name: hybrid\n" in text
    (demo / "runs" / "hybrid.run.yaml").write_text(
        text.replace("name: hybrid\n", "name: hybrid-yaml\n"), encoding="utf-8"
    )
    found = findings(demo, GOLDEN, "runs/hybrid.trec", "runs/hybrid.run.yaml")
    assert not [f for f in found if f["code"] in ("QR121", "QR210")]
    assert {"hybrid", "hybrid-yaml"} <= {c["run"] for c in compare(demo)["comparisons"]}


def test_a_fusion_naming_a_clashed_name_is_ambiguous(demo: Path) -> None:
    (demo / "runs" / "dense.trec").write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {10 - i} dense\n"
            for q, d, i in (("cant-login-app", "kb/account-login-problems.md", 0),)
        ),
        encoding="utf-8",
    )
    found = findings(demo, GOLDEN)
    assert any(f["code"] == "QR121" for f in found)
    unknown = [f for f in found if f["code"] == "QR116"]  # rrf fuses `dense`: which one?
    assert unknown and "dense (dense.run.yaml)" in unknown[0]["message"]


def test_the_built_in_baseline_is_never_mistaken_for_a_run_called_bm25(demo: Path) -> None:
    doc = compare(demo)
    assert doc["base"] == "bm25 (built-in)"
    r = qrels_lsp("compare", GOLDEN, "--metrics", "recall@5", cwd=demo)
    assert "note: `bm25` is a run file, not the built-in `bm25 (built-in)`" in r.stdout
    assert "their top 5 share" in r.stdout and "tokenizer" in r.stdout
