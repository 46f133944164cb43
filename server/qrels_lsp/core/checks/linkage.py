"""QR104: a question with no relevant document and no ``unanswerable: true``; QR105: a question
marked unanswerable that has relevant documents."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.edits import insert_entry, remove_item
from ..base.findings import Finding, Fix, Severity, declare, finding
from ..formats.grades import NEGATIVE_ONLY, negative_only
from .check import QueryCheck, QueryInputs

QR104 = declare(
    "QR104",
    "unlinked-question",
    Severity.WARNING,
    "golden set",
    "A question with no relevant document and no `unanswerable: true`.",
)
QR105 = declare(
    "QR105",
    "unanswerable-with-judgments",
    Severity.WARNING,
    "golden set",
    "`unanswerable: true` on a question that has relevant documents.",
)


def linkage(x: QueryInputs) -> Iterable[Finding]:
    query = x.query
    relevant = [j for j in query.judgments if j.grade >= x.level]
    if query.unanswerable:
        if relevant and query.unanswerable_span is not None:
            edit = remove_item(x.text, x.lines, query.unanswerable_span, None) if x.yaml else None
            removal = (Fix("Remove `unanswerable: true`", (edit,)),) if edit else ()
            yield finding(
                QR105,
                query.unanswerable_span,
                f"`{query.qid}` is marked unanswerable but has {len(relevant)} relevant "
                "document(s); it is left out of the means. Remove the mark or the judgments.",
                fixes=removal,
            )
        return
    if relevant:
        return
    n = len(query.judgments)
    if negative_only(j.grade for j in query.judgments):
        judged = f" (its {n} judgment(s) are all negative: {NEGATIVE_ONLY})"
    elif query.judgments:
        judged = f" (its {n} judgment(s) are all below relevance level {x.level})"
    else:
        judged = ""
    fixes: tuple[Fix, ...] = ()
    if x.yaml:
        edit = insert_entry(
            x.text, x.lines, query.span, query.block, "unanswerable: true", x.newline
        )
        fixes = (Fix(f"Mark `{query.qid}` as unanswerable", (edit,)),) if edit else ()
    yield finding(
        QR104,
        query.span,
        f"`{query.qid}` has no relevant document{judged}: link the documents that answer it, "
        "or mark it `unanswerable: true` if the corpus holds no answer. It scores 0 everywhere.",
        fixes=fixes,
    )


CHECK = QueryCheck(codes=(QR104, QR105), reads=frozenset({"level", "newline", "yaml"}), run=linkage)
