"""A TREC run of any size read for scoring a block of queries at a time (``score``, ``compare``).

The editor holds a run in memory as one text (64 MiB at most: ``base/files.py``). trec_eval
reads runs of any size, and an MS MARCO dev run at depth 1,000 is 7 million lines, 200 MB: the
command line streams those. The file is read in chunks of whole lines, each cut where a query's
block of lines starts so that a query is not split between two chunks, and each chunk is read
by the reader of whole texts (:func:`.trec_run.read_trec_run_ids`), so every line is read as
trec_eval reads it. A query whose lines are in more than one chunk (a file not grouped by query)
is read again at the end from all of its lines, in file order: its last ranking is the one
the whole text gives. What is kept is the rankings of one chunk at a time and the ids of the
queries seen: memory is bounded by the chunk and the per-query state, not the file.

``tests/test_trec_stream.py`` compares the streamed rankings with the whole text's, on files cut
into chunks of a few bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..base.files import MiB, open_regular
from ..base.findings import Finding, dropping, shift_finding
from ..base.text import decode
from .trec_lines import FIELD
from .trec_run import parse_trec_run, read_trec_run_ids, trec_run_tag

_SNIFF = 8192  # the bytes read_text looks for a NUL in (a binary file)
CHUNK_BYTES = 32 * MiB
"""Bytes read at a time: about a million run lines, which the column reader takes in a second."""


@dataclass(slots=True)
class StreamStats:
    """What reading a streamed run found besides its rankings."""

    dropped: list[Finding] = field(default_factory=list)  # spans in the whole file's text
    tag: str | None = None  # the last result line's tag column: trec_eval's runid
    queries: int = 0  # rankings read (a query given again counts again)
    error: str | None = None  # why the file could not be read (it was not, or not to the end)


def stream_rankings(
    path: Path, stats: StreamStats, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[dict[str, list[str]]]:
    """The run's rankings (qid -> doc ids in evaluation order), a chunk at a time; a query
    given again later in the file is given again with all of its lines. ``stats`` is filled
    in as the file is read."""
    seen: set[str] = set()
    split: set[str] = set()
    offset = 0  # of the chunk in the file's text (chunks end at line breaks: they decode alike)
    for text in _chunks(path, stats, chunk_bytes):
        rankings = read_trec_run_ids(text)
        again = seen.intersection(rankings)
        split |= again
        seen.update(rankings)
        stats.queries += len(rankings)
        stats.tag = trec_run_tag(text) or stats.tag  # the last line's: the last chunk's
        if not all_taken(text, sum(map(len, rankings.values()))):
            found = dropping(parse_trec_run(text).findings)
            stats.dropped += [shift_finding(f, offset) for f in found]
        offset += len(text)
        yield rankings
    if split and stats.error is None:
        yield read_trec_run_ids("".join(_lines_of(path, split, chunk_bytes)))


def _lines_of(path: Path, qids: set[str], chunk_bytes: int) -> Iterator[str]:
    """Every line of the file whose first field is one of ``qids``, in file order."""
    for text in _chunks(path, StreamStats(), chunk_bytes):
        for line in text.split("\n"):
            first = FIELD.search(line)
            if first is not None and first.group() in qids:
                yield line + "\n"


def _chunks(path: Path, stats: StreamStats, chunk_bytes: int) -> Iterator[str]:
    """The file as texts of whole lines, decoded as :func:`~..base.files.read_text` decodes a
    TREC file (its bytes kept), each ending where a query's block of lines starts."""
    handle, problem = open_regular(path)
    if handle is None:
        stats.error = problem
        return
    with handle:
        pending = b""
        first = True
        while True:
            try:
                data = handle.read(max(chunk_bytes, _SNIFF) if first else chunk_bytes)
            except OSError as exc:
                stats.error = f"unreadable: {exc.strerror or exc}"
                return
            if first and b"\x00" in data[:_SNIFF]:
                stats.error = "a binary file (it holds NUL bytes)"
                return
            first = False
            data = pending + data
            if not data:
                return
            if len(data) <= len(pending):  # the end of the file: what is left
                yield decode(data, keep_bytes=True)[0]
                return
            cut = _block_start(data)
            pending = data[cut:]
            if cut:
                yield decode(data[:cut], keep_bytes=True)[0]


def _block_start(data: bytes) -> int:
    """Where the lines of the last query of ``data`` start, counting only whole lines; when
    every whole line is that query's, the end of the last one (0: no whole line)."""
    end = data.rfind(b"\n") + 1
    if end == 0:
        return 0
    last_start = data.rfind(b"\n", 0, end - 1) + 1
    qid = _first_field(data, last_start, end)
    start = last_start
    while start > 0:
        before = data.rfind(b"\n", 0, start - 1) + 1
        if _first_field(data, before, start) != qid:
            return start
        start = before
    return end


def _first_field(data: bytes, start: int, end: int) -> bytes:
    fields = data[start:end].split(None, 1)
    return fields[0] if fields else b""


def all_taken(text: str, entries: int) -> bool:
    """Whether ``entries`` is at least the text's lines holding anything, counted in C: at most
    the file's lines (a line of blanks counts, so a file with one only makes the caller look
    closer, never miss a drop). Empty lines are counted only when the lines alone are more than
    the entries (a clean million-line run: one count, not two)."""
    if not text:
        return True
    lines = text.count("\n") + (not text.endswith("\n"))
    if entries >= lines:
        return True
    return entries >= lines - text.count("\n\n") - text.startswith("\n")
