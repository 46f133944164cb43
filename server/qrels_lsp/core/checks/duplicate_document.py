"""QR102: a document listed twice for one query (the first grade counts)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.edits import remove_item
from ..base.findings import Finding, Fix, Related, Severity, declare, finding
from ..base.text import Span
from ..model import Judgment
from .check import QueryCheck, QueryInputs

QR102 = declare(
    "QR102",
    "duplicate-document",
    Severity.WARNING,
    "golden set",
    "A document listed twice for a query.",
    drops=True,
)


def _end(j: Judgment | None) -> int | None:
    return None if j is None else (j.grade_span or j.span).end


def duplicate_documents(x: QueryInputs) -> Iterable[Finding]:
    """A document judged once per subtopic (diversity qrels: ``Judgment.subtopic``) is judged
    once; twice on one subtopic, twice."""
    first: dict[tuple[str, str | None], Judgment] = {}
    previous: Judgment | None = None
    for j in x.query.judgments:
        key = (j.doc_id, j.subtopic)
        if key in first:
            fixes: tuple[Fix, ...] = ()
            item = Span(j.span.start, (j.grade_span or j.span).end)
            edit = remove_item(x.text, x.lines, item, _end(previous)) if x.yaml else None
            if edit is not None:
                fixes = (Fix(f"Remove the second `{j.doc_id}`", (edit,), True),)
            yield finding(
                QR102,
                j.span,
                f"`{j.doc_id}` is listed twice for `{x.query.qid}`; only the first "
                f"(grade {first[key].grade}) counts. Remove one.",
                fixes=fixes,
                related=(Related(first[key].span, "first listed here"),),
            )
        else:
            first[key] = j
        previous = j


CHECK = QueryCheck(codes=(QR102,), reads=frozenset({"yaml"}), run=duplicate_documents)
