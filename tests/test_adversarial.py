"""Hostile inputs at the core: each is a located finding, in bounded time and memory.

Covered elsewhere and not repeated here: alias bombs, ``!!python`` tags, deep nesting and control
characters in YAML (test_yaml_properties.py); FIFOs, ``/dev/zero``, symlink loops, unreadable and
binary files inside a corpus (test_corpus.py). The same inputs through the real server are in
tests/lsp/test_robustness.py.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from qrels_lsp.cli import main
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.base.findings import Finding
from qrels_lsp.core.base.text import LineIndex
from qrels_lsp.core.formats.corpus import CorpusError, load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids
from qrels_lsp.core.project.config import Config, parse_config_text
from qrels_lsp.core.project.project import Project

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary

GOLDEN = "corpus: corpus/\nruns: {runs}\nqueries:\n  q:\n    question: how do I reset\n    relevant: [a.md]\n"


def workspace(tmp_path: Path, runs: str = "[]") -> Path:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("hold reset for ten seconds", encoding="utf-8")
    path = tmp_path / "g.qrels.yaml"
    path.write_text(GOLDEN.format(runs=runs), encoding="utf-8")
    return path


def analyse(path: Path) -> list[Finding]:
    analysis = Project(Config(root=path.parent), boundary=ANYWHERE).analyse(path)
    assert analysis is not None
    return analysis.findings


def located(text: str, findings: list[Finding], code: str) -> list[str]:
    """The text under each finding of ``code``."""
    return [text[f.span.start : f.span.end] for f in findings if f.code == code]


def timed(fn, limit: float):  # type: ignore[no-untyped-def]
    began = time.monotonic()
    out = fn()
    assert time.monotonic() - began < limit
    return out


# -- YAML text ---------------------------------------------------------------------------------


def test_nul_is_located_after_non_ascii() -> None:
    text = "queries:\n  q😀日\x00: x\n"
    [f] = parse_golden(text).findings
    assert f.code == "QR001" and text[f.span.start : f.span.end] == "\x00"


def test_bom_keeps_spans_on_their_characters() -> None:
    text = "\ufeffcorpus: nowhere/\nqueries:\n  q:\n    question: hi\n    relevant: [a, a]\n"
    qrels = parse_golden(text)
    assert qrels.corpus is not None
    assert text[qrels.corpus.span.start : qrels.corpus.span.end] == "nowhere/"
    [j1, j2] = qrels.queries["q"].judgments
    assert text[j2.span.start : j2.span.end] == "a" and j2.span.start > j1.span.start


def test_bom_on_disk_is_dropped_and_positions_are_the_text_without_it(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + GOLDEN.format(runs="[]").replace("a.md]", "b.md]").encode())
    text, problem = read_text(path)
    assert text is not None and problem is None and not text.startswith("\ufeff")
    assert located(text, analyse(path), "QR106") == ["b.md"]


def test_invalid_utf8_on_disk_is_located_at_the_first_bad_byte(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    path.write_bytes(GOLDEN.format(runs="[]").replace("a.md]", "a\xe9.md]").encode("latin-1"))
    findings = analyse(path)
    text, _ = read_text(path)
    assert text is not None
    assert located(text, findings, "QR006") == ["\ufffd"]
    assert located(text, findings, "QR106") == ["a\ufffd.md"]


def test_cli_reports_undecodable_bytes_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the command line's workspace
    path = workspace(tmp_path)
    path.write_bytes(GOLDEN.format(runs="[]").encode().replace(b"how do", b"how \xff do"))
    assert main(["check", str(path)]) == 0  # a warning
    out = capsys.readouterr().out
    assert out.count("QR006") == 1 and ":5:" in out, out


@pytest.mark.slow
def test_50_mb_files(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    block = "  q{}:\n    question: how do I reset\n    relevant: [a.md]\n"
    n = 50 * 2**20 // len(block.format(0)) + 1
    path.write_text("queries:\n" + "".join(block.format(i) for i in range(n)), encoding="utf-8")
    findings = timed(lambda: analyse(path), 30)
    # QR120 says how the judgments are read (no grade 0: exhaustive), as on any such set
    assert [(f.code, f.span.start) for f in findings if f.code != "QR120"] == [("QR006", 0)]
    run = tmp_path / "big.trec"
    with run.open("w", encoding="utf-8") as f:
        for i in range(1_000_000):
            f.write(
                f"q{i // 100:06d} Q0 doc-{i:010d}.md {i % 100 + 1} {100 - i % 100:.6f} bm25-v1\n"
            )
    assert run.stat().st_size > 40 * 2**20
    text, _ = read_text(run)
    assert text is not None
    ids = timed(lambda: read_trec_run_ids(text), 30)
    assert len(ids) == 10_000


def test_one_million_character_lines() -> None:
    question = "😀" * 1000 + "x" * 999_000
    text = f'queries:\n  q: {{question: "{question}", relevant: [a.md, a.md]}}\n'
    qrels = timed(lambda: parse_golden(text), 10)
    assert qrels.queries["q"].question == question
    from qrels_lsp.core.checks import check_golden

    [dup] = [f for f in check_golden(qrels, text, None) if f.code == "QR102"]
    assert LineIndex(text).position(dup.span.start)[1] == text.index("a.md]") - text.index("\n") - 1
    run = "q Q0 " + "d" * 1_000_000 + " 1 1.0 r\nq Q0 d2 1 x r\n"
    parsed = timed(lambda: parse_trec_run(run), 10)
    assert parsed.rankings["q"].docs[0].doc_id == "d" * 1_000_000
    bad = [f for f in parsed.findings if run[f.span.start : f.span.end] == "x"]
    assert bad and LineIndex(run).position(bad[0].span.start) == (1, 10)


# -- files that must not be read ---------------------------------------------------------------


def test_huge_binary_corpus_is_refused_from_its_first_bytes(tmp_path: Path) -> None:
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as f:
        f.truncate(4 * 2**30)  # sparse: 4 GB of NUL bytes, nothing on disk
    err = timed(lambda: load_corpus(huge), 2)
    assert isinstance(err, CorpusError) and "binary" in err.message
    text, why = timed(lambda: read_text(huge), 1)
    assert text is None and why is not None and "larger than" in why


def test_unreadable_runs_are_findings_on_their_entry(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.trec")
    with (tmp_path / "huge.trec").open("wb") as f:
        f.truncate(2**30)
    path = workspace(tmp_path, runs="[/dev/zero, pipe.trec, huge.trec, 'runs/*.trec']")
    findings = timed(lambda: analyse(path), 5)
    text = path.read_text(encoding="utf-8")
    assert located(text, findings, "QR111") == [
        "/dev/zero",
        "pipe.trec",
        "huge.trec",
        "runs/*.trec",  # matches nothing
    ]
    messages = [f.message for f in findings if f.code == "QR111"]
    assert "a device" in messages[0] and "a FIFO" in messages[1] and "larger than" in messages[2]


def test_symlink_loops_as_corpus_and_runs(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    path = workspace(tmp_path, runs="[a]")
    path.write_text(path.read_text().replace("corpus: corpus/", "corpus: b"), encoding="utf-8")
    findings = timed(lambda: analyse(path), 5)
    text = path.read_text(encoding="utf-8")
    assert located(text, findings, "QR109") == ["b"]
    assert located(text, findings, "QR111") == ["a"]


def test_fifo_golden_set_does_not_block_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "fifo.qrels.yaml"
    os.mkfifo(fifo)
    assert timed(lambda: main(["check", str(fifo)]), 5) == 1
    assert "QR006" in capsys.readouterr().out


# -- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    ["k = 5\n\x00\ufffd garbage [[[\n", "k = 5\n{not toml}\n", "k = 5\nk = 6\n", "k = '''\n"],
)
def test_config_that_is_not_toml_is_located(content: str) -> None:
    config = parse_config_text(content, Path("/nowhere/qrels-lsp.toml"))
    [f] = config.findings
    assert f.code == "QR401" and "Not valid TOML" in f.message
    line, _col = LineIndex(content).position(f.span.start)
    assert line == (0 if content.startswith("k = '''") else 1)
    assert config.k == 10  # defaults are used
