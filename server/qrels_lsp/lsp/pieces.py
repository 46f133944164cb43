"""Responses with one JSON piece per question, kept between requests and patched after an edit.

An editor asks for every lens and the whole outline of a file after each keystroke: for a
golden set of ten thousand questions that is five megabytes of lenses and ten thousand symbols.
Building them as lsprotocol objects and encoding them cost far more than the analysis, and
blocked the editor's next keystroke while it ran. But a keystroke changes one question, and
typing within a line moves nothing else. So a response is kept as bytes with each question's
piece in place, each piece is encoded once for what it shows, and when the analysis says it was
made from the last one answered by an edit of one entry (:meth:`Analysis.changed_since`), only
the changed questions' pieces are made again. A piece's lines are kept relative to its first
line (:class:`Template`): when the edit added or removed lines, the pieces below it are written
again at their new lines from the same templates, with no encoding of JSON.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.base.patterns import PIECE_MARK
from .convert import Positions

if TYPE_CHECKING:
    from ..core.project.analysis import Analysis


class Payload:
    """A JSON array kept as ASCII bytes, with where each of its pieces starts.

    A piece replaced by one of the same length (a number written with two decimals, mostly) is
    written over in place, with no joining of ten thousand pieces again; one of another length
    (the first line's comparison, marked as being updated) is spliced in, and the starts after
    it moved by a vectorised add (a list of a hundred thousand starts took 35 ms to rebuild).

    ``lent``: the bytes were handed out as a response not sent yet. A patch then writes into a
    copy, so that what was handed out never changes; once sent (:meth:`PieceCache.sent`), the
    next patch writes in place again. Copying a 30 MB response costs about 16 ms (its fresh
    pages are faulted in), twice per response when it was copied out and again into the
    message.
    """

    __slots__ = ("data", "lent", "parts", "starts")

    def __init__(self, parts: list[bytes], data: bytearray | None = None, starts: Any = None):
        import numpy as np  # (not at start-up: see core/compare/__init__)

        self.lent = False
        self.parts = parts
        self.data = bytearray(b"[" + b",".join(parts) + b"]") if data is None else data
        if starts is None:
            starts = np.fromiter(
                itertools.accumulate((len(p) + 1 for p in parts), initial=1),
                dtype=np.int64,
                count=len(parts) + 1,
            )
        self.starts = starts

    def patched(self, changes: dict[int, bytes]) -> Payload:
        """This array with pieces replaced: itself, changed in place, when their lengths stay."""
        if all(len(part) == len(self.parts[i]) for i, part in changes.items()):
            into = (
                Payload(list(self.parts), bytearray(self.data), self.starts) if self.lent else self
            )
            for i, part in changes.items():
                start = int(into.starts[i])
                into.data[start : start + len(part)] = part
                into.parts[i] = part
            return into
        if len(changes) > 64:  # many pieces moved (lines added above them): join them again
            parts = list(self.parts)
            for i, part in changes.items():
                parts[i] = part
            return Payload(parts)
        parts, starts, at = list(self.parts), self.starts.copy(), 0
        chunks: list[bytes | bytearray] = []
        for i in sorted(changes):
            start, old = int(self.starts[i]), len(self.parts[i])
            chunks += [self.data[at:start], changes[i]]
            at = start + old
            parts[i] = changes[i]
            starts[i + 1 :] += len(changes[i]) - old
        chunks.append(self.data[at:])
        return Payload(parts, bytearray(b"".join(chunks)), starts)


LINE = 10**12
"""A line in a piece's JSON is written ``LINE + (line - the piece's first line)``: see
:class:`Template`."""


class Template:
    """A piece's JSON with its lines relative to its first line, written out at any first line.

    Made once per piece from JSON whose lines were written ``LINE + offset`` (a JSON string
    cannot hold an unescaped ``"line":``, so only the real fields match); written out with one
    C-level ``%`` per piece.
    """

    __slots__ = ("_format", "_offsets")

    def __init__(self, marked: bytes) -> None:
        self._offsets = tuple(int(m.group(1)) for m in PIECE_MARK.finditer(marked))
        self._format = PIECE_MARK.sub(b'"line":%d', marked.replace(b"%", b"%%"))

    def at(self, first: int) -> bytes:
        return self._format % tuple(first + offset for offset in self._offsets)


Placed = tuple[Template, int]
"""A piece: its template and the line it starts on."""


@dataclass(frozen=True, slots=True)
class Last:
    """The last response, for patching: what changed since, and where each question's piece is."""

    analysis: Analysis
    changed: frozenset[str]  # the questions whose pieces may differ
    at: dict[str, int]  # query id -> its piece
    extra: object  # what the feature kept about the whole response
    lines: int  # lines the edit added (negative: removed); the pieces after its entry move


