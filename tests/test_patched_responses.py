"""Lenses and outlines patched after an edit of one entry equal ones encoded afresh.

The encoders keep their last response's pieces and, when the analysis says it was made from the
last one by an edit of one entry, make anew only the changed questions' (and the lens header).
Random curating edits to the demo must give, every time, what a new encoder gives, and the
outline what lsprotocol itself would write.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.model import Qrels
from qrels_lsp.core.project.analysis import Analysis
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from qrels_lsp.lsp.convert import Positions
from qrels_lsp.lsp.encoders import LensEncoder, OutlineEncoder
from test_incremental_project import edits

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary


class Demo:
    """The demo in a folder, the golden set (and any file named) read from memory as edited."""

    def __init__(self, tmp_path: Path, *in_memory: str) -> None:
        root = tmp_path / "demo"
        shutil.copytree(EXAMPLES, root)
        self.golden = root / "support.qrels.yaml"
        paths = [self.golden, *(root / name for name in in_memory)]
        self.texts = {p: p.read_text(encoding="utf-8") for p in paths}
        self.project = Project(load_config(root), self.read, lens_metrics=True, boundary=ANYWHERE)

    def read(self, path: Path) -> tuple[str | None, str | None]:
        return (self.texts[path], None) if path in self.texts else read_text(path)


@pytest.mark.parametrize(("encoding", "run_edits"), [("utf-16", False), ("utf-8", True)])
def test_patched_lenses_equal_fresh_ones(
    tmp_path: Path, encoding: str, run_edits: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_edits``: a run's file changes too, now and then, between two edits of the golden
    set (a retriever re-run): other questions' numbers change along with the edited one's."""
    demo = Demo(tmp_path, "runs/hybrid.trec")
    golden, run = demo.texts  # (its paths)
    current, project = demo.texts, demo.project
    encoder = LensEncoder(str(golden))
    patched = {"n": 0}
    changes = LensEncoder._changes

    def counted(self: LensEncoder, *args: object) -> object:
        out = changes(self, *args)  # type: ignore[arg-type]
        if self is encoder and out is not None:
            patched["n"] += 1
        return out

    monkeypatch.setattr(LensEncoder, "_changes", counted)
    rng = random.Random(7)
    held: dict[int, tuple[bytearray, bytes]] = {}
    sending = random.Random(11)  # (its own stream: the edits stay those of the seed)
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
        ours = encoder.encode(pos, analysis)
        assert ours == LensEncoder(str(golden)).encode(pos, analysis)
        if sending.random() < 0.5:  # written to the editor: the next patch may write into it
            encoder.sent(ours)
        else:  # held (not sent yet): a patch must leave it as it was
            held[id(ours)] = (ours, bytes(ours))
        if not isinstance(analysis.model, Qrels) or not analysis.model.runs or broken(analysis):
            # the edit broke the file's top (its `runs:` is gone, or a line of a comment became
            # YAML): undo it, as its author would (the runs that name the golden set with
            # `qrels:` are still found)
            current[golden] = before
    assert all(bytes(data) == copy for data, copy in held.values())
    # Half the demo's edits add or remove a line, break the file or re-score everything (as a
    # re-read run does); the others must have been patched, or this would not test the patching.
    assert patched["n"] >= (10 if run_edits else 30), "edits in one entry and line are patched"


def broken(analysis: Analysis) -> bool:
    """A YAML syntax error (QR001): no entry of the file can be re-parsed alone until it goes."""
    return any(f.code == "QR001" for f in analysis.findings)


def test_lenses_of_a_golden_set_without_runs_are_patched(tmp_path: Path) -> None:
    """With no runs the questions have no lenses, only the header does: typing in a question
    patches the header, rather than building the response whole on every keystroke."""
    demo = Demo(tmp_path)
    golden = demo.golden
    for line in ("runs: [runs/*.run.yaml, runs/*.trec]\n", "corpus: corpus/\n"):  # no baseline
        demo.texts[golden] = demo.texts[golden].replace(line, "")
    for run in (golden.parent / "runs").glob("*.run.yaml"):  # nor runs that name it
        demo.texts[run] = run.read_text(encoding="utf-8").replace("qrels:", "# was:")
    encoder = LensEncoder(str(golden))
    patched = 0
    for _ in range(5):
        typed = demo.texts[golden].replace("i type my password", "i type my password!")
        demo.texts[golden] = typed
        analysis = demo.project.analyse(golden)
        assert analysis is not None and not analysis.runs
        pos = Positions(analysis.text, "utf-16")
        last = encoder._pieces.last(pos, analysis)
        assert analysis.context is not None
        patched += (
            last is not None and encoder._changes(pos, analysis, analysis.context, last) is not None
        )
        assert encoder.encode(pos, analysis) == LensEncoder(str(golden)).encode(pos, analysis)
    assert patched == 4  # all but the first


