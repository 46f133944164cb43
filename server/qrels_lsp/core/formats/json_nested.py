"""The JSON shape ranx and pytrec_eval share: ``{"q1": {"d1": 12.5, "d2": 3}, ...}``, read twice.

A JSON run and a JSON qrels file are the same nesting (query id -> document id -> number), so one
reader serves both (``json_run.py`` and ``json_qrels.py`` say what the numbers mean). Python's
``json`` keeps no positions, and the editor needs a span for every id, so there are two readers
with one meaning:

- :func:`scan`, for the editor: a small scanner over the text that keeps the span of every key
  and value, and reports what is not JSON, or not that shape, where it is (QR314), without ever
  raising. Each entry ``"d1": 12.5`` is matched by one regular expression (the common case); only
  what does not match is looked at token by token, to say what is wrong. It stops at the first
  syntax error, as a JSON parser does, keeping what it read before it.
- :func:`read_nested`, for scoring: ``json.loads`` (C speed: a 10^6-entry run is read in about
  the time ``json.loads`` takes) and a check of the shape; None when the text is not exactly an
  object of objects of numbers, and the caller then takes :func:`scan`'s values, so both readers
  always agree.

Both read a key written twice in one object as ``json.loads`` does, and so as ranx and
pytrec_eval see the file: the last value counts, in the place of the first (QR315 says so).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from ..base.findings import Finding, Related, Severity, declare, finding
from ..base.patterns import (
    JSON_FRACTION,
    JSON_KEY,
    JSON_MEMBER,
    JSON_NESTED_START,
    JSON_NUMBER,
    JSON_STRING,
    JSON_TOKEN,
    JSON_WS,
)
from ..base.text import Span

QR314 = declare(
    "QR314",
    "json-invalid",
    Severity.ERROR,
    "JSON run/qrels",
    "Not valid JSON, or not an object of objects of numbers ({query: {document: number}}).",
    drops=True,  # (what it is said of is left out of the scores)
)
QR315 = declare(
    "QR315",
    "json-duplicate-key",
    Severity.WARNING,
    "JSON run/qrels",
    "A key twice in one JSON object: the last value counts, as json.loads (ranx, pytrec_eval) reads it.",
)

Number = int | float

_SHORT = 40  # characters of a wrong value quoted in a message


class _Located(Protocol):
    @property
    def span(self) -> Span: ...


_T = TypeVar("_T", bound=_Located)


@dataclass(slots=True)
class Entry:
    """``"key": number`` inside a query's object."""

    key: str
    span: Span  # of the key's characters, inside its quotes
    value: Number
    literal: str  # the number as written
    value_span: Span


@dataclass(slots=True)
class Group:
    """``"qid": {...}``: a query's object, its entries by key (the last value of a key counts)."""

    key: str
    span: Span  # of the query id's characters, inside its quotes
    block: Span  # from the query id to its object's closing brace
    entries: dict[str, Entry] = field(default_factory=dict)


@dataclass(slots=True)
class Scanned:
    groups: dict[str, Group] = field(default_factory=dict)
    keys: list[tuple[str, Span]] = field(default_factory=list)  # every query id as written
    findings: list[Finding] = field(default_factory=list)


class _Stop(Exception):
    """A syntax error: the scan ends there (the finding is already recorded)."""


