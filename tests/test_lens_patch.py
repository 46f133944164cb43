"""Lenses patched after an edit of one entry equal lenses encoded afresh.

The lens encoder keeps its last response's pieces and, when the analysis says it was made from
the last one by an edit of one entry, makes anew only the header and the changed questions'.
Random curating edits to the demo must give, every time, what a new encoder gives.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.config import load_config
from qrels_lsp.core.files import read_text
from qrels_lsp.core.project import Project
from qrels_lsp.lsp.convert import Positions
from qrels_lsp.lsp.lenses import LensEncoder
from test_incremental_project import edits


@pytest.mark.parametrize(("encoding", "run_edits"), [("utf-16", False), ("utf-8", True)])
def test_patched_lenses_equal_fresh_ones(
    tmp_path: Path, encoding: str, run_edits: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_edits``: a run's file changes too, now and then, between two edits of the golden
    set (a retriever re-run): other questions' numbers change along with the edited one's."""
    root = tmp_path / "demo"
    shutil.copytree(EXAMPLES, root)
    golden = root / "support.qrels.yaml"
    run = root / "runs" / "hybrid.trec"
    current = {golden: golden.read_text(encoding="utf-8"), run: run.read_text(encoding="utf-8")}

    def reader(path: Path) -> tuple[str | None, str | None]:
        return (current[path], None) if path in current else read_text(path)

    project = Project(load_config(root), reader, lens_metrics=True)
    encoder = LensEncoder(str(golden))
    full = {"n": 0}
    encode_all = LensEncoder._encode_all

    def counted(self: LensEncoder, *args: object) -> object:
        if self is encoder:
            full["n"] += 1
        return encode_all(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(LensEncoder, "_encode_all", counted)
    rng = random.Random(7)
    for _ in range(120):
        before = current[golden]
        current[golden] = edits(before, rng)
        if run_edits and rng.random() < 0.3:  # one result of one question goes
            lines = current[run].splitlines(keepends=True)
            del lines[rng.randrange(len(lines))]
            current[run] = "".join(lines)
        analysis = project.analyse(golden)
        assert analysis is not None
        pos = Positions(analysis.text, encoding)  # type: ignore[arg-type]
        assert encoder.encode(pos, analysis) == LensEncoder(str(golden)).encode(pos, analysis)
        if not analysis.runs:  # the edit broke the file's top: undo it, as its author would
            current[golden] = before
    # Half the demo's edits add or remove a line, break the file or re-score everything (as a
    # re-read run does); the others must have been patched, or this would not test the patching.
    assert full["n"] <= (110 if run_edits else 90), "edits in one entry and line are patched"


def test_a_payload_patches_in_place_or_joins_again() -> None:
    """Pieces of the same length are written over; a longer or shorter one joins the array
    again, and later patches land where the pieces now are."""
    from qrels_lsp.lsp.lenses import _Payload

    payload = _Payload([b'{"a":1}', b'{"b":22}', b'{"c":3}'])
    same = payload.patched({1: b'{"b":33}'})
    assert same is payload and bytes(same.data) == b'[{"a":1},{"b":33},{"c":3}]'
    longer = same.patched({0: b'{"a":100}', 2: b'{"c":4}'})
    assert bytes(longer.data) == b'[{"a":100},{"b":33},{"c":4}]'
    again = longer.patched({2: b'{"c":5}', 1: b'{"b":44}'})
    assert bytes(again.data) == b'[{"a":100},{"b":44},{"c":5}]'
    assert bytes(_Payload([]).data) == b"[]"
