"""A small fixture language for findings, after rust-analyzer's cursor markers.

Write the text of a file with ``⟦`` and ``⟧`` around every span a finding is expected at::

    assert_findings("QR102", "queries:\\n  q:\\n    relevant: [a, ⟦a⟧]\\n")

The markers are stripped; the findings of that code must sit exactly at the marked spans, compared
as (line, column) pairs. The expected positions are computed here by splitting the text on line
breaks independently of :class:`LineIndex`, and the actual ones through :class:`LineIndex`, so a
mistake in either shows up.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.findings import Finding, TextEdit
from qrels_lsp.core.base.text import LineIndex, Span
from qrels_lsp.core.checks import check_golden, check_run
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary

OPEN, CLOSE = "⟦", "⟧"

Position = tuple[int, int]
Range = tuple[Position, Position]


def strip_markers(marked: str) -> tuple[str, list[Span]]:
    """The clean text and the spans the markers enclosed (in order of their opening marker)."""
    out: list[str] = []
    spans: list[Span] = []
    open_at: list[int] = []
    length = 0
    for ch in marked:
        if ch == OPEN:
            open_at.append(length)
        elif ch == CLOSE:
            assert open_at, f"unbalanced {CLOSE} in fixture"
            spans.append(Span(open_at.pop(), length))
        else:
            out.append(ch)
            length += 1
    assert not open_at, f"unbalanced {OPEN} in fixture"
    return "".join(out), sorted(spans)


_BREAK = re.compile(r"\r\n|\r|\n")


def naive_position(text: str, offset: int) -> Position:
    """(line, column in code points), counting ``\\r\\n``, ``\\r`` and ``\\n`` as line breaks."""
    before = text[:offset]
    breaks = list(_BREAK.finditer(before))
    if not breaks:
        return 0, offset
    return len(breaks), offset - breaks[-1].end()


def naive_range(text: str, span: Span) -> Range:
    return naive_position(text, span.start), naive_position(text, span.end)


def index_range(text: str, span: Span) -> Range:
    lines = LineIndex(text)
    return lines.position(span.start), lines.position(span.end)


# -- producing findings -------------------------------------------------------------------------


def golden_findings(text: str) -> list[Finding]:
    """Parser findings plus content checks of a golden set, without a corpus."""
    qrels = parse_golden(text)
    return list(qrels.findings) + check_golden(qrels, text, None, level=1)


def run_findings(text: str, golden: str | None = None, k: int = 1) -> list[Finding]:
    """Parser findings plus run checks against ``golden`` (a golden set's text), without corpus."""
    run = parse_run_yaml(text)
    qrels = parse_golden(golden) if golden is not None else None
    return list(run.findings) + check_run(run, qrels, None, k=k)


def project_findings(path: Path, root: Path | None = None) -> list[Finding]:
    """Everything ``Project.analyse`` reports for a real file on disk (suppression applied)."""
    project = Project(Config(root=root or path.parent), boundary=ANYWHERE)
    analysis = project.analyse(path)
    assert analysis is not None, f"{path} is not a file qrels-lsp reads"
    return analysis.findings


# -- assertions ---------------------------------------------------------------------------------


def assert_findings(
    code: str,
    marked: str,
    produce: Callable[[str], Iterable[Finding]] = golden_findings,
) -> list[Finding]:
    """The findings of ``code`` are exactly at the marked spans; returns them (in span order)."""
    text, expected = strip_markers(marked)
    found = sorted((f for f in produce(text) if f.code == code), key=lambda f: f.span)
    want = [naive_range(text, s) for s in expected]
    got = [index_range(text, f.span) for f in found]
    assert got == want, (
        f"{code}: expected at {want}, found at {got} "
        f"({[text[f.span.start : f.span.end] for f in found]!r}) in {text!r}"
    )
    assert [f.span for f in found] == expected
    return found


def assert_spans_in(text: str, findings: Iterable[Finding]) -> None:
    n = len(text)
    for f in findings:
        assert 0 <= f.span.start <= f.span.end <= n, (f, n)
        for fix in f.fixes:
            for edit in fix.edits:
                assert 0 <= edit.span.start <= edit.span.end <= n, (fix, n)
        for rel in f.related:
            assert 0 <= rel.span.start <= rel.span.end <= n, (rel, n)


def apply_edits(text: str, edits: Sequence[TextEdit], path: str | None = None) -> str:
    """Apply edits made against ``text`` (non-overlapping, as LSP requires); every edit must be
    for ``path`` (None: the file the edits were made for)."""
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end))
    for a, b in itertools.pairwise(ordered):
        assert a.span.end <= b.span.start, f"overlapping edits {a} and {b}"
    for edit in reversed(ordered):
        assert edit.path == path, "edits to other files are not expected here"
        assert 0 <= edit.span.start <= edit.span.end <= len(text)
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def only(findings: Iterable[Finding], code: str) -> Finding:
    hits = [f for f in findings if f.code == code]
    assert len(hits) == 1, f"expected one {code}, found {hits}"
    return hits[0]


def codes(findings: Iterable[Finding]) -> list[str]:
    return sorted(f.code for f in findings)
