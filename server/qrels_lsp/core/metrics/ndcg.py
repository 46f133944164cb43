"""ndcg@k (trec_eval ``ndcg_cut_k``): DCG over the top k with the raw grade as gain and
log2(rank + 1) as discount, over the ideal DCG of all positive judgments sorted by grade and cut
at k. ndcg without a cutoff (trec_eval ``ndcg``, ir_measures ``nDCG``) is the same over the whole
ranking and every positive judgment. The relevance level plays no part, as in trec_eval."""

from __future__ import annotations

import math
from collections.abc import Iterable

from .measure import Asked, Judged, Measure


def ideal_dcg(grades: Iterable[int], k: int | None) -> float:
    """trec_eval's IDCG: every positive judgment, highest grade first, cut at k (None: all of
    them), in that order."""
    ideal = sorted((g for g in grades if g > 0), reverse=True)[:k]
    total = 0.0
    for i, gain in enumerate(ideal):
        total += gain / math.log2(i + 2)  # rank i + 1, discounted by log2(rank + 1)
    return total


def dcg(j: Judged, k: int | None) -> float:
    """DCG of the top k (None: of the whole ranking), summed in rank order as trec_eval's loop
    does."""
    total = 0.0
    for rank, grade in j.hits:
        if k is not None and rank >= k:
            break
        if grade > 0:
            total += grade / math.log2(rank + 2)
    return total


def _ndcg(j: Judged, m: Asked) -> float:
    k = m.k
    value = dcg(j, k)
    idcg = ideal_dcg(j.grades.values(), k)
    return value / idcg if idcg > 0.0 else value


MEASURE = Measure(
    name="ndcg",
    trec_eval="ndcg",
    trec_eval_cut="ndcg_cut_{k}",
    spellings=("ndcg",),
    cut_spellings=("ndcg_cut",),
    cutoff="optional",
    value=_ndcg,
    summary="linear gains (the raw grade), log2 discount, ideal from all judgments; ignores the relevance level (no cutoff: the whole ranking)",
    whole_ranking=True,
    graded=True,
    levelled=False,
    hover_cutoffs=True,
)
