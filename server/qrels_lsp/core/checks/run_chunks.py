"""Runs of chunks (a golden set's `chunks:` rule): QR208, one document filling half or more of
a query's top k chunks (recall@k then says little: a small corpus makes it trivially high),
and QR209, a run none of whose ids the rule maps to a corpus document (the rule is probably
wrong, and every id would be unknown)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..base.findings import Finding, Severity, declare, finding
from ..chunks import ChunkRule, crowding, mapper
from ..formats.corpus import Corpus
from .check import RunCheck, RunInputs

QR208 = declare(
    "QR208",
    "run-chunks-one-document",
    Severity.INFO,
    "run",
    "One document fills half or more of a query's top k chunks: its chunks count once, so recall@k is over fewer documents than k.",
)
QR209 = declare(
    "QR209",
    "chunks-match-nothing",
    Severity.WARNING,
    "run, golden set",
    "No id of a run maps to a corpus document under the `chunks:` rule: the rule is probably wrong for this run.",
)


def matches_no_document(
    rankings: Mapping[str, Sequence[str]], rule: ChunkRule, corpus: Corpus, run: str
) -> str | None:
    """Why ``rule`` looks wrong for a run whose rankings (of documents, after the rule) hold no
    corpus id; None when one id is found (or there is none to look at)."""
    first = None
    for ranking in rankings.values():
        for doc in ranking:
            if doc in corpus:
                return None
            first = first or doc
    if first is None:
        return None
    return (
        f"Under the {rule.describe()} ({rule.origin}), no id of `{run}` is a corpus document "
        f"(its first: `{first}`): the rule is probably wrong for this run, and it scores 0."
    )


def _no_document(x: RunInputs) -> Iterable[Finding]:
    if x.chunks is None or x.corpus is None:
        return
    doc_of = mapper(x.chunks)
    mapped = {q: [doc_of(d) for d in r.doc_ids()] for q, r in x.run.rankings.items()}
    message = matches_no_document(mapped, x.chunks, x.corpus, x.name)
    if message is not None:
        span = x.run.results_span or next(iter(x.run.rankings.values())).span
        yield finding(QR209, span, message)


def _crowded(x: RunInputs) -> Iterable[Finding]:
    if x.chunks is None:
        return
    doc_of = mapper(x.chunks)
    for qid, ranking in x.run.rankings.items():
        hit = crowding(ranking.doc_ids(), doc_of, x.k)
        if hit is not None:
            doc, n = hit
            yield finding(
                QR208,
                ranking.span,
                f"`{doc}` fills {n} of the top {x.k} chunks of `{qid}`: a document counts once, "
                f"so these {x.k} chunks hold {x.k - n + 1} documents at most, and recall@{x.k} "
                "is high more easily than k suggests.",
            )


CHECK = RunCheck(codes=(QR208, QR209), run=lambda x: [*_no_document(x), *_crowded(x)])
