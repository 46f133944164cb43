"""set_precision (trec_eval ``set_P``, ir_measures ``SetP``): the relevant documents retrieved
over the documents retrieved, the ranking read as a set. As trec_eval's ``m_set_P.c``: 0 when
nothing is retrieved; ``-M`` (or a run cut short) sets how many are retrieved, and, unlike
precision@k, no missing place is filled in."""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def relevant_retrieved(j: Judged) -> int:
    return sum(1 for _rank, grade in j.hits if j.relevant(grade))


def _set_precision(j: Judged, m: Asked) -> float:
    return relevant_retrieved(j) / j.retrieved if j.retrieved else 0.0


MEASURE = Measure(
    name="set_precision",
    trec_eval="set_P",
    trec_eval_cut=None,
    spellings=("set_precision", "setp", "set_p"),
    cutoff="none",
    value=_set_precision,
    summary="relevant documents retrieved / documents retrieved (the ranking as a set)",
    whole_ranking=True,
)
