"""QR206: a retrieved id that the corpus does not have (under a `chunks:` rule, a chunk whose
document it does not have: QR209 says instead when no chunk's document is there at all)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..chunks import mapper
from .check import RunCheck, RunInputs
from .run_chunks import matches_no_document
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
    if x.chunks is None:
        for ranking in x.run.rankings.values():
            # (the ids as they are held; a document's span only for one reported)
            for i, doc_id in enumerate(ranking.doc_ids()):
                if doc_id not in x.corpus:
                    span = ranking.docs[i].span
                    yield unknown_document(QR206, doc_id, span, x.corpus, x.budget)
        return
    doc_of = mapper(x.chunks)
    mapped = {q: [doc_of(d) for d in r.doc_ids()] for q, r in x.run.rankings.items()}
    if matches_no_document(mapped, x.chunks, x.corpus, x.name) is not None:
        return  # one QR209 says so, not a finding per id
    for ranking in x.run.rankings.values():
        for doc in ranking.docs:
            document = doc_of(doc.doc_id)
            if document == doc.doc_id:
                if document not in x.corpus:
                    yield unknown_document(QR206, doc.doc_id, doc.span, x.corpus, x.budget)
            elif document not in x.corpus:
                yield finding(
                    QR206,
                    doc.span,
                    f"`{doc.doc_id}` is a chunk of `{document}` (by the {x.chunks.describe()}), "
                    "which is not in the corpus.",
                )


CHECK = RunCheck(codes=(QR206,), run=unknown_retrieved)
