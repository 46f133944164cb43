"""QR206: a retrieved id that the corpus does not have."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare
from .check import RunCheck, RunInputs
from .suggestions import unknown_document

QR206 = declare(
    "QR206",
    "run-unknown-document",
    Severity.WARNING,
    "run",
    "A retrieved id that is not in the corpus.",
)


def unknown_retrieved(x: RunInputs) -> Iterable[Finding]:
    if x.corpus is None:
        return
    for ranking in x.run.rankings.values():
        for doc in ranking.docs:
            if doc.doc_id not in x.corpus:
                yield unknown_document(QR206, doc.doc_id, doc.span, x.corpus, x.budget)


CHECK = RunCheck(codes=(QR206,), run=unknown_retrieved)
