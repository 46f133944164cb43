"""mrr: 1 over the rank of the first relevant document, with no cutoff (trec_eval
``recip_rank``); mrr@k is 0 when that rank is below k (ir_measures ``RR@k``)."""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _reciprocal_rank(j: Judged, m: Asked) -> float:
    k = m.k
    first = next((rank + 1 for rank, grade in j.hits if j.relevant(grade)), None)
    if first is None or (k is not None and first > k):
        return 0.0
    return 1.0 / first


MEASURE = Measure(
    name="mrr",
    trec_eval="recip_rank",
    trec_eval_cut=None,
    spellings=("mrr", "rr", "recip_rank"),
    cutoff="optional",
    value=_reciprocal_rank,
    summary="1 / rank of the first relevant document (no cutoff)",
    whole_ranking=True,
    lens="MRR",
)
