"""Responses with one JSON piece per question, kept between requests and patched after an edit.

An editor asks for every lens and the whole outline of a file after each keystroke: for a
golden set of ten thousand questions that is five megabytes of lenses and ten thousand symbols.
Building them as lsprotocol objects and encoding them cost far more than the analysis, and
blocked the editor's next keystroke while it ran. But a keystroke changes one question, and
typing within a line moves nothing else. So a response is kept as bytes with each question's
piece in place, each piece is encoded once for what it shows, and when the analysis says it was
made from the last one answered by an edit of one entry (:meth:`Analysis.changed_since`) and no
line came or went, only the changed questions' pieces are made again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from ..core.project import Analysis
from .convert import Positions


class Payload:
    """A JSON array kept as ASCII bytes, with where each of its pieces starts.

    A piece replaced by one of the same length (a number written with two decimals, mostly) is
    written over in place, with no joining of ten thousand pieces again.
    """

    __slots__ = ("data", "parts", "starts")

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.data = bytearray(b"[" + b",".join(parts) + b"]")
        self.starts = list(itertools.accumulate((len(p) + 1 for p in parts), initial=1))

    def patched(self, changes: dict[int, bytes]) -> Payload:
        """This array with pieces replaced: itself, changed in place, when their lengths stay."""
        if any(len(part) != len(self.parts[i]) for i, part in changes.items()):
            parts = list(self.parts)
            for i, part in changes.items():
                parts[i] = part
            return Payload(parts)
        for i, part in changes.items():
            start = self.starts[i]
            self.data[start : start + len(part)] = part
            self.parts[i] = part
        return self


@dataclass(frozen=True, slots=True)
class Last:
    """The last response, for patching: what changed since, and where each question's piece is."""

    analysis: Analysis
    changed: frozenset[str]  # the questions whose pieces may differ
    at: dict[str, int]  # query id -> its piece
    extra: object  # what the feature kept about the whole response


@dataclass(slots=True)
class _Shown:
    analysis: Analysis
    encoding: str
    line_count: int
    payload: Payload
    at: dict[str, int]
    extra: object


class PieceCache:
    """One document's last response of one kind, and its pieces by what they show."""

    def __init__(self) -> None:
        self._pieces: dict[Hashable, bytes] = {}
        self._shown: _Shown | None = None

    def piece(self, key: Hashable, make: Callable[[], str]) -> bytes:
        """``make()`` (JSON text) as ASCII bytes, made once per ``key``."""
        text = self._pieces.get(key)
        if text is None:
            text = self._pieces[key] = make().encode("ascii")
        return text

    def last(self, pos: Positions, analysis: Analysis) -> Last | None:
        """The last response, when ``analysis`` was made from the one it answered by an edit of
        one entry and no line came or went (every other piece is then as it was)."""
        shown = self._shown
        if shown is None or (pos.encoding, pos.lines.line_count) != (
            shown.encoding,
            shown.line_count,
        ):
            return None
        changed = analysis.changed_since(shown.analysis)
        if changed is None:
            return None
        return Last(shown.analysis, changed, shown.at, shown.extra)

    def answer(
        self,
        pos: Positions,
        analysis: Analysis,
        parts: list[bytes] | dict[int, bytes],
        at: dict[str, int],
        extra: object = None,
    ) -> bytes:
        """The response (a copy: the cache keeps patching its own), from every piece (a list) or
        from the last response's with some replaced (index -> piece), kept for the next one."""
        if isinstance(parts, dict):
            assert self._shown is not None, "a patch needs a last response"
            payload = self._shown.payload.patched(parts)
        else:
            payload = Payload(parts)
        if len(self._pieces) > 4 * len(payload.parts) + 1024:
            self._pieces.clear()  # what rewrites and keystrokes left behind
        self._shown = _Shown(analysis, pos.encoding, pos.lines.line_count, payload, at, extra)
        return bytes(payload.data)

    def forget(self) -> None:
        """Nothing to patch next time (a response this cache does not patch was given)."""
        self._shown = None
