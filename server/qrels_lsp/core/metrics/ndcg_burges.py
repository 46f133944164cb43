"""ndcg_burges@k: nDCG with exponential gains, 2^grade - 1, and a log2(rank + 1) discount
(Burges et al., ICML 2005), the TREC Web track's form: ir_measures' ``nDCG(dcg='exp-log2')@k``,
which it computes with gdeval, and ranx's ``ndcg_burges``.

The ideal is every positive judgment, highest grade first, cut at k; the relevance level plays
no part; grades of 0 or less gain nothing. gdeval refuses grades above 4 and divides by the
natural logarithm (the ratio is the same, to the last bits); ranx takes any grade. A grade of
1024 or more has no finite gain: the value is then not a number, not a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .measure import Asked, Judged, Measure


def exp_gain(grade: int) -> float:
    return 2.0**grade - 1.0 if grade < 1024 else math.inf


def _ideal(grades: Iterable[int], k: int | None) -> float:
    total = 0.0
    for i, grade in enumerate(sorted((g for g in grades if g > 0), reverse=True)[:k]):
        total += exp_gain(grade) / math.log2(i + 2)
    return total


def _ndcg_burges(j: Judged, m: Asked) -> float:
    k = m.k
    total = 0.0
    for rank, grade in j.hits:
        if k is not None and rank >= k:
            break
        if grade > 0:
            total += exp_gain(grade) / math.log2(rank + 2)
    ideal = _ideal(j.grades.values(), k)
    return total / ideal if ideal > 0.0 else total


MEASURE = Measure(
    name="ndcg_burges",
    trec_eval=None,
    trec_eval_cut=None,
    spellings=("ndcg_burges", "ndcg_exp"),
    cutoff="optional",
    value=_ndcg_burges,
    summary="nDCG with gains 2^grade - 1 (the TREC Web track's, gdeval's); ignores the relevance level",
    whole_ranking=True,
    graded=True,
    levelled=False,
    selected_by=("ndcg", "dcg", "exp-log2"),
)
