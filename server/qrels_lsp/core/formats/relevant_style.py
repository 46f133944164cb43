"""A question's ``relevant:`` written in the style the ``format.relevant`` setting chooses.

Only what says the same in the new style is rewritten: a list whose documents all have grade 1,
or a mapping of documents to integer grades, each document once, with no comment inside (a
comment after its last line stays after it). A mapping with a grade other than 1 is never made
a list; a block style is never put inside a flow mapping. Anything else is left as written:
the checks say what is wrong with it (a document twice, QR102; a grade in quotes, QR103).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.findings import TextEdit
from ..base.patterns import BLANKS_COLON
from ..base.reorder import trimmed
from ..base.text import Span, line_end_at
from .grades import in_range
from .style import RelevantStyle
from .yaml.scalar import yaml_scalar
from .yaml.tree import YMap, YNode, YScalar, YSeq

MAX_KEY = 1000
"""A mapping key of more characters needs YAML's explicit ``? `` form (PyYAML takes at most
1024 for a simple key): such a list is not made a mapping."""

_FLOW_BAD = frozenset(",[]{}")  # end a plain scalar inside [...] or {...}


@dataclass(frozen=True, slots=True)
class Place:
    """Where a ``relevant:`` is: in a flow mapping (only flow styles fit), the column its block
    items go at, and the file's line break."""

    flow: bool
    indent: int
    newline: str


def restyled(
    text: str, key: YScalar, value: YNode, style: RelevantStyle, at: Place
) -> list[TextEdit]:
    """The edit writing ``key``'s value (a ``relevant:``) in ``style``; none when it is written
    so already or cannot say the same in it."""
    colon = BLANKS_COLON.match(text, key.span.end)
    judged = _judgments(value)
    if style == "keep" or colon is None or judged is None or _commented(text, colon.end(), value):
        return []
    binary = all(grade == 1 for _, grade in judged)
    flow = style == "flow" or (style == "list" and binary)
    as_list = binary and style != "mapping"
    if at.flow and not flow:
        return []
    items = [(_id(text, doc, flow), grade) for doc, grade in judged]
    if not as_list and any(len(doc) > MAX_KEY for doc, _ in items):
        return []
    if not items:
        new = " []"
    elif flow and as_list:
        new = " [" + ", ".join(doc for doc, _ in items) + "]"
    elif flow:
        new = " {" + ", ".join(f"{doc}: {grade}" for doc, grade in items) + "}"
    else:
        pad = at.newline + " " * at.indent
        new = "".join(pad + (f"- {doc}" if as_list else f"{doc}: {grade}") for doc, grade in items)
    return trimmed(text, Span(colon.end(), value.span.end), new)


def _judgments(value: YNode) -> list[tuple[YScalar, int]] | None:
    """The documents and grades, when every one is a plain document id (each once) with an
    integer grade; None otherwise."""
    if isinstance(value, YSeq):
        pairs: list[tuple[YNode, YNode | None]] = [(item, None) for item in value.items]
    elif isinstance(value, YMap):
        pairs = [(k, v) for k, v in value.items]
    else:
        return None
    out: list[tuple[YScalar, int]] = []
    for doc, grade_node in pairs:
        if not isinstance(doc, YScalar) or doc.type in ("null", "bool") or not doc.value.strip():
            return None
        grade = 1 if grade_node is None else _grade(grade_node)
        if grade is None:
            return None
        out.append((doc, grade))
    if len({doc.value for doc, _ in out}) != len(out):
        return None
    return out


def _grade(node: YNode) -> int | None:
    grade = node.as_int() if isinstance(node, YScalar) else None
    return grade if grade is not None and in_range(grade) else None


def _commented(text: str, start: int, value: YNode) -> bool:
    """Whether a comment lies between ``start`` (after the key's colon) and the value's end
    (outside the scalars, a ``#`` can only start one), or after a block value's last item, on
    its line (it is about that item)."""
    at = start
    for node in _scalars(value):
        if "#" in text[at : node.span.start]:
            return True
        at = max(at, node.span.end)
    block = isinstance(value, YMap | YSeq) and not value.flow
    end = line_end_at(text, value.span.end) if block else value.span.end
    return "#" in text[at:end]


def _scalars(value: YNode) -> list[YScalar]:
    if isinstance(value, YSeq):
        return [i for i in value.items if isinstance(i, YScalar)]
    if isinstance(value, YMap):
        return [n for pair in value.items for n in pair if isinstance(n, YScalar)]
    return []


def _id(text: str, node: YScalar, flow: bool) -> str:
    """A document id as it will be written: as the user wrote it when it fits on its line and in
    its new place (a plain ``0x10`` stays plain: other YAML readers read it as the number they
    read before), else quoted as :func:`yaml_scalar` quotes."""
    source = text[node.span.start : node.span.end]
    if "\n" in source or "\r" in source:
        return yaml_scalar(node.value, flow=flow)
    if node.plain and flow and (_FLOW_BAD & set(source) or source[:1] in ("?", ":")):
        return yaml_scalar(node.value, flow=True)
    return source
