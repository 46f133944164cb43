"""Source positions.

Every parsed element carries a :class:`Span` of *code point* offsets into the decoded text, the
unit Python strings index by. Lines and columns are derived from offsets on demand by a
:class:`LineIndex`, once per text, in whichever unit the consumer needs: code points for the CLI,
UTF-8 / UTF-16 / UTF-32 code units for the language server's negotiated position encoding.
Line breaks are ``\\n``, ``\\r\\n`` and a lone ``\\r``, as the LSP specification defines them.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A half-open range ``[start, end)`` of code point offsets."""

    start: int
    end: int

    def contains(self, offset: int) -> bool:
        """Whether a cursor at ``offset`` touches the span (its end included, as editors expect)."""
        return self.start <= offset <= self.end

    def shifted(self, delta: int) -> Span:
        return Span(self.start + delta, self.end + delta)


_BREAK = re.compile(r"\r\n?|\n")


def _line_starts(text: str) -> array[int]:
    """Where each line starts: after ``\\n``, ``\\r\\n`` or a lone ``\\r``. Files whose breaks
    all end in ``\\n`` (LF, CRLF) are scanned with ``str.find``; the rest with one regex pass, not
    a character loop (seconds on a 16 MB file). As machine integers: a line start costs 8 bytes,
    not the 36 of a Python int in a list (an open run YAML's index was a fifth of its text)."""
    starts = array("q", [0])
    if "\r" not in text or text.count("\r") == text.count("\r\n"):
        if len(text) >= _VECTOR_CHARS:
            return _line_starts_vectorised(text)
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        return starts
    starts.extend(m.end() for m in _BREAK.finditer(text))
    return starts


_VECTOR_CHARS = 1 << 20
"""From this size (a megabyte: ten thousand questions) line breaks are found by numpy."""


def _line_starts_vectorised(text: str) -> array[int]:
    """:func:`_line_starts` of a text whose breaks all end in ``\\n``, in one vectorised pass:
    a Python loop costs about a second per million lines (a hostile 16 MB golden set), this a
    tenth of it. The code points are compared as UTF-32, so offsets are character offsets."""
    import numpy as np

    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    starts = array("q", [0])
    starts.frombytes((np.flatnonzero(codes == 10) + 1).astype(np.int64).tobytes())
    return starts


class LineIndex:
    """Converts between offsets and (line, column) pairs for one text."""

    __slots__ = ("_ascii", "_starts", "text")

    def __init__(self, text: str, starts: Sequence[int] | None = None) -> None:
        self.text = text
        self._starts = _line_starts(text) if starts is None else starts
        self._ascii = text.isascii()  # then every encoding counts columns alike

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_of(self, offset: int) -> int:
        """Zero-based line holding ``offset`` (clamped into the text)."""
        offset = max(0, min(offset, len(self.text)))
        return bisect.bisect_right(self._starts, offset) - 1

    def line_start(self, line: int) -> int:
        line = max(0, min(line, len(self._starts) - 1))
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``'s content, before its line break."""
        line = max(0, min(line, len(self._starts) - 1))
        if line + 1 < len(self._starts):
            end = self._starts[line + 1]
            if end > 0 and self.text[end - 1] == "\n":
                end -= 1
            if end > self._starts[line] and self.text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def line_text(self, line: int) -> str:
        return self.text[self.line_start(line) : self.line_end(line)]

    def position(self, offset: int, encoding: Encoding = "utf-32") -> tuple[int, int]:
        """Zero-based (line, column), the column counted in ``encoding`` code units."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        if self._ascii or encoding == "utf-32":
            return line, offset - start
        return line, _units(self.text[start:offset], encoding)

    def offset(self, line: int, column: int, encoding: Encoding = "utf-32") -> int:
        """The offset of a (line, column) position; out-of-range values are clamped, as LSP asks."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self.text)
        start, end = self._starts[line], self.line_end(line)
        if encoding == "utf-32" or self._ascii:
            return min(start + max(column, 0), end)
        units = 0
        for i in range(start, end):
            if units >= column:
                return i
            units += _units(self.text[i], encoding)
        return end


_RECENT: list[LineIndex] = []  # most recent first


def line_index(text: str) -> LineIndex:
    """The :class:`LineIndex` of ``text``, shared while the text object is one of the last few.

    After a keystroke the editor's change is applied, the checks build line positions for fixes
    and the server converts diagnostics: three indexes of the same megabyte, one is enough. The
    cache is keyed by identity (texts are immutable) and safe to share between threads.
    """
    for index in list(_RECENT):
        if index.text is text:
            return index
    return _remember(LineIndex(text))


