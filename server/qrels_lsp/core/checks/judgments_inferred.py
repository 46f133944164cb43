"""QR120: a golden set that does not say how complete its judgments are is read as its judgments
suggest (core/coverage/judgments.py), and says so: whether coverage gates a decision is a
choice the team should see and write down, not a guess that moves when one grade 0 is typed."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.edits import newline_of
from ..base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from ..base.text import Span
from ..coverage.judgments import KEY, MEANING
from ..formats import get
from .check import GoldenCheck, GoldenInputs

QR120 = declare(
    "QR120",
    "judgments-inferred",
    Severity.INFO,
    "golden set",
    "The golden set does not say how complete its judgments are (`judgments: exhaustive` or "
    "`pooled`): it is read as its grades suggest, which decides whether coverage gates.",
)


def judgments_inferred(x: GoldenInputs) -> Iterable[Finding]:
    c = x.judgments
    if c is None or c.stated is not None:
        return
    if c.kind == "exhaustive":
        why = "no judgment has grade 0, so"
    else:
        n = c.pooled_queries
        why = f"{n:,} question{'s' * (n != 1)} judge{'s' * (n == 1)} documents not relevant (grade 0), so"
    message = (
        f"Judgments read as `{c.kind}`: {why} {MEANING[c.kind]}. Say it with `{KEY}: {c.kind}`"
        + ("" if c.kind == "pooled" else " (or `pooled` if unjudged documents are unknown)")
        + "."
    )
    fixes: tuple[Fix, ...] = ()
    span = x.qrels.queries_span
    if get(x.qrels.format).yaml and span is not None:
        at = x.text.rfind("\n", 0, span.start) + 1  # the start of the `queries:` line
        line = f"{KEY}: {c.kind}{newline_of(x.text)}"
        fixes = (Fix(f"Write `{KEY}: {c.kind}`", (TextEdit(Span(at, at), line),), preferred=True),)
    where = span if span is not None else Span(0, 0)
    yield finding(QR120, where, message, fixes=fixes)


CHECK = GoldenCheck(codes=("QR120",), run=judgments_inferred)
