"""ndcg@k (trec_eval ``ndcg_cut_k``): DCG over the top k with the raw grade as gain and
log2(rank + 1) as discount, over the ideal DCG of all positive judgments sorted by grade and cut
at k. The relevance level plays no part, as in trec_eval."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .measure import Judged, Measure


def ideal_dcg(grades: Iterable[int], k: int) -> float:
    """trec_eval's IDCG: every positive judgment, highest grade first, cut at k, in that order."""
    ideal = sorted((g for g in grades if g > 0), reverse=True)[:k]
    total = 0.0
    for i, gain in enumerate(ideal):
        total += gain / math.log2(i + 2)  # rank i + 1, discounted by log2(rank + 1)
    return total


def dcg(j: Judged, k: int) -> float:
    """DCG of the top k, summed in rank order as trec_eval's loop does."""
    total = 0.0
    for rank, grade in j.hits:
        if rank >= k:
            break
        if grade > 0:
            total += grade / math.log2(rank + 2)
    return total


def _ndcg(j: Judged, k: int | None) -> float:
    assert k is not None
    value = dcg(j, k)
    idcg = ideal_dcg(j.grades.values(), k)
    return value / idcg if idcg > 0.0 else value


MEASURE = Measure(
    name="ndcg",
    trec_eval="ndcg_cut_{k}",
    spellings=("ndcg", "ndcg_cut"),
    cutoff="required",
    value=_ndcg,
    summary="linear gains (the raw grade), log2 discount, ideal from all judgments; ignores the relevance level",
)
