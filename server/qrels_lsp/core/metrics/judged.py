"""judged@k: the share of the top k that the golden set judges, 1 - trec_eval 10's ``unj_k``.

As trec_eval's ``m_unjudged.c``: a document with no judgment or a negative grade is unjudged; the
count is over k even when the run retrieved fewer (the missing places are taken as judged, not
relevant), so a 3-deep ranking with one unjudged document has judged@10 = 1 - 1/10 = 0.9.
ir_measures' Judged@k agrees where the ranking is at least k deep, no score tie straddles the
cutoff and no grade is negative (it divides by the documents retrieved, counts a negative grade
as judged and breaks ties by document id ascending: docs/metrics.md).
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def judged_in_top(j: Judged, k: int) -> int:
    """Documents in the top k with a grade of 0 or more."""
    return sum(1 for rank, grade in j.hits if rank < k and grade >= 0)


def unjudged_in_top(j: Judged, k: int) -> int:
    """Retrieved documents in the top k the golden set does not judge."""
    return min(k, j.retrieved) - judged_in_top(j, k)


def _judged(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    unj: float = unjudged_in_top(j, k) / k  # trec_eval's unj_k, then its complement
    return 1.0 - unj


MEASURE = Measure(
    name="judged",
    trec_eval=None,
    trec_eval_cut="unj_{k}",  # trec_eval prints the complement
    complement=True,
    levelled=False,
    spellings=("judged", "unj"),
    cutoff="required",
    value=_judged,
    summary="documents in the top k that are judged / k (1 - trec_eval's unj_k)",
    compared=False,
)