def line_index_after(before: LineIndex, start: int, end: int, inserted: str) -> LineIndex:
    """The index of ``before.text`` with ``[start, end)`` replaced by ``inserted``, made from
    ``before``'s, and shared as :func:`line_index` shares them.

    An editor's keystroke changes one place of the text, but scanning the whole megabyte for its
    line breaks again takes longer than everything else the keystroke costs. Line starts before
    the edit stay, those after it move by its length; only the lines the edit touches, one
    before it (a ``\r`` there may meet a ``\n`` typed after it) and one after are scanned.
    """
    old, starts = before.text, before._starts
    text = old[:start] + inserted + old[end:]
    delta = len(inserted) - (end - start)
    first = max(0, bisect.bisect_right(starts, start - 1) - 1)  # the line holding start - 1
    scan_from = starts[first]
    last = min(end + delta + 1, len(text))  # starts up to here are scanned in the new text
    scanned = [scan_from + s for s in _line_starts(text[scan_from : last + 1])[1:]]
    new = array("q", starts[: first + 1])
    new.extend(s for s in scanned if s <= last)
    new.extend(_moved(starts, bisect.bisect_right(starts, end + 1), delta))
    return _remember(LineIndex(text, new))


_VECTOR_LINES = 4096
"""From this many lines after an edit, they are moved by numpy (see :func:`_moved`)."""


def _moved(starts: Sequence[int], first: int, delta: int) -> array[int]:
    """``starts[first:]``, each moved by ``delta``. A keystroke near the top of a 100,000-question
    golden set moves 600,000 line starts: a Python loop over them costs 30 ms of the editor's
    event loop, numpy over the machine integers of an ``array`` a millisecond."""
    if len(starts) - first < _VECTOR_LINES:
        return array("q", [s + delta for s in starts[first:]])
    import numpy as np  # (not at start-up: see core/compare/__init__)

    if isinstance(starts, array):
        tail = np.frombuffer(starts, dtype=np.int64)[first:]
    else:
        tail = np.array(starts[first:], dtype=np.int64)
    moved = array("q")
    moved.frombytes((tail + delta).tobytes())
    return moved


def _remember(index: LineIndex) -> LineIndex:
    _RECENT.insert(0, index)
    del _RECENT[4:]
    return index


def forget_line_indexes() -> None:
    """Drop the shared indexes and the texts they hold (the editor closed every document)."""
    _RECENT.clear()


def line_start_at(text: str, offset: int) -> int:
    """Where the line holding ``offset`` starts, without building a LineIndex (hot paths).

    Both searches stay on the current line, so the cost is the line's length, not the file's.
    """
    nl = text.rfind("\n", 0, offset)
    return max(nl, text.rfind("\r", nl + 1, offset)) + 1


def line_end_at(text: str, offset: int) -> int:
    """Where the line holding ``offset`` ends (before its break)."""
    nl = text.find("\n", offset)
    if nl == -1:
        nl = len(text)
    cr = text.find("\r", offset, nl)
    return nl if cr == -1 else cr


def _units(s: str, encoding: Encoding) -> int:
    if encoding == "utf-32" or s.isascii():
        return len(s)
    if encoding == "utf-16":
        return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)
    return len(s.encode("utf-8", "surrogatepass"))


def decode(data: bytes, *, keep_bytes: bool = False) -> tuple[str, list[str]]:
    """Decode file bytes as UTF-8, never failing.

    A BOM is dropped; invalid bytes become U+FFFD so that offsets stay meaningful, as editors show
    them. With ``keep_bytes`` (TREC files, which trec_eval reads as bytes) the BOM stays, as it is
    part of the first query id to trec_eval, and each invalid byte becomes a lone surrogate
    (Python's ``surrogateescape``), so that two ids differing only in invalid bytes stay two ids.
    The problems are returned as messages so the caller can report them rather than silently guess.
    """
    problems: list[str] = []
    if data.startswith(b"\xef\xbb\xbf") and not keep_bytes:
        data = data[3:]
    try:
        return data.decode("utf-8"), problems
    except UnicodeDecodeError as exc:
        if keep_bytes:
            problems.append(
                f"invalid UTF-8 at byte {exc.start}; ids are compared as bytes, as trec_eval does"
            )
            return data.decode("utf-8", "surrogateescape"), problems
        problems.append(f"invalid UTF-8 at byte {exc.start}; undecodable bytes shown as U+FFFD")
        return data.decode("utf-8", "replace"), problems


@dataclass(frozen=True, slots=True)
class Ref:
    """A string value as written in a file (a path, a glob, a name) and where it was written."""

    value: str
    span: Span
