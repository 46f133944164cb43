"""set_recall (trec_eval ``set_recall``, ir_measures ``SetR``): the relevant documents
retrieved over all relevant documents, the ranking read as a set (recall at the depth of the
run). 0 when the query has no relevant document, as trec_eval's ``m_set_recall.c``."""

from __future__ import annotations

from .measure import Asked, Judged, Measure
from .set_precision import relevant_retrieved


def _set_recall(j: Judged, m: Asked) -> float:
    return relevant_retrieved(j) / j.num_rel if j.num_rel else 0.0


MEASURE = Measure(
    name="set_recall",
    trec_eval="set_recall",
    trec_eval_cut=None,
    spellings=("set_recall", "setr"),
    cutoff="none",
    value=_set_recall,
    summary="relevant documents retrieved / all relevant documents (the ranking as a set)",
    whole_ranking=True,
)
