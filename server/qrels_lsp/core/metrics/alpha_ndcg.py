"""alpha_ndcg@k: alpha-nDCG (Clarke et al., SIGIR 2008), nDCG that rewards covering a query's
subtopics and discounts each further document on a subtopic already seen by 1 - alpha; as
ndeval computes it (the TREC Web track's diversity script, which ir_measures runs through
pyndeval for ``alpha_nDCG@k``).

A document's gain at rank i is the sum, over the subtopics it is relevant to (grade at or above
the relevance level), of (1 - alpha)^(documents above it relevant to that subtopic), discounted
by log2(i + 1). The ideal ranking is ndeval's greedy one (the exact ideal is NP-hard): at each
rank the judged document of highest gain, ties to the larger document id (``strcmp``). alpha is
0.5 unless set (``alpha_ndcg(alpha=0.7)@10``). The subtopics are those of diversity qrels
(``core/subtopics.py``); a query judged as a whole is one subtopic, which is what ndeval makes
of qrels whose iteration column is the same on every line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..subtopics import subtopics_of
from .measure import Asked, Judged, Measure, Param
from .order import c_bytes


def _relevant_subtopics(j: Judged) -> dict[str, tuple[str, ...]]:
    """doc id -> the subtopics it is relevant to, for the documents relevant to any."""
    by: Mapping[str, Mapping[str, int]] | None = subtopics_of(j.grades)
    if by is None:
        return {d: ("",) for d, g in j.grades.items() if j.relevant(g)}
    out = {}
    for doc, grades in by.items():
        found = tuple(s for s, g in grades.items() if j.relevant(g))
        if found:
            out[doc] = found
    return out


def _discount(rank: int) -> float:
    """ndeval's discount of 0-based ``rank``: log(2) / log(rank + 2)."""
    return math.log(2.0) / math.log(rank + 2.0)


def _ideal(relevant: dict[str, tuple[str, ...]], k: int, alpha: float) -> float:
    """ndeval's greedy ideal ranking's alpha-DCG at k."""
    left = {doc: (topics, c_bytes(doc)) for doc, topics in relevant.items()}
    gain: dict[str, float] = {}
    total = 0.0
    for rank in range(min(k, len(left))):
        best, best_score, best_key = "", -1.0, b""
        for doc, (topics, key) in left.items():
            score = 0.0
            for s in topics:
                score += gain.get(s, 1.0)
            if score > best_score or (score == best_score and key > best_key):
                best, best_score, best_key = doc, score, key
        for s in left.pop(best)[0]:
            gain[s] = gain.get(s, 1.0) * (1.0 - alpha)
        total += best_score * _discount(rank)
    return total


def _alpha_ndcg(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    alpha = m.parameter
    relevant = _relevant_subtopics(j)
    gain: dict[str, float] = {}
    total = 0.0
    for rank, _grade in j.hits:
        if rank >= k:
            break
        topics = relevant.get(j.top[rank])
        if not topics:
            continue
        score = 0.0
        for s in topics:
            g = gain.get(s, 1.0)
            score += g
            gain[s] = g * (1.0 - alpha)
        total += score * _discount(rank)
    if total == 0.0:
        return 0.0
    return total / _ideal(relevant, k, alpha)


MEASURE = Measure(
    name="alpha_ndcg",
    trec_eval=None,
    trec_eval_cut=None,
    spellings=("alpha_ndcg",),
    cutoff="required",
    value=_alpha_ndcg,
    summary="alpha-nDCG, alpha 0.5: nDCG over subtopics, each further document on one discounted (TREC qrels' subtopics)",
    param=Param("alpha", 0.5, 0.0, 1.0),
)
