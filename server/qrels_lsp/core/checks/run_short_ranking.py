"""QR205: a ranking with fewer than k results (of documents, when its ids are chunks)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..chunks import documents, mapper
from .check import RunCheck, RunInputs

QR205 = declare(
    "QR205", "run-short-ranking", Severity.INFO, "run", "Fewer than k results for a query."
)


def short_rankings(x: RunInputs) -> Iterable[Finding]:
    doc_of = mapper(x.chunks) if x.chunks is not None else None
    for qid, ranking in x.run.rankings.items():
        if len(ranking.docs) >= x.k and doc_of is None:
            continue
        n = len(ranking.docs) if doc_of is None else len(documents(ranking.doc_ids(), doc_of))
        if n < x.k:
            of = (
                ""
                if doc_of is None or n == len(ranking.docs)
                else f" (from {len(ranking.docs)} chunks)"
            )
            yield finding(
                QR205,
                ranking.span,
                f"`{qid}` has {n} result(s){of}, fewer than k = {x.k}.",
            )


CHECK = RunCheck(codes=(QR205,), run=short_rankings)
