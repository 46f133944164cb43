"""The order trec_eval evaluates a run's documents in: score, then document id, both descending."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping


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
    """:func:`trec_eval_order` of doc ids already unique.

    Ids read from invalid UTF-8 hold its bytes as lone surrogates (U+DC80-U+DCFF), which do not
    sort as the bytes do: such ids are compared as their bytes. A NaN score makes the comparison
    inconsistent, so the order is the one C's sort makes of it: :func:`_glibc_order`.
    """
    ids = list(scores)
    key = None if "".join(ids).isascii() else c_bytes  # (one C pass: this runs per query)
    total = sum(scores.values())
    if total != total and any(math.isnan(s) for s in scores.values()):  # (or inf - inf)
        return _glibc_order(scores, key or str.encode)
    if key is None:
        return [d for _, d in sorted(zip(scores.values(), ids, strict=True), reverse=True)]
    pairs = sorted(((s, key(d), d) for d, s in scores.items()), reverse=True)
    return [d for _, _, d in pairs]


def c_bytes(s: str) -> bytes:
    """The bytes a string was read from: UTF-8, with undecodable bytes given back."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate from an editor's text, not from bytes
        return s.encode("utf-8", "surrogatepass")


def _glibc_order(scores: Mapping[str, float], key: Callable[[str], bytes]) -> list[str]:
    """trec_eval's order when a score is NaN, on glibc: its lines are first sorted by doc id
    (``comp_lines_qid_docno``), then each query's by ``comp_sim_docno`` with qsort, which glibc
    implements as a top-down merge sort. NaN is neither above nor below any score, so the doc ids
    decide each comparison with it, and the merge sort's sequence of comparisons decides the
    order: replayed here step by step."""
    docs = sorted(scores, key=key)

    def before(a: str, b: str) -> bool:  # comp_sim_docno(a, b) <= 0
        sa, sb = scores[a], scores[b]
        if sa > sb:
            return True
        if sa < sb:
            return False
        return key(b) <= key(a)

    return _merge_sort(docs, before)


def _merge_sort(items: list[str], before: Callable[[str, str], bool]) -> list[str]:
    """glibc's ``msort_with_tmp``: halves of ``n // 2`` and the rest, merged taking from the
    first half while ``cmp(first, second) <= 0``."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _merge_sort(items[:half], before), _merge_sort(items[half:], before)
    out: list[str] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if before(left[i], right[j]):
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out += left[i:]
    out += right[j:]
    return out
