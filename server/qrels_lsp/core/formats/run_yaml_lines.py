"""Run YAML in the layouts runs are written in, read line by line: the fast readers behind
:mod:`.run_yaml`.

PyYAML's event stream alone takes seconds on a 10,000-question x 100-document run (a million
scalars), and the tree and the run model built from it as long again. Nearly every run YAML is
written one of three ways under ``results:``::

    q1: [d1, d2, d3]          # a flow list on one line
    q2:
      - d1                    # a block list
    q3:
      d1: 12.5                # a mapping id -> score

This module reads exactly those, with plain ids (letters, digits, ``_./-``, no YAML 1.1 boolean
or null word), plain numbers as scores, ``qrels:``/``name:``/``description:`` as plain one-line
values, blank and comment lines anywhere, and nothing else. Any line it does not recognise as
one of them (a quote, a tab, a CR, a comment after a value, a flow mapping, an anchor, a key
it does not know, a key given twice, an indentation that changes, a value past a parser limit)
makes it return None, and the caller parses the file with PyYAML: a layout this reader gets
wrong is a layout it does not read. ``tests/test_run_yaml_lines.py`` holds both readers to the
full parser on generated and mutated files.

Two readers share the scanner: :func:`scan` with spans (what the editor's run model needs),
and :func:`rankings` without (what scoring needs: the query ids' documents in evaluation order,
a few strings per line). The span-free reader also declines a file with a repeated query or
document, so a file it reads has nothing left out of its scores (:func:`clean`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from ..base.patterns import (
    CONTROL,
    RUN_BLANK,
    RUN_FLOW,
    RUN_ITEM,
    RUN_OPEN,
    RUN_RESULTS,
    RUN_SCORED,
    RUN_TOP,
    RUN_UNSAFE,
)
from ..base.text import Span
from ..metrics import trec_eval_order
from .yaml.tree import DEFAULT_LIMITS

# YAML 1.1 reads these plain words as booleans or null: an id that is one is not an id.
_RESERVED = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
    ]
)


@dataclass(slots=True)
class Entry:
    """One query under ``results:`` as written: its documents (and their scores, for a mapping),
    with their offsets when asked for."""

    qid: str
    key: int  # offset of the query id
    flow: bool  # written ``[...]`` on the key's line
    docs: list[str]
    scores: list[float] | None  # a mapping id -> score
    starts: list[int] | None  # offsets of the doc ids (with spans)
    value: Span | None  # the list's or mapping's span (with spans)


@dataclass(slots=True)
class Layout:
    """A run YAML in a common layout: its top-level values and its entries in file order."""

    top: dict[str, tuple[str, Span]]  # qrels, name, description: (value, its span)
    results: Span  # the `results` key
    entries: list[Entry]


def scan(text: str, *, spans: bool = True) -> Layout | None:
    """The file's layout, or None when any line is not one this module reads exactly."""
    if not text or _control(text) or (not text.isascii() and RUN_UNSAFE.search(text)):
        return None
    lines = text.split("\n")
    top: dict[str, tuple[str, Span]] = {}
    results: Span | None = None
    entries: list[Entry] = []
    state = "top"  # then "results" (its entries), then "after" (top-level keys again)
    indent = 0  # of the query ids under results
    offset = 0
    i = 0
    nodes = 1
    while i < len(lines):
        line = lines[i]
        start = offset
        offset += len(line) + 1
        i += 1
        if not line or RUN_BLANK.fullmatch(line):
            continue
        if line[0] != " ":
            if state == "results":
                if not entries:
                    return None  # `results:` with no value: left to the parser
                state = "after"
            m = RUN_TOP.fullmatch(line)
            if m is not None and m.group(1) not in top and m.group(2) not in _RESERVED:
                top[m.group(1)] = (m.group(2), Span(start + m.start(2), start + m.end(2)))
                nodes += 2
            elif RUN_RESULTS.fullmatch(line) and state == "top":
                results = Span(start, start + 7)
                state = "results"
                nodes += 2
            else:
                return None
            continue
        if state != "results":
            return None
        m = RUN_FLOW.fullmatch(line)
        opened = RUN_OPEN.fullmatch(line) if m is None else None
        found = m or opened
        if found is None or (indent and len(found.group(1)) != indent):
            return None
        indent = len(found.group(1))
        qid = found.group(2)
        if qid in _RESERVED:
            return None
        if m is not None:
            inner = m.group(3)
            docs = inner.split(", ") if inner else []
            if not _RESERVED.isdisjoint(docs):
                return None
            starts = value = None
            if spans:
                first = start + m.start(3)
                starts = list(accumulate(map((2).__add__, map(len, docs[:-1])), initial=first))
                del starts[len(docs) :]  # (none for an empty list)
                bracket = start + m.end(2) + 2
                value = Span(bracket, start + m.end(3) + 1 if inner else bracket + 2)
            entries.append(Entry(qid, start + indent, True, docs, None, starts, value))
            nodes += 2 + len(docs)
        else:
            block = _block(lines, i, offset, indent, spans)
            if block is None:
                return None
            entry, i, offset = block
            entry.qid, entry.key = qid, start + indent
            entries.append(entry)
            nodes += 2 + len(entry.docs) * (1 if entry.scores is None else 2)
        if len(entries[-1].docs) > DEFAULT_LIMITS.max_items:
            return None
    if results is None or not entries or len(entries) > DEFAULT_LIMITS.max_items:
        return None
    if nodes >= DEFAULT_LIMITS.max_nodes:
        return None
    return Layout(top, results, entries)


