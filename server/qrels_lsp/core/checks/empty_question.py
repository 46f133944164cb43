"""QR107: a golden-set query with no question text (TREC/BEIR qrels have no place for one)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from .check import QueryCheck, QueryInputs

QR107 = declare(
    "QR107", "empty-question", Severity.WARNING, "golden set", "A query with no question text."
)


def empty_question(x: QueryInputs) -> Iterable[Finding]:
    query = x.query
    if not x.yaml:
        return
    if query.question is None and query.question_span is None:
        yield finding(
            QR107,
            query.span,
            f"`{query.qid}` has no `question:`; write the question as a user asked it.",
        )
    elif query.question is not None and not query.question.strip():
        yield finding(
            QR107,
            query.question_span or query.span,
            f"The question of `{query.qid}` is empty; write the question as a user asked it.",
        )


CHECK = QueryCheck(codes=(QR107,), reads=frozenset({"yaml"}), run=empty_question)
