"""rprec (trec_eval ``Rprec``): precision at R, the number of relevant documents, where
precision equals recall. As trec_eval's ``m_Rprec.c``: a ranking shorter than R is read to its
end and still divided by R; a query with no relevant document, or no document retrieved, is 0.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _rprec(j: Judged, m: Asked) -> float:
    r = j.num_rel
    if min(j.retrieved, r) == 0:
        return 0.0
    return sum(1 for rank, grade in j.hits if rank < r and j.relevant(grade)) / r


MEASURE = Measure(
    name="rprec",
    trec_eval="Rprec",
    trec_eval_cut=None,
    spellings=("rprec", "r_prec"),
    cutoff="none",
    value=_rprec,
    summary="precision at R, the number of relevant documents",
    whole_ranking=True,
)
