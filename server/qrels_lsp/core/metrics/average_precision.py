"""map: average precision, the sum over relevant retrieved documents of the precision at their
rank, over all relevant documents (trec_eval ``map``)."""

from __future__ import annotations

from .measure import Judged, Measure


def _average_precision(j: Judged, k: int | None) -> float:
    relevant_so_far, total = 0, 0.0
    for rank, grade in j.hits:
        if j.relevant(grade):
            relevant_so_far += 1
            total += relevant_so_far / (rank + 1)
    return total / j.num_rel if j.num_rel and total else 0.0


MEASURE = Measure(
    name="map",
    trec_eval="map",
    spellings=("map", "ap"),
    cutoff="none",
    value=_average_precision,
    summary="average precision",
    whole_ranking=True,
)