@dataclass(slots=True)
class _Shown:
    analysis: Analysis
    encoding: str
    line_count: int
    placed: list[Placed]
    payload: Payload
    at: dict[str, int]
    extra: object


def compact_json(value: object) -> str:
    """JSON without spaces or ``\\u`` escapes: a lens title's `·` and `▲` are 2-3 bytes in
    UTF-8 against 6 escaped, and a response holds 100,000 of them. A lone surrogate (from a
    file that is not UTF-8) is escaped when the piece is encoded, as ``ensure_ascii`` would."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class PieceCache:
    """One document's last response of one kind, and its pieces by what they show."""

    def __init__(self) -> None:
        self._templates: dict[Hashable, Template] = {}
        self._shown: _Shown | None = None

    def piece(self, key: Hashable, first: int, make: Callable[[], str]) -> Placed:
        """The piece starting on line ``first`` whose JSON ``make()`` writes with lines marked
        (see :data:`LINE`); ``key`` names what it shows, lines relative to ``first``."""
        template = self._templates.get(key)
        if template is None:
            template = self._templates[key] = Template(make().encode("utf-8", "backslashreplace"))
        return template, first

    def last(self, pos: Positions, analysis: Analysis) -> Last | None:
        """The last response, when ``analysis`` was made from the one it answered by an edit of
        one entry (every other piece is then as it was, or moved by whole lines)."""
        shown = self._shown
        if shown is None or pos.encoding != shown.encoding:
            return None
        changed = analysis.changed_since(shown.analysis)
        if changed is None:
            return None
        lines = pos.lines.line_count - shown.line_count
        return Last(shown.analysis, changed, shown.at, shown.extra, lines)

    def answer(
        self,
        pos: Positions,
        analysis: Analysis,
        placed: list[Placed],
        at: dict[str, int],
        extra: object = None,
    ) -> bytearray:
        """The response from every piece, kept for the next one (lent: see :class:`Payload`)."""
        payload = Payload([template.at(first) for template, first in placed])
        return self._keep(pos, analysis, placed, payload, at, extra)

    def patch(
        self,
        pos: Positions,
        analysis: Analysis,
        last: Last,
        changes: dict[int, Placed],
        extra: object = None,
    ) -> bytearray | None:
        """The last response with pieces replaced (index -> piece) and, when the edit added or
        removed lines, the pieces after the edited entry's moved by them; None when lines moved
        and the edited entry has no piece to tell which pieces are after it."""
        shown = self._shown
        assert shown is not None and shown.analysis is last.analysis, "a patch of the last one"
        placed = list(shown.placed)
        for i, piece in changes.items():
            placed[i] = piece
        rendered = {i: template.at(first) for i, (template, first) in changes.items()}
        if last.lines:
            edited = last.at.get(analysis.edit.qid) if analysis.edit is not None else None
            if edited is None:
                return None
            for i in range(edited + 1, len(placed)):
                if i not in changes:
                    template, first = placed[i]
                    placed[i] = (template, first + last.lines)
                    rendered[i] = template.at(first + last.lines)
        payload = shown.payload.patched(rendered)
        return self._keep(pos, analysis, placed, payload, shown.at, extra)

    def _keep(
        self,
        pos: Positions,
        analysis: Analysis,
        placed: list[Placed],
        payload: Payload,
        at: dict[str, int],
        extra: object,
    ) -> bytearray:
        if len(self._templates) > 4 * len(placed) + 1024:
            self._templates.clear()  # what rewrites and keystrokes left behind
        line_count = pos.lines.line_count
        self._shown = _Shown(analysis, pos.encoding, line_count, placed, payload, at, extra)
        payload.lent = True
        return payload.data

    def sent(self, data: bytes | bytearray) -> None:
        """``data``, handed out by this cache, was sent: the next patch may write into it."""
        shown = self._shown
        if shown is not None and shown.payload.data is data:
            shown.payload.lent = False

    def forget(self) -> None:
        """Nothing to patch next time (a response this cache does not patch was given)."""
        self._shown = None
