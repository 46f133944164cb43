"""The formatter of golden sets and run YAML: text in, minimal edits and text out.

What it does: the top-level keys and each question's keys in their canonical order
(``keys.py``; unknown keys after, in their order), questions (a run's queries) in their order or
sorted by id, each ``relevant:`` in the chosen style (``relevant_style.py``), and a line break
at the end. What it keeps: every comment and blank line (a comment moves with the entry it is
about: ``yaml/blocks.py``), every value as written (ids, questions, grades, rankings) except the
documents of a ``relevant:`` it restyles, which read back the same. A file the parser reports
a syntax or shape error in (QR001, QR002, QR004, QR005, QR006) is not formatted: what it means
is not settled. And a formatted text is parsed again and compared with the original, model and
values, before it is given out: if they differ, the file is not formatted (a formatter that
could lose a judgment is worse than none).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain

from ..base.edits import newline_of
from ..base.findings import TextEdit
from ..base.patterns import DIGIT_RUNS, LINE_SEPARATORS
from ..base.reorder import Unit, applied, reordered, trimmed
from ..base.text import LineIndex, Span
from ..model import Qrels, Run
from .relevant_style import Place, restyled
from .style import FormatSettings
from .yaml.blocks import Layout, first_line, layout
from .yaml.tree import YamlDoc, YMap, YNode, YScalar, key_text
from .yaml_meaning import same_meaning

BLOCKING = frozenset({"QR001", "QR002", "QR004", "QR005", "QR006"})
"""Findings that leave what the file means unsettled: syntax, anchors and tags, wrong shapes,
keys given twice, a file cut short."""


@dataclass(frozen=True, slots=True)
class Schema:
    """What a YAML format's formatter reorders, and its parser (to check what it made)."""

    read: Callable[[str], tuple[Qrels | Run, YamlDoc]]  # the model and the tree, parsed once
    check: Callable[[str], tuple[Qrels | Run, YamlDoc | None]]  # of a formatted text: its model,
    # and its tree when its values are compared too (a golden set's: see yaml_meaning.py)
    top: tuple[str, ...]  # the top-level keys, in order
    entries: str  # the key of the questions (queries) mapping
    keys: tuple[str, ...] = ()  # each entry's keys, in order (none: its value is kept as is)
    restyle: str | None = None  # the key in each entry whose value gets a style (`relevant`)

    def reformat(
        self, text: str, settings: FormatSettings, within: Span | None = None
    ) -> Reformatted:
        return reformat(text, self, settings, within)


@dataclass(frozen=True, slots=True)
class Reformatted:
    """The formatted text and the edits that make it; or, when ``problem`` says why, the text as
    it was and no edit."""

    text: str
    edits: tuple[TextEdit, ...] = ()
    problem: str | None = None
    at: Span | None = None  # where the problem is


def reformat(
    text: str, schema: Schema, settings: FormatSettings, within: Span | None = None
) -> Reformatted:
    """``text`` formatted; with ``within``, only the entries (questions) that range touches,
    each in itself (range formatting: nothing moves across them)."""
    if text.startswith("\ufeff"):  # kept, and the rest formatted as the parser reads it
        inner = reformat(text[1:], schema, settings, _shifted(within, -1))
        moved = tuple(TextEdit(e.span.shifted(1), e.new_text) for e in inner.edits)
        at = inner.at.shifted(1) if inner.at is not None else None
        return Reformatted("\ufeff" + inner.text, moved, inner.problem, at)
    separator = LINE_SEPARATORS.search(text)
    if separator is not None:
        at = Span(separator.start(), separator.end())
        return Reformatted(
            text,
            problem="it holds a Unicode line separator (U+0085, U+2028 or U+2029), which YAML reads as a line break",
            at=at,
        )
    model, doc = schema.read(text)
    blocking = next((f for f in model.findings if f.code in BLOCKING), None)
    if blocking is not None:
        return Reformatted(text, problem=f"{blocking.code} {blocking.message}", at=blocking.span)
    if not isinstance(doc.root, YMap):
        return Reformatted(text)
    work = text if not text or text.endswith(("\n", "\r")) else text + newline_of(text)
    edits = _document(work, LineIndex(work), doc.root, schema, settings, within)
    new = applied(work, edits)
    if new == text:
        return Reformatted(text)
    sorted_ = settings.sort_queries and within is None
    new_model, new_doc = schema.check(new)
    if not same_meaning(
        (model, doc), (new_model, new_doc), schema.entries, schema.restyle, sorted_
    ):
        return Reformatted(
            text,
            problem="its formatted text would read differently, so it is left as it is",
        )
    return Reformatted(new, tuple(_on_original(text, work, edits)))


