"""Findings: what a parser or a check says about a file, in core terms.

A finding is plain data (code, severity, span, message, fixes, related places). The CLI prints
it, the language server converts it to a Diagnostic and its fixes to code actions. Fixes are
minimal text edits, so applying one never touches what the user wrote elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import IntEnum

from .caps import shortened
from .text import Span


class Severity(IntEnum):
    """Ordered most to least severe; the values match LSP's DiagnosticSeverity."""

    ERROR = 1
    WARNING = 2
    INFO = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``span`` with ``new_text``; ``path`` is None for the file the finding is in."""

    span: Span
    new_text: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[TextEdit, ...]
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a finding (e.g. the first occurrence of a duplicate)."""

    span: Span
    message: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    span: Span
    message: str
    fixes: tuple[Fix, ...] = ()
    related: tuple[Related, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckCode:
    """A documented check: the README's table is generated from :data:`CODES`."""

    code: str
    name: str
    severity: Severity
    applies_to: str
    summary: str
    drops: bool = False  # a finding of it means part of the file is not scored


CODES: dict[str, CheckCode] = {}
"""Every check code declared so far, by the module that reports it (:func:`declare`);
``core/codes.py`` imports them all, so the whole table (the README's, the editors' links) is there."""


def declare(
    code: str,
    name: str,
    severity: Severity,
    applies_to: str,
    summary: str,
    *,
    drops: bool = False,
) -> str:
    """Declare a check code where it is reported; returns the code, for use in :func:`finding`.

    ``drops``: a finding of it says that a line, entry or value is left out of the scores (a
    malformed line, a duplicate, an id of the wrong type). `score` counts those on stderr, so
    that a number is never quietly made of less than the file holds."""
    CODES[code] = CheckCode(code, name, severity, applies_to, summary, drops)
    return code


def dropping(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that say part of a file is not scored."""
    return [f for f in findings if CODES[f.code].drops]


def finding(
    code: str,
    span: Span,
    message: str,
    *,
    fixes: tuple[Fix, ...] = (),
    related: tuple[Related, ...] = (),
    severity: Severity | None = None,
) -> Finding:
    """Build a finding with the code's documented severity (unless overridden)."""
    return Finding(
        code=code,
        severity=severity if severity is not None else CODES[code].severity,
        span=span,
        message=shortened(message),
        fixes=fixes,
        related=related,
    )


def shift_finding(f: Finding, d: int, at: int = 0) -> Finding:
    """``f`` with every span of this file that starts at or after ``at`` moved by ``d``."""
    if not d:
        return f
    return replace(
        f,
        span=_moved(f.span, d, at),
        fixes=tuple(
            Fix(x.title, tuple(_shift_edit(e, d, at) for e in x.edits), x.preferred)
            for x in f.fixes
        ),
        related=tuple(
            Related(_moved(r.span, d, at), r.message, r.path) if r.path is None else r
            for r in f.related
        ),
    )


def _moved(span: Span, d: int, at: int) -> Span:
    return Span(span.start + d, span.end + d) if span.start >= at else span


def _shift_edit(e: TextEdit, d: int, at: int) -> TextEdit:
    if e.path is not None:
        return e
    return TextEdit(_moved(e.span, d, at), e.new_text, e.path)
