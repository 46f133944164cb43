"""Corpus loading: every format, and every way a path can be hostile."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import TEST_DATA
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.formats.corpus import Corpus, CorpusError, load_corpus

VASWANI_TREC = TEST_DATA / "vaswani" / "corpus" / "doc-text.trec"


def load_ok(path: Path, **kwargs: object) -> Corpus:
    corpus = load_corpus(path, **kwargs)  # type: ignore[arg-type]
    assert isinstance(corpus, Corpus), corpus
    return corpus


def load_err(path: Path | str) -> CorpusError:
    corpus = load_corpus(path)
    assert isinstance(corpus, CorpusError), corpus
    return corpus


# -- folders ------------------------------------------------------------------------------------


def test_folder_ids_titles_and_laziness(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "auth.md").write_text("\n# Login failures\n\nReset your password.\n")
    (tmp_path / "kb" / "errors.txt").write_text("E1042: firmware mismatch\n")
    (tmp_path / "faq.md").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0\0")
    corpus = load_ok(tmp_path)
    assert corpus.format == "folder"
    assert corpus.ids == ["faq.md", "kb/auth.md", "kb/errors.txt"]
    assert "kb/auth.md" in corpus and "auth.md" not in corpus and len(corpus) == 3
    doc = corpus.get("kb/auth.md")
    assert doc is not None
    assert doc.title == "Login failures"
    assert "Reset your password." in doc.text
    assert doc.line is None and doc.id_span is None
    assert doc.searchable_text == doc.text  # the title is not counted twice
    assert corpus.get("faq.md") is not None and corpus.get("nope") is None


def test_folder_reads_lazily(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("first")
    corpus = load_ok(tmp_path)
    (tmp_path / "a.md").write_text("changed after loading")
    doc = corpus.get("a.md")
    assert doc is not None and doc.text == "changed after loading"


def test_folder_fifo_symlink_loop_and_dir_named_like_file(tmp_path: Path) -> None:
    (tmp_path / "ok.md").write_text("fine")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "doc.md").write_text("inside")
    (tmp_path / "sub" / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "dangling.md").symlink_to(tmp_path / "missing")
    (tmp_path / "dir.md").mkdir()
    started = time.perf_counter()
    corpus = load_ok(tmp_path)
    assert time.perf_counter() - started < 60  # a FIFO opened for reading blocks for good
    assert corpus.ids == ["ok.md", "sub/doc.md"]
    assert any("pipe.md" in p and "FIFO" in p for p in corpus.problems)
    assert any("dangling.md" in p for p in corpus.problems)


def test_folder_file_replaced_by_fifo_after_loading(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    corpus = load_ok(tmp_path)
    (tmp_path / "a.md").unlink()
    os.mkfifo(tmp_path / "a.md")
    doc = corpus.get("a.md")  # must not block on the FIFO
    assert doc is not None and doc.text == ""
    assert any("a.md" in p and "FIFO" in p for p in corpus.problems)


def test_folder_file_deleted_after_loading(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    corpus = load_ok(tmp_path)
    (tmp_path / "a.md").unlink()
    doc = corpus.get("a.md")
    assert doc is not None and doc.text == ""
    assert any("a.md" in p and "unreadable" in p for p in corpus.problems)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_folder_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "a.md").chmod(0)
    corpus = load_ok(tmp_path)
    doc = corpus.get("a.md")
    assert doc is not None and doc.text == ""
    assert any("unreadable" in p for p in corpus.problems)


def test_folder_size_caps(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a" * 100)
    (tmp_path / "b.md").write_text("b" * 2000)
    (tmp_path / "c.md").write_text("c" * 100)
    (tmp_path / "d.md").write_text("d" * 100)
    corpus = load_ok(tmp_path, max_file_bytes=1000, max_bytes=250)
    assert corpus.ids == ["a.md", "c.md"]
    assert any("b.md" in p and "larger" in p for p in corpus.problems)
    assert any("d.md" in p and "exceeds" in p for p in corpus.problems)


def test_folder_binary_file_is_empty(tmp_path: Path) -> None:
    (tmp_path / "blob.dat").write_bytes(b"abc\0def")
    corpus = load_ok(tmp_path)
    doc = corpus.get("blob.dat")
    assert doc is not None and doc.text == ""
    assert any("binary" in p for p in corpus.problems)


def test_folder_of_one_trec_file_is_that_file() -> None:
    corpus = load_ok(VASWANI_TREC.parent)
    assert corpus.format == "trec" and len(corpus) == 11429
    assert corpus.sources == [VASWANI_TREC]


def test_beir_folder_loads_corpus_jsonl(tmp_path: Path) -> None:
    (tmp_path / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "body"}\n')
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "question"}\n')
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    corpus = load_ok(tmp_path)
    assert corpus.ids == ["d1"] and corpus.format == "jsonl"


def test_folder_of_several_jsonl_files_is_their_union(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"id": "1", "text": "x"}\n')
    (tmp_path / "b.jsonl").write_text('{"id": "2", "text": "y"}\n{"id": "1", "text": "dup"}\n')
    corpus = load_ok(tmp_path)
    assert corpus.format == "multi" and corpus.ids == ["1", "2"]
    assert any("duplicate document id '1'" in p for p in corpus.problems)


# -- JSONL -------------------------------------------------------------------------------------


def test_jsonl_keys_locations_and_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    lines = [
        '{"_id": "d1", "title": "Password reset", "text": "How to reset."}',
        '{"title": "no id", "text": "x"}',
        "not json",
        "",
        '{"id": 42, "contents": "numeric id"}',
        '{"doc_id": "café", "text": "accented id"}',
        '{"docid": "d4", "text": null}',
        "[1, 2]",
    ]
    path.write_text("\n".join(lines) + "\n")
    corpus = load_ok(path)
    assert corpus.ids == ["d1", "42", "café", "d4"]
    d1 = corpus.get("d1")
    assert d1 is not None and d1.title == "Password reset" and d1.text == "How to reset."
    assert d1.searchable_text == "Password reset\nHow to reset."
    assert d1.line == 0 and d1.id_span == Span(9, 11)
    assert lines[0][9:11] == "d1"
    d42 = corpus.get("42")
    assert d42 is not None and d42.line == 4 and d42.text == "numeric id"
    assert d42.id_span is not None and lines[4][d42.id_span.start : d42.id_span.end] == "42"
    cafe = corpus.get("café")
    assert cafe is not None and cafe.id_span is not None
    assert lines[5][cafe.id_span.start : cafe.id_span.end] == "café"
    assert len(corpus.problems) == 3
    assert any(":2:" in p and "no document id" in p for p in corpus.problems)
    assert any(":3:" in p and "not valid JSON" in p for p in corpus.problems)
    assert any(":8:" in p and "not a JSON object" in p for p in corpus.problems)


def test_jsonl_bom_crlf_and_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"_id": "a", "text": "x"}\r\n{"_id": "b", "text": "bad \xff byte"}\r\n'
    )
    corpus = load_ok(path)
    assert corpus.ids == ["a", "b"]
    b = corpus.get("b")
    assert b is not None and b.line == 1 and "\ufffd" in b.text
    assert any("invalid UTF-8" in p for p in corpus.problems)


def test_jsonl_truncated_at_cap(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(f'{{"_id": "d{i}", "text": "{"x" * 50}"}}\n' for i in range(100)))
    corpus = load_ok(path, max_bytes=1000)
    assert 0 < len(corpus) < 100
    assert not any("JSON" in p for p in corpus.problems)  # cut at a line boundary
    assert any("limit" in p for p in corpus.problems)


@pytest.mark.slow
def test_jsonl_100k_single_pass(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as f:
        for i in range(100_000):
            f.write(json.dumps({"_id": f"doc-{i}", "title": f"T{i}", "text": "some words " * 8}))
            f.write("\n")
    corpus = load_ok(path)
    assert len(corpus) == 100_000 and corpus.ids[-1] == "doc-99999"
    assert corpus.closest("doc-9999x", 3)[0].startswith("doc-9999")  # (speed: tests/bench)


def test_progress_and_cancel(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(f'{{"_id": "d{i}"}}\n' for i in range(10_000)))
    seen: list[tuple[int, int]] = []
    load_ok(path, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] and len(seen) > 2
    cancelled = load_corpus(path, cancel=lambda: True)
    assert isinstance(cancelled, CorpusError) and cancelled.cancelled


# -- TSV ---------------------------------------------------------------------------------------


def test_tsv_two_and_three_columns(tmp_path: Path) -> None:
    path = tmp_path / "c.tsv"
    path.write_text("id\ttext\n d1\tfirst text\nd2\tA title\tsecond\ttext\nbroken\n\t\tno id\n")
    corpus = load_ok(path)
    assert corpus.ids == ["d1", "d2"]
    d1, d2 = corpus.get("d1"), corpus.get("d2")
    assert d1 is not None and d1.text == "first text" and d1.title == ""
    assert d1.line == 1 and d1.id_span == Span(1, 3)
    assert d2 is not None and d2.title == "A title" and d2.text == "second\ttext"
    assert len(corpus.problems) == 2


# -- TREC --------------------------------------------------------------------------------------


def test_trec_small(tmp_path: Path) -> None:
    path = tmp_path / "docs.trec"
    path.write_text(
        "<DOC>\n<DOCNO> FT-1 </DOCNO>\n<HEADLINE>Big news</HEADLINE>\n<TEXT>\nBody here.\n"
        "</TEXT>\n</DOC>\n<DOC>\nno docno\n</DOC>\n<DOC>\n<DOCNO>FT-2</DOCNO>\nunclosed"
    )
    corpus = load_ok(path)
    assert corpus.ids == ["FT-1", "FT-2"]
    d = corpus.get("FT-1")
    assert d is not None and d.title == "Big news" and "Body here." in d.text
    assert "<TEXT>" not in d.text and d.line == 1 and d.id_span == Span(8, 12)
    assert any("without <DOCNO>" in p for p in corpus.problems)
    assert any("without </DOC>" in p for p in corpus.problems)


def test_vaswani() -> None:
    corpus = load_ok(VASWANI_TREC)  # (how fast: tests/bench)
    assert len(corpus) == 11429 and corpus.problems == []
    assert corpus.ids[:3] == ["1", "2", "3"] and corpus.ids[-1] == "11429"
    doc = corpus.get("2")
    assert doc is not None
    assert doc.text.startswith("an electronic analogue computer")
    assert doc.line == 7 and doc.id_span == Span(7, 8)
    line = VASWANI_TREC.read_text().splitlines()[doc.line]
    assert line[doc.id_span.start : doc.id_span.end] == "2"
    assert corpus.closest("1143O") == ["1143", "10143", "11043"]  # Indel: one edit away


# -- refusals ----------------------------------------------------------------------------------


def test_dev_zero_is_refused_immediately() -> None:
    started = time.perf_counter()
    err = load_err("/dev/zero")
    assert time.perf_counter() - started < 60 and "device" in err.message  # read: never ends


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "c.jsonl")
    assert "FIFO" in load_err(tmp_path / "c.jsonl").message


def test_missing_and_unsupported(tmp_path: Path) -> None:
    assert "does not exist" in load_err(tmp_path / "nope").message
    (tmp_path / "notes.md").write_text("# hi")
    assert "unsupported" in load_err(tmp_path / "notes.md").message
    (tmp_path / "plain.txt").write_text("no trec here")
    assert "unsupported" in load_err(tmp_path / "plain.txt").message


def test_symlink_loop_as_corpus_path(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert "cannot access" in load_err(tmp_path / "a").message


def test_empty_folder_is_an_empty_corpus(tmp_path: Path) -> None:
    corpus = load_ok(tmp_path)
    assert len(corpus) == 0 and corpus.closest("x") == []


# -- fingerprints ------------------------------------------------------------------------------


def test_fingerprint_follows_content(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"_id": "a", "text": "x"}\n')
    first = load_ok(path).fingerprint
    assert load_ok(path).fingerprint == first
    path.write_text('{"_id": "a", "text": "y"}\n')  # same size, new content
    assert load_ok(path).fingerprint != first


def test_folder_fingerprint_follows_stat(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    first = load_ok(tmp_path).fingerprint
    assert load_ok(tmp_path).fingerprint == first
    (tmp_path / "a.md").write_text("y")
    st = (tmp_path / "a.md").stat()
    os.utime(tmp_path / "a.md", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert load_ok(tmp_path).fingerprint != first
