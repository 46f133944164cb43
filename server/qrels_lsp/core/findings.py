"""Findings: what a parser or a check says about a file, in core terms.

A finding is plain data (code, severity, span, message, fixes, related places). The CLI prints
it, the language server converts it to a Diagnostic and its fixes to code actions. Fixes are
minimal text edits, so applying one never touches what the user wrote elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

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


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES: dict[str, CheckCode] = {
    c.code: c
    for c in [
        # Structure, shared by every YAML file.
        CheckCode("QR001", "yaml-syntax", _E, "YAML", "The file is not valid YAML."),
        CheckCode(
            "QR002",
            "yaml-unsupported",
            _E,
            "YAML",
            "Anchors, aliases, merge keys and tags are not allowed (they are never constructed).",
        ),
        CheckCode("QR003", "unknown-key", _W, "YAML", "A key the format does not define."),
        CheckCode("QR004", "wrong-type", _E, "YAML", "A value of the wrong type or shape."),
        CheckCode("QR005", "duplicate-key", _E, "YAML", "A mapping key given twice."),
        CheckCode(
            "QR006", "file-unreadable", _E, "any", "The file is too large, binary or not UTF-8."
        ),
        # Golden sets.
        CheckCode("QR101", "duplicate-query", _E, "golden set, run", "A query id given twice."),
        CheckCode(
            "QR102", "duplicate-document", _W, "golden set", "A document listed twice for a query."
        ),
        CheckCode(
            "QR103", "grade-not-integer", _E, "golden set", "A grade that is not an integer."
        ),
        CheckCode(
            "QR104",
            "unlinked-question",
            _W,
            "golden set",
            "A question with no relevant document and no `unanswerable: true`.",
        ),
        CheckCode(
            "QR105",
            "unanswerable-with-judgments",
            _W,
            "golden set",
            "`unanswerable: true` on a question that has relevant documents.",
        ),
        CheckCode(
            "QR106",
            "unknown-document",
            _W,
            "golden set",
            "A document id that is not in the corpus.",
        ),
        CheckCode("QR107", "empty-question", _W, "golden set", "A query with no question text."),
        CheckCode(
            "QR108", "duplicate-question", _W, "golden set", "The same question asked twice."
        ),
        CheckCode(
            "QR109", "corpus-missing", _E, "golden set", "The corpus path is missing or unreadable."
        ),
        CheckCode(
            "QR110",
            "question-copies-document",
            _I,
            "golden set",
            "A question that copies its relevant document's wording.",
        ),
        CheckCode(
            "QR111", "runs-not-found", _W, "golden set", "A `runs:` entry that matches no file."
        ),
        CheckCode(
            "QR113",
            "corpus-limited",
            _W,
            "golden set",
            "The corpus was read or indexed only in part: a limit cut it (the message says which).",
        ),
        CheckCode(
            "QR112",
            "outside-workspace",
            _E,
            "any",
            "A path (corpus, runs, `qrels:`, topics) that leads outside the workspace: not read "
            "unless your own settings allow it (`allow_outside`).",
        ),
        # Runs.
        CheckCode(
            "QR201", "run-unknown-query", _W, "run", "A query that is not in the golden set."
        ),
        CheckCode(
            "QR202",
            "run-missing-query",
            _W,
            "run",
            "A golden-set query the run does not answer (scored 0).",
        ),
        CheckCode("QR203", "run-duplicate-document", _E, "run", "A document twice in one ranking."),
        CheckCode(
            "QR204",
            "run-rank-order",
            _W,
            "TREC run",
            "The rank column disagrees with trec_eval's order (score, then docid).",
        ),
        CheckCode("QR205", "run-short-ranking", _I, "run", "Fewer than k results for a query."),
        CheckCode(
            "QR206", "run-unknown-document", _W, "run", "A retrieved id that is not in the corpus."
        ),
        CheckCode("QR207", "run-unbound", _W, "run", "The run cannot be tied to a golden set."),
        # TREC / BEIR text files.
        CheckCode("QR301", "malformed-line", _E, "TREC/BEIR", "A line with the wrong fields."),
        CheckCode(
            "QR302", "grade-not-integer-trec", _W, "TREC/BEIR", "A grade trec_eval would truncate."
        ),
        CheckCode(
            "QR303",
            "duplicate-judgment",
            _W,
            "TREC/BEIR",
            "The same (query, document) judged twice.",
        ),
        # Configuration and project.
        CheckCode("QR401", "config-invalid", _E, "config", "The configuration is not valid."),
        CheckCode(
            "QR402", "config-unknown-key", _W, "config", "A configuration key that is not defined."
        ),
    ]
}


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
        message=message,
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
