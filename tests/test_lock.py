"""The lock (``qrels-lsp lock``) and the stale judgments it reveals (QR130-QR133): documents
deleted, changed or cut differently since they were judged, each on its judgment's line, first
in the judging queue, and an unchanged corpus costing no read after the first check
(docs/history.md, "Stale judgments")."""

from __future__ import annotations

import json
import os
from pathlib import Path

from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.history.hashes import Content, content_of
from qrels_lsp.core.history.lock import lock_path, parse_lock
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from test_cli import qrels_lsp, write

DOCS = {
    f"kb/doc{i}.md": "".join(f"line {j} of document {i}\n" for j in range(1, 9)) for i in range(8)
}
GOLDEN = """\
judgments: exhaustive
corpus: corpus/
queries:
  q0:
    question: first
    relevant: [kb/doc0.md, kb/doc1.md]
  q1:
    question: second
    relevant: {kb/doc2.md: 2, kb/doc3.md: 1}
  q2:
    question: third
    relevant: [kb/doc4.md]
  q3:
    question: fourth
    relevant: [kb/doc5.md, kb/doc6.md]
"""
RUN = "q0 Q0 kb/doc7.md 1 3 r\nq0 Q0 kb/doc0.md 2 2 r\nq2 Q0 kb/doc7.md 1 1 r\n"


