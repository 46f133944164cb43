"""precision@k: relevant documents in the top k over k, even when fewer were retrieved
(trec_eval ``P_k``)."""

from __future__ import annotations

from .measure import Asked, Judged, Measure
from .recall import relevant_in_top


def _precision(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    return relevant_in_top(j, k) / k


MEASURE = Measure(
    name="precision",
    trec_eval=None,
    trec_eval_cut="P_{k}",
    spellings=("precision", "p"),
    cutoff="required",
    value=_precision,
    summary="relevant documents in the top k / k",
)
