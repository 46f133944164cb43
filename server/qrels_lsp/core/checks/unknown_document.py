"""QR106: a judged document id that the corpus does not have (with the closest ids as fixes);
one the golden set's lock says was judged and deleted since is QR130's (stale_judgment.py)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare
from .check import QueryCheck, QueryInputs
from .suggestions import unknown_document

QR106 = declare(
    "QR106",
    "unknown-document",
    Severity.WARNING,
    "golden set",
    "A document id that is not in the corpus.",
)


def unknown_documents(x: QueryInputs) -> Iterable[Finding]:
    corpus = x.corpus
    if corpus is None:
        return
    lock = x.lock
    for j in x.query.judgments:
        if j.doc_id not in corpus and (lock is None or not lock.deleted(j.doc_id)):
            yield unknown_document(QR106, j.doc_id, j.span, corpus, x.budget)


CHECK = QueryCheck(codes=(QR106,), reads=frozenset({"corpus", "lock"}), run=unknown_documents)