def test_a_lent_payload_is_patched_in_a_copy_until_it_is_sent() -> None:
    """A response handed out and not written yet never changes under its holder; once written,
    the next patch writes into the same bytes (no copy of a 30 MB response)."""
    from qrels_lsp.lsp.pieces import Payload

    payload = Payload([b'"a"', b'"b"'])
    payload.lent = True
    handed = payload.data
    copy = payload.patched({0: b'"c"'})
    assert copy is not payload and handed == b'["a","b"]' and copy.data == b'["c","b"]'
    assert copy.patched({1: b'"d"'}) is copy and copy.data == b'["c","d"]'  # not lent: in place


def test_a_payload_patches_in_place_or_joins_again() -> None:
    """Pieces of the same length are written over; a longer or shorter one joins the array
    again, and later patches land where the pieces now are."""
    from qrels_lsp.lsp.pieces import Payload

    payload = Payload([b'{"a":1}', b'{"b":22}', b'{"c":3}'])
    same = payload.patched({1: b'{"b":33}'})
    assert same is payload and bytes(same.data) == b'[{"a":1},{"b":33},{"c":3}]'
    longer = same.patched({0: b'{"a":100}', 2: b'{"c":4}'})
    assert bytes(longer.data) == b'[{"a":100},{"b":33},{"c":4}]'
    again = longer.patched({2: b'{"c":5}', 1: b'{"b":44}'})
    assert bytes(again.data) == b'[{"a":100},{"b":44},{"c":5}]'
    assert bytes(Payload([]).data) == b"[]"


def test_pieces_are_utf8_and_escape_only_lone_surrogates() -> None:
    """A piece is written in UTF-8 (a title's `·` in 2 bytes, not 6) and reads back as the value
    the escaping encoder gives, a lone surrogate from a file that is not UTF-8 included."""
    from qrels_lsp.lsp.pieces import LINE, PieceCache, compact_json

    value = {"line": LINE, "title": "recall@10 0.50 · MRR 0.33 ▲ | 🙂 q\udcff"}
    template, first = PieceCache().piece("k", 7, lambda: compact_json(value))
    data = template.at(first)
    data.decode("utf-8")  # valid UTF-8 as it is
    assert "·".encode() in data and b"\\u00b7" not in data
    assert json.loads(data) == json.loads(json.dumps(value)) | {"line": 7}
    assert len(data) < len(json.dumps(value, separators=(",", ":")))


def test_spliced_payloads_equal_arrays_joined_again() -> None:
    """Random patches (same length, other lengths, a few or many pieces at once) on a payload and
    on what it became: always the array a fresh join of the pieces gives, starts included."""
    import random

    from qrels_lsp.lsp.pieces import Payload

    rng = random.Random(19)
    parts = [b'{"q":%d}' % i for i in range(300)]
    payload = Payload(list(parts))
    for _ in range(200):
        n = rng.choice([1, 2, 3, 70])
        changes = {
            i: b'{"q":"%s"}' % (b"x" * rng.choice([0, 1, 5, len(parts[i]) - 8]))
            for i in rng.sample(range(len(parts)), n)
        }
        payload = payload.patched(changes)
        for i, part in changes.items():
            parts[i] = part
        fresh = Payload(list(parts))
        assert bytes(payload.data) == bytes(fresh.data)
        assert payload.starts.tolist() == fresh.starts.tolist()
        assert all(
            payload.data[s : s + len(p)] == p
            for s, p in zip(payload.starts[:-1], parts, strict=True)
        )