def workspace(root: Path) -> Path:
    for doc_id, text in DOCS.items():
        write(root / "corpus" / doc_id, text)
    return write(root / "g.qrels.yaml", GOLDEN)


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first ``needle`` in ``text``."""
    return text[: text.index(needle)].count("\n") + 1


def check_json(root: Path) -> list[dict[str, object]]:
    r = qrels_lsp("check", "--format", "json", "g.qrels.yaml", cwd=root)
    return json.loads(r.stdout)["findings"]  # type: ignore[no-any-return]


def test_three_edits_and_a_deletion_are_four_findings_on_their_lines(tmp_path: Path) -> None:
    golden = workspace(tmp_path)
    r = qrels_lsp("lock", "g.qrels.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "7 judged documents locked" in r.stderr
    assert check_json(tmp_path) == []  # an unchanged corpus: nothing
    corpus = tmp_path / "corpus" / "kb"
    (corpus / "doc1.md").write_text(DOCS["kb/doc1.md"].replace("line 5 of", "LINE 5 OF"))
    (corpus / "doc3.md").write_text(DOCS["kb/doc3.md"] + "a line more\n")
    (corpus / "doc6.md").write_text("rewritten\n")
    (corpus / "doc4.md").unlink()
    (corpus / "doc7.md").write_text("not judged: no finding\n")
    found = check_json(tmp_path)
    text = golden.read_text()
    assert sorted((f["line"], f["code"]) for f in found) == sorted(  # type: ignore[type-var]
        [
            (line_of(text, "kb/doc1.md"), "QR131"),
            (line_of(text, "kb/doc3.md"), "QR131"),
            (line_of(text, "kb/doc4.md"), "QR130"),  # (and not QR106: the lock says more)
            (line_of(text, "kb/doc6.md"), "QR131"),
        ]
    )
    said = {f["line"]: f["message"] for f in found}
    assert "first difference at line 5" in str(said[line_of(text, "kb/doc1.md")])
    size = len(DOCS["kb/doc3.md"])
    sizes = f"{size} → {size + len('a line more') + 1} bytes, first difference at line 9"
    assert sizes in str(said[line_of(text, "kb/doc3.md")])
    assert "first difference at line 1" in str(said[line_of(text, "kb/doc6.md")])


def test_pool_lists_the_stale_pairs_first(tmp_path: Path) -> None:
    workspace(tmp_path)
    run = write(tmp_path / "r.trec", RUN)
    assert qrels_lsp("lock", "g.qrels.yaml", cwd=tmp_path).returncode == 0
    (tmp_path / "corpus" / "kb" / "doc0.md").write_text("changed\n")
    (tmp_path / "corpus" / "kb" / "doc5.md").unlink()
    r = qrels_lsp("pool", "g.qrels.yaml", run, "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pairs = [(p["query"], p["doc"], p.get("stale")) for p in json.loads(r.stdout)]
    assert pairs == [
        ("q0", "kb/doc0.md", "QR131"),  # retrieved by the run: first of the stale ones
        ("q3", "kb/doc5.md", "QR130"),
        ("q0", "kb/doc7.md", None),
        ("q2", "kb/doc7.md", None),
    ]
    table = qrels_lsp("pool", "g.qrels.yaml", run, cwd=tmp_path)
    assert "2 stale judgments (judge them again) and 2 unjudged" in table.stdout


def test_the_accept_fix_rewrites_one_line_of_the_lock(tmp_path: Path) -> None:
    workspace(tmp_path)
    assert qrels_lsp("lock", "g.qrels.yaml", cwd=tmp_path).returncode == 0
    (tmp_path / "corpus" / "kb" / "doc2.md").write_text("new text\n")
    project = _project(tmp_path)
    analysis = project.analyse(tmp_path / "g.qrels.yaml")
    assert analysis is not None
    (stale,) = [f for f in analysis.findings if f.code == "QR131"]
    (fix,) = stale.fixes
    (edit,) = fix.edits
    lock = lock_path(tmp_path / "g.qrels.yaml")
    assert edit.path == str(lock)
    before = lock.read_text()
    after = before[: edit.span.start] + edit.new_text + before[edit.span.end :]
    assert [a == b for a, b in zip(before.splitlines(), after.splitlines(), strict=True)].count(
        False
    ) == 1
    lock.write_text(after)
    assert check_json(tmp_path) == []


def test_an_unchanged_corpus_is_read_once(tmp_path: Path) -> None:
    golden = workspace(tmp_path)
    assert qrels_lsp("lock", "g.qrels.yaml", cwd=tmp_path).returncode == 0
    doc = tmp_path / "corpus" / "kb" / "doc0.md"
    doc.write_text(DOCS["kb/doc0.md"])  # the same text, another time: the fingerprint differs
    os.utime(doc, ns=(1, 1))
    project = _project(tmp_path)
    analysis = project.analyse(golden)
    assert analysis is not None and not [f for f in analysis.findings if f.code.startswith("QR13")]
    hashes = project.contexts._locks.hashes
    first = hashes.reads
    assert first == 7  # every judged document, once
    text = golden.read_text()
    for n in range(3):  # edits of one entry: nothing is read again
        text = text.replace("question: third", f"question: third{n}")
        golden.write_text(text)
        project.forget(golden)
        assert project.analyse(golden) is not None
    assert hashes.reads == first
    doc.write_text("changed\n")
    project.forget(doc)  # the corpus is loaded again: the changed document alone is read
    analysis = project.analyse(golden)
    assert analysis is not None
    assert [f.code for f in analysis.findings if f.code.startswith("QR13")] == ["QR131"]
    assert hashes.reads == first + 1


def test_passages_cut_differently(tmp_path: Path) -> None:
    def corpus(passages: dict[str, str]) -> str:
        return "".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in passages.items())

    write(
        tmp_path / "corpus.jsonl",
        corpus({"a#1": "alpha", "a#2": "beta", "b#1": "gamma", "c#1": "x"}),
    )
    write(
        tmp_path / "g.qrels.yaml",
        "judgments: exhaustive\ncorpus: corpus.jsonl\nchunks: {separator: '#'}\nqueries:\n"
        "  q:\n    question: x\n    relevant: [a#2, b#1, c#1]\n",
    )
    assert qrels_lsp("lock", "g.qrels.yaml", cwd=tmp_path).returncode == 0
    write(
        tmp_path / "corpus.jsonl",
        corpus({"a#1": "alph", "a#2": "abeta", "a#3": "b", "b#2": "gamma", "c#1": "y"}),
    )
    found = {f["code"]: f["message"] for f in check_json(tmp_path)}
    assert set(found) == {"QR131", "QR132"}, found
    assert "a#2` changed" in str(found["QR132"]) or "b#1` is no longer" in str(found["QR132"])
    codes = sorted(str(f["code"]) for f in check_json(tmp_path))
    assert codes == ["QR131", "QR132", "QR132"]  # c#1 changed; a#2 recut; b#1 gone, b remains


def test_a_lock_that_cannot_be_read_says_so(tmp_path: Path) -> None:
    workspace(tmp_path)
    write(lock_path(tmp_path / "g.qrels.yaml"), "{not json")
    (f,) = check_json(tmp_path)
    assert f["code"] == "QR133" and "not valid JSON" in str(f["message"])
    hostile = "[" * 100_000  # nesting past the recursion limit: a message, not a traceback
    assert parse_lock(hostile).problem is not None


def test_line_hashes_find_the_first_change() -> None:
    a = content_of(b"one\ntwo\nthree\n")
    assert a.first_difference(content_of(b"one\nTWO\nthree\n")) == 2
    assert a.first_difference(content_of(b"one\ntwo\n")) == 3
    assert a.first_difference(content_of(b"one\ntwo\nthree\r\n")) is None  # (the same lines)
    assert Content("x", 0, "!!").first_difference(a) == 1  # a hand-edited lock: no line hashes


def _project(root: Path) -> Project:
    return Project(load_config(root), boundary=Boundary.of([root]))


def test_a_hostile_lock_is_read_in_bounded_time(tmp_path: Path) -> None:
    from bounded import CLI, run_bounded

    workspace(tmp_path)
    lock = lock_path(tmp_path / "g.qrels.yaml")
    for text in (
        '  "' + "a" * 5_000_000,  # an id that never ends
        "[" * 1_000_000,  # nesting past any recursion limit
        '{"qrels-lsp lock": 1, "corpus": "x", "documents": {\n'
        + ",\n".join(f'  "kb/doc{i}.md": {{"a": 1}}' for i in range(200_000))
        + "}}\n",  # many entries, none a record
    ):
        lock.write_text(text, encoding="utf-8")
        r = run_bounded([*CLI, "check", "--format", "json", "g.qrels.yaml"], cwd=tmp_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
