"""map: average precision, the sum over relevant retrieved documents of the precision at their
rank, over all relevant documents (trec_eval ``map``); map@k counts only the top k (trec_eval
``map_cut_k``, ir_measures ``AP@k``), still over all relevant documents."""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _average_precision(j: Judged, m: Asked) -> float:
    k = m.k
    relevant_so_far, total = 0, 0.0
    for rank, grade in j.hits:
        if k is not None and rank >= k:
            break
        if j.relevant(grade):
            relevant_so_far += 1
            total += relevant_so_far / (rank + 1)
    return total / j.num_rel if j.num_rel and total else 0.0


MEASURE = Measure(
    name="map",
    trec_eval="map",
    trec_eval_cut="map_cut_{k}",
    spellings=("map", "ap"),
    cut_spellings=("map_cut",),
    cutoff="optional",
    value=_average_precision,
    summary="average precision (map@k: of the top k, over all relevant documents)",
    whole_ranking=True,
)
