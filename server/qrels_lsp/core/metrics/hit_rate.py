"""hit_rate@k: 1 if any relevant document is in the top k (trec_eval ``success_k``)."""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _hit_rate(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    return 1.0 if any(rank < k and j.relevant(grade) for rank, grade in j.hits) else 0.0


MEASURE = Measure(
    name="hit_rate",
    trec_eval=None,
    trec_eval_cut="success_{k}",
    spellings=("hit_rate", "hits", "success"),
    cutoff="required",
    value=_hit_rate,
    summary="1 if any relevant document is in the top k",
)
