"""What a corpus document holds, as a lock records it: a content hash, its size and a short hash
per line (so that a changed document can say where it changed: docs/history.md, "Stale
judgments").

A document's content is its file's bytes (a folder corpus) or its title and text as read (a
JSONL, TSV or TREC corpus). Hashes of folder documents are kept by file, size and modification
time, so an unchanged corpus is not read again: a check after an edit stats the judged files of
the edited question, and a corpus of 100,000 documents costs nothing more once its judged
documents are hashed. Documents of one-file corpora are hashed once per loaded corpus (the
project loads a changed corpus file anew).
"""

from __future__ import annotations

import base64
import hashlib
import os
import weakref
from dataclasses import dataclass
from pathlib import Path

from ..base.files import read_regular
from ..formats.corpus import Corpus, Document

LINE_HASH_BYTES = 3
"""Bytes of each line's hash: a changed line goes unseen once in 16 million."""
MAX_LINES = 5000
"""Lines hashed per document; a change past them is said to be past them."""
MAX_FILES = 200_000
"""Folder documents whose hashes are kept (a corpus is read up to 50,000 files)."""


@dataclass(frozen=True, slots=True)
class Content:
    """A document's content as a lock records it."""

    sha256: str
    size: int  # bytes
    lines: str  # each line's short hash, base64 (the first MAX_LINES)

    def first_difference(self, other: Content) -> int | None:
        """The first line (1-based) whose hash differs from ``other``'s, or where one of the
        two ends first; None when the hashed lines are the same (the change is past them)."""
        a, b = _line_hashes(self.lines), _line_hashes(other.lines)
        for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
            if x != y:
                return i
        if len(a) != len(b) and min(len(a), len(b)) < MAX_LINES:
            return min(len(a), len(b)) + 1
        return None


def _line_hashes(text: str) -> list[bytes]:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except ValueError:
        return []
    n = LINE_HASH_BYTES
    return [raw[i : i + n] for i in range(0, len(raw) - n + 1, n)]


def content_of(data: bytes) -> Content:
    """The record of a document's bytes."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # a final line break ends the last line, it starts none
    short = b"".join(
        hashlib.blake2b(line.rstrip(b"\r"), digest_size=LINE_HASH_BYTES).digest()
        for line in lines[:MAX_LINES]
    )
    return Content(hashlib.sha256(data).hexdigest(), len(data), base64.b64encode(short).decode())


def document_bytes(doc: Document) -> bytes:
    """A one-file corpus's document as bytes: its title and text as BM25 reads them."""
    return doc.searchable_text.encode("utf-8", "surrogateescape")


class Hashes:
    """Each document's :class:`Content`, kept while its file's size and time are the same."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[int, int, Content]] = {}
        self._docs: weakref.WeakKeyDictionary[Corpus, dict[str, Content | None]] = (
            weakref.WeakKeyDictionary()
        )
        self.reads = 0  # documents read to be hashed (the tests count them)

    def of(self, corpus: Corpus, doc_id: str) -> Content | None:
        """What ``doc_id`` holds now; None when the corpus has no such document (or its file
        is gone or cannot be read)."""
        if doc_id not in corpus:
            return None
        path = corpus.file_of(doc_id)
        if path is not None:
            return self._file(str(path), corpus.max_file_bytes)
        kept = self._docs.setdefault(corpus, {})
        if doc_id not in kept:
            doc = corpus.get(doc_id)
            self.reads += 1
            kept[doc_id] = content_of(document_bytes(doc)) if doc is not None else None
        return kept[doc_id]

    def _file(self, path: str, limit: int) -> Content | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        hit = self._files.get(path)
        if hit is not None and hit[0] == st.st_size and hit[1] == st.st_mtime_ns:
            return hit[2]
        data, _problem = read_regular(Path(path), limit)
        if data is None:
            return None
        self.reads += 1
        found = content_of(data)
        if len(self._files) >= MAX_FILES:
            self._files.clear()
        self._files[path] = (st.st_size, st.st_mtime_ns, found)
        return found