@pytest.mark.parametrize("limit", [5000, 12])
def test_patched_outlines_equal_lsprotocols(
    tmp_path: Path, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``limit``: documents listed under questions; the demo's 55 are over 12, and then the
    outline lists the questions only."""
    from pygls.protocol import default_converter
    from qrels_lsp.ide import outline
    from qrels_lsp.lsp.features import navigation

    monkeypatch.setattr(outline, "MAX_OUTLINE_CHILDREN", limit)
    demo = Demo(tmp_path)
    golden, project = demo.golden, demo.project
    encoder = OutlineEncoder()
    converter = default_converter()
    rng = random.Random(11)
    for _ in range(120):
        before = demo.texts[golden]
        demo.texts[golden] = edits(before, rng)
        analysis = project.analyse(golden)
        assert analysis is not None and isinstance(analysis.model, Qrels)
        pos = Positions(analysis.text, "utf-16")
        ours = json.loads(encoder.encode(pos, analysis))
        theirs = [navigation.symbol_of(s, pos) for s in outline.outline(analysis.model)]
        assert ours == converter.unstructure(theirs)
        if not analysis.runs:
            demo.texts[golden] = before


def test_an_outline_crossing_the_document_limit_is_made_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document added within a line (a flow list) changes no line, but may take the file over
    the limit for listing documents: then every symbol changes, not just the edited one's."""
    from pygls.protocol import default_converter
    from qrels_lsp.ide import outline
    from qrels_lsp.lsp.features import navigation

    demo = Demo(tmp_path)
    golden, project = demo.golden, demo.project
    first = project.analyse(golden)
    assert first is not None and isinstance(first.model, Qrels)
    total = sum(len(q.judgments) for q in first.model.queries.values())
    monkeypatch.setattr(outline, "MAX_OUTLINE_CHILDREN", total)
    encoder = OutlineEncoder()
    converter = default_converter()
    listed = "relevant: [kb/local-admin-page.md]"
    over = listed.replace("]", ", kb/factory-reset.md]")
    for old, new, children in ((listed, over, False), (over, listed, True)):
        shown = project.analyse(golden)
        assert shown is not None
        encoder.encode(Positions(shown.text, "utf-16"), shown)
        demo.texts[golden] = demo.texts[golden].replace(old, new)
        analysis = project.analyse(golden)
        assert analysis is not None and isinstance(analysis.model, Qrels)
        assert analysis.changed_since(shown) is not None  # one entry re-parsed: patch is tried
        pos = Positions(analysis.text, "utf-16")
        ours = json.loads(encoder.encode(pos, analysis))
        theirs = [navigation.symbol_of(s, pos) for s in outline.outline(analysis.model)]
        assert ours == converter.unstructure(theirs)
        assert ("children" in ours[0]) == children


def line_edits(text: str, rng: random.Random) -> str:
    """Lines added and removed inside entries (a note, a wrapped question), and typing."""
    notes = [m.start() for m in re.finditer(r"    # checked\n", text)]
    kind = rng.choice(["add", "add", "remove", "type"])
    if kind == "remove" and notes:
        at = rng.choice(notes)
        return text[:at] + text[at + len("    # checked\n") :]
    at = text.index("    question: ", rng.randrange(len(text) - 400))
    if kind == "type":
        at += len("    question: ") + 3
        return text[:at] + "e" + text[at:]
    return text[:at] + "    # checked\n" + text[at:]


def test_pieces_below_an_edit_that_adds_lines_are_moved(tmp_path: Path) -> None:
    """Enter in an entry moves every lens and symbol below it by whole lines: they are written
    again at their new lines from their templates, and must read as if made afresh."""
    from pygls.protocol import default_converter
    from qrels_lsp.ide import outline
    from qrels_lsp.lsp.features import navigation

    demo = Demo(tmp_path)
    golden = demo.golden
    lenses, outlines = LensEncoder(str(golden)), OutlineEncoder()
    converter = default_converter()
    rng = random.Random(3)
    moved = 0
    for _ in range(80):
        demo.texts[golden] = line_edits(demo.texts[golden], rng)
        analysis = demo.project.analyse(golden)
        assert analysis is not None and isinstance(analysis.model, Qrels)
        pos = Positions(analysis.text, "utf-16")
        last = lenses._pieces.last(pos, analysis)
        moved += last is not None and last.lines != 0
        assert lenses.encode(pos, analysis) == LensEncoder(str(golden)).encode(pos, analysis)
        symbols = json.loads(outlines.encode(pos, analysis))
        theirs = [navigation.symbol_of(s, pos) for s in outline.outline(analysis.model)]
        assert symbols == converter.unstructure(theirs)
    assert moved >= 30
