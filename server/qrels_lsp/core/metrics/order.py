"""The order trec_eval evaluates a run's documents in: score, then document id, both descending."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def trec_eval_order(entries: Iterable[tuple[str, float]]) -> list[str]:
    """Doc ids in the order trec_eval evaluates them.

    trec_eval ignores the rank column and the line order: it sorts by score descending and breaks
    ties by doc id descending with ``strcmp``. Python compares strings by code point, which is the
    byte order of their UTF-8 encoding, so one reversed tuple sort is exactly that order. The first
    occurrence of a doc id wins (trec_eval would refuse the run; the parsers report the repeat).
    """
    first: dict[str, float] = {}
    for doc_id, score in entries:
        if doc_id not in first:
            first[doc_id] = score
    return order_by_score(first)


def order_by_score(scores: Mapping[str, float]) -> list[str]:
    """:func:`trec_eval_order` of doc ids already unique; NaN scores must be left out before."""
    return [
        doc_id
        for _, doc_id in sorted(zip(scores.values(), scores.keys(), strict=True), reverse=True)
    ]
