"""Suppression: by configuration (``ignore = [...]``) and by a comment on the finding's line.

``# qrels-lsp: ignore`` silences every finding on its line; ``# qrels-lsp: ignore[QR106, QR110]``
only those codes. The comment sits on the line where the finding starts, as with ruff's
``noqa``; it works in YAML files (TREC formats have no end-of-line comments).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding
from ..base.patterns import SUPPRESS_MARK
from ..base.text import line_index


def inline_suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """line -> codes silenced on it (None: all codes)."""
    if "qrels-lsp:" not in text:
        return {}
    lines = line_index(text)
    out: dict[int, frozenset[str] | None] = {}
    for match in SUPPRESS_MARK.finditer(text):
        line = lines.line_of(match.start())
        codes = match.group(1)
        out[line] = (
            None
            if codes is None
            else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
        )
    return out


def apply_suppressions(
    findings: Iterable[Finding], text: str, ignore: Iterable[str] = ()
) -> list[Finding]:
    """The findings that are neither ignored by config nor silenced on their line."""
    ignored = {c.upper() for c in ignore}
    inline = inline_suppressions(text)
    lines = line_index(text) if inline else None
    kept = []
    for f in findings:
        if f.code in ignored:
            continue
        if lines is not None:
            silenced = inline.get(lines.line_of(f.span.start), frozenset())
            if silenced is None or f.code in silenced:
                continue
        kept.append(f)
    return kept
