"""Renaming a query id across a golden set and every run scored against it.

A query id is written once per golden set (a key under ``queries:``; the first field of each of
its lines in TREC/BEIR qrels), once per YAML run (a key under ``results:``) and on every line of
its ranking in a TREC run (the first field). The edits replace exactly those characters, keeping
the quoting of each occurrence; nothing else changes. A new id that is already used anywhere in
those files is refused: a rename must never merge two queries silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.base.findings import TextEdit
from ..core.base.text import LineIndex, Span
from ..core.formats import get
from ..core.project.analysis import Analysis
from ..core.project.project import Project


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
    return get(kind).query_ids(text)


def query_id_at(kind: str, text: str, offset: int) -> tuple[str, Span] | None:
    """The query id under the cursor (a cursor at either end of the id counts)."""
    for qid, span in occurrences(kind, text):
        if span.contains(offset):
            return qid, span
    return None


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
                        span, get(target.kind).id_text(target.text, span, new), str(target.path)
                    )
                )
    if not edits:
        raise RenameError(f"query `{old}` was not found in the golden set or its runs.")
    return edits


def rename_in_project(
    project: Project, analysis: Analysis, offset: int, new: str
) -> list[TextEdit]:
    """The edits renaming the query id at ``offset`` of an analysed file in its golden set and
    every run scored against it (reads them: call it on the analysis thread); raises RenameError
    with the reason when there is no query id there or no golden set to rename it in."""
    hit = query_id_at(analysis.kind, analysis.text, offset)
    if hit is None:
        raise RenameError("There is no query id here to rename.")
    ctx = analysis.context
    if ctx is None:
        raise RenameError("This run is not tied to a golden set: add `qrels:` first, then rename.")
    paths = [ctx.path, *ctx.run_paths]
    if analysis.path.resolve() not in paths:
        paths.append(analysis.path.resolve())
    targets = []
    for path in paths:
        kind, text, _model, _error = project.load(path)
        if kind is not None and text is not None:
            targets.append(RenameTarget(path, kind, text))
    return rename_query(targets, hit[0], new)