def _control(text: str) -> bool:
    """A control character other than the line break (a tab, a CR, NUL, DEL)."""
    return any(c in text for c in "\t\r\x00\x7f") or CONTROL.search(text) is not None


def _block(
    lines: list[str], i: int, offset: int, indent: int, spans: bool
) -> tuple[Entry, int, int] | None:
    """The block list or mapping under a query id opened at ``indent``: its entry, and the line
    and offset after it."""
    docs: list[str] = []
    scores: list[float] | None = None
    starts: list[int] | None = [] if spans else None
    width = 0
    first = last_end = -1
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line or RUN_BLANK.fullmatch(line):
            offset += len(line) + 1
            i += 1
            continue
        lead = len(line) - len(line.lstrip(" "))
        if lead <= indent:
            break
        if width and lead != width:
            return None
        width = lead
        m = RUN_ITEM.fullmatch(line)
        if m is not None and scores is None:
            doc = m.group(2)
            if first < 0:
                first = offset + lead
            end = offset + m.end(2)
        else:
            m = RUN_SCORED.fullmatch(line)
            if m is None or (docs and scores is None):
                return None
            if scores is None:
                scores = []
                first = offset + lead
            doc = m.group(2)
            scores.append(float(m.group(3)))
            end = offset + m.end(3)
        if doc in _RESERVED:
            return None
        docs.append(doc)
        if starts is not None:
            starts.append(offset + m.start(2))
        last_end = end
        offset += len(line) + 1
        i += 1
    if not docs:
        return None  # an empty value (null): left to the parser
    value = Span(first, last_end) if spans else None
    return Entry("", 0, False, docs, scores, starts, value), i, offset


def rankings(text: str) -> dict[str, list[str]] | None:
    """qid -> doc ids in evaluation order (list order; a mapping by score, as trec_eval ranks),
    as :func:`~.run_yaml.parse_run_yaml` ranks them; None when the file is not in a layout
    this module reads, or repeats a query or a document (the parser then says where)."""
    layout = _layout(text)
    if layout is None:
        return None
    out: dict[str, list[str]] = {}
    for e in layout.entries:
        if e.qid in out or len(set(e.docs)) != len(e.docs):
            _remember(text, layout, clean=False)
            return None
        if e.scores is None:
            out[e.qid] = e.docs
        else:
            out[e.qid] = trec_eval_order(zip(e.docs, e.scores, strict=True))
    return out


def header(text: str) -> dict[str, tuple[str, Span]] | None:
    """The top-level values written above ``results:``, read up to it, when every line there
    is one this module reads; None for any other file (and one without ``results:``). The
    reverse links need each run's ``qrels:``, nearly always its first line: reading the whole
    file for it took a workspace of 300 runs three seconds before its first answer."""
    top: dict[str, tuple[str, Span]] = {}
    start = 0
    while True:
        end = text.find("\n", start)
        line = text[start:] if end == -1 else text[start:end]
        if _control(line) or (not line.isascii() and RUN_UNSAFE.search(line)):
            return None
        if line and not RUN_BLANK.fullmatch(line):
            if RUN_RESULTS.fullmatch(line):
                return top
            m = RUN_TOP.fullmatch(line)
            if m is None or m.group(1) in top or m.group(2) in _RESERVED:
                return None
            top[m.group(1)] = (m.group(2), Span(start + m.start(2), start + m.end(2)))
        if end == -1:
            return None
        start = end + 1


def top_values(text: str) -> dict[str, tuple[str, Span]] | None:
    """The top-level values (``qrels``, ``name``, ``description``) of a file in a layout this
    module reads, with their spans; None for any other file."""
    layout = _layout(text)
    return layout.top if layout is not None else None


def clean(text: str) -> bool:
    """Whether :func:`rankings` reads ``text``, so that nothing in it is left out of the scores."""
    _layout(text)
    last = _last
    return last[0] is text and last[2]


# The span-free layout of the last text read, and whether it repeats nothing: scoring asks for
# the rankings, the name and whether anything was left out right after one another.
_last: tuple[str, Layout | None, bool] = ("", None, False)


def _layout(text: str) -> Layout | None:
    last = _last  # (one read: another thread may be reading a run too)
    if last[0] is text:
        return last[1]
    layout = scan(text, spans=False)
    _remember(text, layout, clean=layout is not None and _unrepeated(layout))
    return layout


def _unrepeated(layout: Layout) -> bool:
    qids = {e.qid for e in layout.entries}
    return len(qids) == len(layout.entries) and all(
        len(set(e.docs)) == len(e.docs) for e in layout.entries
    )


def _remember(text: str, layout: Layout | None, *, clean: bool) -> None:
    global _last
    _last = (text, layout, clean)


def forget() -> None:
    """Drop the last text read and its layout (the editor closed every document)."""
    _remember("", None, clean=False)