def _decode(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    try:
        value = json.loads(token)
    except ValueError:  # (cannot happen for a token the pattern matched; never raise anyway)
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


def number(literal: str) -> Number:
    """A JSON number as ``json.loads`` reads it: an int without a fraction or exponent."""
    if "." in literal or "e" in literal or "E" in literal or not literal[-1].isdigit():
        return float(literal)  # (NaN and Infinity end in a letter)
    try:
        return int(literal)
    except ValueError:  # more digits than int() converts (Python 3.11's limit): as a float
        return float(literal)


def as_float(value: Number) -> float:
    """A number as a score (a float); an integer too large for one is an infinity."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _shown(text: str, start: int, end: int) -> str:
    s = text[start:end]
    return repr(s if len(s) <= _SHORT else s[:_SHORT] + "…")


class _Scanner:
    def __init__(self, text: str, what: str, value: str) -> None:
        self.text = text
        self.what = what  # "run" or "qrels"
        self.value = value  # what a number means: "score" or "grade"
        self.out = Scanned()

    def fail(self, pos: int, message: str) -> _Stop:
        end = min(pos + 1, len(self.text))
        self.out.findings.append(finding(QR314, Span(pos, end), message))
        return _Stop()

    def ws(self, pos: int) -> int:
        m = JSON_WS.match(self.text, pos)
        return m.end() if m else pos

    def skip_value(self, pos: int) -> int:
        """The end of the JSON value at ``pos`` (not looked into: it is reported as wrong)."""
        text = self.text
        m = JSON_STRING.match(text, pos) or JSON_NUMBER.match(text, pos)
        if m is not None:
            return m.end()
        for word in ("true", "false", "null"):
            if text.startswith(word, pos):
                return pos + len(word)
        if not text.startswith(("{", "["), pos):
            raise self.fail(pos, f"expected a JSON value, found {_shown(text, pos, pos + 10)}")
        depth, at = 0, pos
        while True:  # brackets counted, not recursed into: any depth is safe
            t = JSON_TOKEN.match(text, at)
            if t is None:
                raise self.fail(self.ws(at), "this value is not valid JSON (or is not closed)")
            at = t.end()
            if t.group(1):
                depth += 1
            elif t.group(2):
                depth -= 1
                if depth == 0:
                    return at

    def separator(self, pos: int, closer: str) -> tuple[int, bool]:
        """After a member: (position after ``,`` or the closer, whether it was the closer)."""
        pos = self.ws(pos)
        c = self.text[pos : pos + 1]
        if c == ",":
            return pos + 1, False
        if c == closer:
            return pos + 1, True
        raise self.fail(pos, f"expected ',' or '{closer}' here")

    def key(self, pos: int, what: str) -> tuple[str, Span, int]:
        m = JSON_KEY.match(self.text, pos)
        if m is None:
            found = self.text[pos : pos + 1]
            hint = " (a trailing comma is not JSON)" if found == "}" else ""
            raise self.fail(pos, f"expected {what} in double quotes, then ':'{hint}")
        token = m.group(1)
        return _decode(token), Span(m.start(1) + 1, m.end(1) - 1), m.end()

    def scan(self) -> Scanned:
        text = self.text
        pos = self.ws(1 if text.startswith("\ufeff") else 0)
        if not text.startswith("{", pos):
            what = "nothing" if pos >= len(text) else _shown(text, pos, pos + 10)
            self.fail(
                pos,
                f"a JSON {self.what} file is one object {{query: {{document: {self.value}}}}}; "
                f"found {what}",
            )
            return self.out
        try:
            pos = self.ws(pos + 1)
            if text.startswith("}", pos):
                pos += 1
            else:
                pos = self.members(pos)
        except _Stop:
            return self.out
        pos = self.ws(pos)
        if pos < len(text):
            self.fail(pos, "extra text after the JSON object: json.loads refuses the file")
        return self.out

    def members(self, pos: int) -> int:
        """The top-level members, from the first query id; returns the position after ``}``."""
        while True:
            qid, span, pos = self.key(pos, "a query id")
            self.out.keys.append((qid, span))
            if self.text.startswith("{", pos):
                group, pos = self.group(qid, span, pos)
                self.keep(self.out.groups, qid, group, span, "query")
            else:
                end = self.skip_value(pos)
                self.out.findings.append(
                    finding(
                        QR314,
                        Span(pos, end),
                        f"the value of query {qid} must be an object "
                        f"{{document: {self.value}}}, not {_shown(self.text, pos, end)}",
                    )
                )
                self.out.groups.pop(qid, None)  # the last value counts, and this one is unusable
                pos = end
            pos, closed = self.separator(pos, "}")
            if closed:
                return pos
            pos = self.ws(pos)

    def keep(self, into: dict[str, _T], key: str, item: _T, span: Span, what: str) -> None:
        """``into[key] = item`` as json.loads does it, and QR315 for a key seen before."""
        first = into.get(key)
        if first is not None:
            first_span = first.span
            self.out.findings.append(
                finding(
                    QR315,
                    span,
                    f"{what} {key} is written twice in this object; the last one counts (as "
                    "json.loads, ranx and pytrec_eval read it): remove one",
                    related=(Related(first_span, "first written here"),),
                )
            )
        into[key] = item

    def group(self, qid: str, span: Span, pos: int) -> tuple[Group, int]:
        """A query's object ``{"doc": number, ...}`` at ``pos`` (its ``{``)."""
        text = self.text
        group = Group(qid, span, Span(span.start - 1, pos))
        pos = self.ws(pos + 1)
        closed = text.startswith("}", pos)
        if closed:
            pos += 1
        while not closed:
            m = JSON_MEMBER.match(text, pos)
            if m is not None:  # the common case, in one match
                token, literal = m.group(1), m.group(2)
                entry = Entry(
                    _decode(token),
                    Span(m.start(1) + 1, m.end(1) - 1),
                    number(literal),
                    literal,
                    Span(m.start(2), m.end(2)),
                )
                if entry.key in group.entries:
                    self.keep(group.entries, entry.key, entry, entry.span, "document")
                else:
                    group.entries[entry.key] = entry
                pos, closed = m.end(), m.group(3) == "}"
                continue
            pos, closed = self.slow_member(group, self.ws(pos))
        group.block = Span(group.block.start, pos)
        return group, pos

    def slow_member(self, group: Group, pos: int) -> tuple[int, bool]:
        """One member the fast pattern did not match: read, or said what is wrong with it."""
        doc, span, vpos = self.key(pos, "a document id")
        m = JSON_NUMBER.match(self.text, vpos)
        if m is not None:
            literal = m.group()
            entry = Entry(doc, span, number(literal), literal, Span(m.start(), m.end()))
            self.keep(group.entries, doc, entry, span, "document")
            return self.separator(m.end(), "}")
        end = self.skip_value(vpos)
        self.out.findings.append(
            finding(
                QR314,
                Span(vpos, end),
                f"the {self.value} of {doc} for query {group.key} must be a number, "
                f"not {_shown(self.text, vpos, end)}",
            )
        )
        group.entries.pop(doc, None)  # the last value counts, and this one is unusable
        return self.separator(end, "}")


