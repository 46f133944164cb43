"""Renaming a query id across a golden set and every run scored against it.

A query id is written once per golden set (a key under ``queries:``; the first field of each of
its lines in TREC/BEIR qrels), once per YAML run (a key under ``results:``) and on every line of
its ranking in a TREC run (the first field). The edits replace exactly those characters, keeping
the quoting of each occurrence; nothing else changes. A new id that is already used anywhere in
those files is refused: a rename must never merge two queries silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .findings import TextEdit
from .judge import yaml_scalar
from .text import LineIndex, Span
from .yamlcontext import entries_of

YAML_KINDS = {"golden": ("queries",), "run-yaml": ("results",)}
LINE_KINDS = ("trec-qrels", "beir-qrels", "trec-run")
_FIRST_FIELD = re.compile(r"[ \t]*([^ \t\r\n]+)")


class RenameError(ValueError):
    """The rename is refused; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class RenameTarget:
    """A file taking part in a rename: the golden set or one of its runs."""

    path: Path
    kind: str  # a FileKind
    text: str


def occurrences(kind: str, text: str) -> list[tuple[str, Span]]:
    """Every query id written in a file, with the span of its characters (inside quotes)."""
    if kind in YAML_KINDS:
        return [(e.text, e.span) for e in entries_of(text, YAML_KINDS[kind]) if e.role == "key"]
    if kind not in LINE_KINDS:
        return []
    out: list[tuple[str, Span]] = []
    lines = LineIndex(text)
    for n in range(lines.line_count):
        start = lines.line_start(n)
        m = _FIRST_FIELD.match(text, start, lines.line_end(n))
        if m is None:
            continue
        if (
            kind == "beir-qrels"
            and n == 0
            and m.group(1).lower() in ("query-id", "query_id", "qid")
        ):
            continue  # the header
        out.append((m.group(1), Span(m.start(1), m.end(1))))
    return out


def query_id_at(kind: str, text: str, offset: int) -> tuple[str, Span] | None:
    """The query id under the cursor (a cursor at either end of the id counts)."""
    for qid, span in occurrences(kind, text):
        if span.contains(offset):
            return qid, span
    return None


def _replacement(kind: str, text: str, span: Span, new: str) -> str:
    if kind not in YAML_KINDS:
        return new
    quote = text[span.start - 1] if span.start > 0 else ""
    if quote == '"' and text[span.end : span.end + 1] == '"':
        return json.dumps(new, ensure_ascii=False)[1:-1]
    if quote == "'" and text[span.end : span.end + 1] == "'":
        return new.replace("'", "''")
    return yaml_scalar(new)


def rename_query(targets: list[RenameTarget], old: str, new: str) -> list[TextEdit]:
    """Edits renaming query ``old`` to ``new`` in every target; raises RenameError."""
    if new == old:
        return []
    if not new or new != new.strip() or any(c.isspace() for c in new):
        raise RenameError(
            f"`{new}` is not a valid query id: ids cannot be empty or hold spaces "
            "(TREC files separate fields by whitespace)."
        )
    edits: list[TextEdit] = []
    for target in targets:
        found = occurrences(target.kind, target.text)
        lines = LineIndex(target.text)
        for qid, span in found:
            if qid == new:
                line = lines.line_of(span.start) + 1
                raise RenameError(
                    f"`{new}` is already a query id in {target.path.name} (line {line}); "
                    "renaming would merge two queries: pick another id."
                )
        for qid, span in found:
            if qid == old:
                edits.append(
                    TextEdit(
                        span, _replacement(target.kind, target.text, span, new), str(target.path)
                    )
                )
    if not edits:
        raise RenameError(f"query `{old}` was not found in the golden set or its runs.")
    return edits
