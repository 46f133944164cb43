"""recall@k: relevant documents in the top k over all relevant ones (trec_eval ``recall_k``)."""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def relevant_in_top(j: Judged, k: int) -> int:
    return sum(1 for rank, grade in j.hits if rank < k and j.relevant(grade))


def _recall(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    return relevant_in_top(j, k) / j.num_rel if j.num_rel else 0.0


MEASURE = Measure(
    name="recall",
    trec_eval=None,
    trec_eval_cut="recall_{k}",
    spellings=("recall", "r"),
    cutoff="required",
    value=_recall,
    summary="relevant documents in the top k / all relevant documents",
    lens="recall@{k}",
)
