"""Apply LSP TextEdits / WorkspaceEdits to text the way a client does, in its position encoding.

Written independently of the server's position code (it counts code units by encoding the
text), so it checks the server's ranges rather than repeating them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from lsprotocol import types

_BREAK = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _BREAK.finditer(text)]


def _line_end(text: str, starts: list[int], line: int) -> int:
    if line + 1 < len(starts):
        nxt = starts[line + 1]
        return nxt - (2 if text[nxt - 2 : nxt] == "\r\n" else 1)
    return len(text)


def offset_of(text: str, pos: types.Position, encoding: str) -> int:
    """The code point offset of an LSP position, counting columns in ``encoding`` units."""
    starts = _line_starts(text)
    assert 0 <= pos.line < len(starts), (pos, len(starts))
    start = starts[pos.line]
    line = text[start : _line_end(text, starts, pos.line)]
    units = 0
    for i, ch in enumerate(line):
        if units == pos.character:
            return start + i
        assert units < pos.character, "a position inside a character"
        units += _units(ch, encoding)
    assert units == pos.character, (pos, line, encoding)
    return start + len(line)


def _units(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8"))
    if encoding == "utf-16":
        return len(ch.encode("utf-16-le")) // 2
    return 1


def apply_text_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """All ranges refer to the original text; inserts at one position keep their array order."""
    spans = [
        (offset_of(text, e.range.start, encoding), offset_of(text, e.range.end, encoding), i, e)
        for i, e in enumerate(edits)
    ]
    ordered = sorted(spans, key=lambda s: (s[0], s[1], s[2]))
    for (_s1, e1, _i1, _), (s2, _e2, _i2, _) in itertools.pairwise(ordered):
        assert e1 <= s2, "overlapping edits"
    out = text
    for start, end, _i, e in sorted(spans, key=lambda s: (s[0], s[2]), reverse=True):
        out = out[:start] + e.new_text + out[end:]
    return out


def apply_workspace_edit(
    edit: types.WorkspaceEdit, texts: dict[str, str], encoding: str
) -> dict[str, str]:
    """The new text of every document the edit touches (``texts``: uri -> current text)."""
    out: dict[str, str] = {}
    changes = edit.document_changes or []
    assert changes, "the server sends versioned documentChanges"
    for change in changes:
        assert isinstance(change, types.TextDocumentEdit)
        uri = change.text_document.uri
        out[uri] = apply_text_edits(out.get(uri, texts[uri]), change.edits, encoding)  # type: ignore[arg-type]
    return out


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed and added (as a line diff sees them): everything else is byte-identical."""
    import difflib

    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    removed: list[str] = []
    added: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added