def _shifted(span: Span | None, delta: int) -> Span | None:
    return Span(max(0, span.start + delta), max(0, span.end + delta)) if span is not None else None


def _on_original(text: str, work: str, edits: list[TextEdit]) -> list[TextEdit]:
    """``edits`` of ``work`` (``text`` with a line break added at its end) as edits of
    ``text``: those that reach the added break become one edit up to the end, which writes it
    too; else the break is an edit of its own, last."""
    end = len(text)
    if work == text:
        return edits
    before: list[TextEdit] = []
    after: list[TextEdit] = []
    for e in edits:
        (before if e.span.end < end or e.span.start == e.span.end == end else after).append(e)
    start = min([end, *(e.span.start for e in after)])
    tail = applied(work, after, Span(start, len(work)))
    return [*before, *trimmed(text, Span(start, end), tail)]


def _document(
    text: str,
    lines: LineIndex,
    root: YMap,
    schema: Schema,
    settings: FormatSettings,
    within: Span | None,
) -> list[TextEdit]:
    inner = [
        _entries(text, lines, k, v, schema, settings, within)
        if key_text(k) == schema.entries and isinstance(v, YMap)
        else []
        for k, v in root.items
    ]
    laid = layout(text, lines, root, first_line(lines, root))
    if laid is None or within is not None:
        return list(chain.from_iterable(inner))
    order = _canonical([e.key.value for e in laid.entries], schema.top)
    return _moved(text, laid, inner, order)


def _entries(
    text: str,
    lines: LineIndex,
    key: YNode,
    node: YMap,
    schema: Schema,
    settings: FormatSettings,
    within: Span | None,
) -> list[TextEdit]:
    """The questions (a run's queries): each formatted in itself, sorted when asked."""
    inner = [
        _entry(text, lines, k, v, schema, settings)
        if within is None or (k.span.start <= within.end and v.span.end >= within.start)
        else []
        for k, v in node.items
    ]
    laid = layout(text, lines, node, lines.line_of(key.span.start) + 1)
    if laid is None or within is not None or not settings.sort_queries:
        return list(chain.from_iterable(inner))
    ids = [e.key.value for e in laid.entries]
    order = sorted(range(len(ids)), key=lambda i: _natural(ids[i]))
    return _moved(text, laid, inner, order)


def _entry(
    text: str, lines: LineIndex, key: YNode, node: YNode, schema: Schema, settings: FormatSettings
) -> list[TextEdit]:
    """One question: its keys in order, its `relevant:` in style."""
    if not schema.keys or not isinstance(node, YMap):
        return []
    column = key.span.start - lines.line_start(lines.line_of(key.span.start))
    inner = []
    for k, v in node.items:
        if schema.restyle is not None and key_text(k) == schema.restyle and isinstance(k, YScalar):
            at = k.span.start - lines.line_start(lines.line_of(k.span.start))
            step = at - column if at > column else 2
            inner.append(
                restyled(
                    text, k, v, settings.relevant, Place(node.flow, at + step, newline_of(text))
                )
            )
        else:
            inner.append([])
    laid = layout(text, lines, node, lines.line_of(key.span.start) + 1)
    if laid is None:
        return list(chain.from_iterable(inner))
    order = _canonical([e.key.value for e in laid.entries], schema.keys)
    return _moved(text, laid, inner, order)


def _moved(
    text: str, laid: Layout, inner: list[list[TextEdit]], order: list[int]
) -> list[TextEdit]:
    """The edits putting ``laid``'s entries in ``order``, each with the edits inside it."""
    units = [Unit(e.span, edits) for e, edits in zip(laid.entries, inner, strict=True)]
    return reordered(text, laid.region, units, order, attached=laid.attached)


def _canonical(names: Sequence[str], known: Sequence[str]) -> list[int]:
    """The places of ``names`` in canonical order: known keys as ``known`` has them, then the
    others in their order."""
    rank = {name: i for i, name in enumerate(known)}
    return sorted(range(len(names)), key=lambda i: rank.get(names[i], len(known)))


def _natural(qid: str) -> tuple[list[object], str]:
    """Ids in order with their numbers by value (q2 before q10; 007 and 7 by their text)."""
    parts: list[object] = []
    for i, part in enumerate(DIGIT_RUNS.split(qid)):
        digits = part.lstrip("0")
        parts.append((len(digits), digits) if i % 2 else part)
    return parts, qid
