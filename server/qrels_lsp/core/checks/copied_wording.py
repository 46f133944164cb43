"""QR110: a question that copies its relevant document's wording (questions written by reading
the documents flatter every retriever)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Related, Severity, declare, finding
from ..search.tokens import (
    COPY_THRESHOLD,
    MAX_COPY_DOCUMENT_CHARS,
    MAX_COPY_DOCUMENTS,
    MAX_COPY_QUESTION_CHARS,
    content_ngrams,
    ngram_overlap,
)
from .check import QueryCheck, QueryInputs

QR110 = declare(
    "QR110",
    "question-copies-document",
    Severity.INFO,
    "golden set",
    "A question that copies its relevant document's wording.",
)


def copied_wording(x: QueryInputs) -> Iterable[Finding]:
    """With the work per question bounded: a question longer than :data:`MAX_COPY_QUESTION_CHARS`
    is not compared (and the finding says so), and it is compared with at most
    :data:`MAX_COPY_DOCUMENTS` documents, each on its first characters only."""
    query, corpus = x.query, x.corpus
    if corpus is None or not query.question or query.question_span is None:
        return
    if len(query.question) > MAX_COPY_QUESTION_CHARS:
        yield finding(
            QR110,
            query.question_span,
            f"The question of `{query.qid}` is {len(query.question):,} characters long: it was "
            f"not compared with its documents (only questions of up to "
            f"{MAX_COPY_QUESTION_CHARS:,} characters are). Is it really a question?",
        )
        return
    grams = content_ngrams(query.question)
    relevant = [j for j in query.judgments if j.grade >= x.level]
    for j in relevant[:MAX_COPY_DOCUMENTS]:
        doc = corpus.get(j.doc_id)
        if doc is None:
            continue
        text = doc.searchable_prefix(MAX_COPY_DOCUMENT_CHARS)
        overlap = ngram_overlap(grams, text, at_least=COPY_THRESHOLD)
        if overlap >= COPY_THRESHOLD:
            yield finding(
                QR110,
                query.question_span,
                f"The question copies `{j.doc_id}`: {overlap:.0%} of its word pairs appear "
                f"verbatim there (threshold {COPY_THRESHOLD:.0%}). Questions written from the "
                "documents flatter every retriever; use the words a user would.",
                related=(Related(j.span, "the document it copies"),),
            )
            return


CHECK = QueryCheck(codes=(QR110,), reads=frozenset({"corpus", "level"}), run=copied_wording)