def scan(text: str, what: str, value: str) -> Scanned:
    """Query id -> document id -> number with spans, and located findings; never raises.

    ``what`` ("run", "qrels") and ``value`` ("score", "grade") word the messages."""
    return _Scanner(text, what, value).scan()


_NUMBER_TYPES = {int, float}


def read_nested(text: str) -> dict[str, dict[str, Number]] | None:
    """``json.loads(text)`` when it is exactly an object of objects of numbers, else None."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if type(data) is not dict:
        return None
    for docs in data.values():
        if type(docs) is not dict or not set(map(type, docs.values())) <= _NUMBER_TYPES:
            return None
    return data


class WholeReads:
    """Whether a fast reader took every entry of the last text it read (known by identity):
    what ``Format.clean`` asks right after scoring read the same text, answered without a
    second ``json.loads`` of a million entries."""

    def __init__(self) -> None:
        self._last: tuple[str | None, bool] = (None, False)

    def remember(self, text: str, whole: bool) -> None:
        self._last = (text, whole)

    def known(self, text: str) -> bool | None:
        last, whole = self._last
        return whole if last is text else None


def looks_nested(text: str) -> bool:
    """Whether ``text`` starts as ``{"q": {``: a JSON run or qrels file, by its content."""
    return JSON_NESTED_START.match(text) is not None


def has_fractions(text: str, window: int = 65536) -> bool:
    """Whether a number among the first ``window`` characters has a fraction or an exponent:
    scores do (ranx and pytrec_eval write floats), grades do not."""
    return JSON_FRACTION.search(text, 0, window) is not None
