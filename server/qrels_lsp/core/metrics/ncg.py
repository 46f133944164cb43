"""ncg@k: normalised cumulative gain (Järvelin & Kekäläinen, "Cumulated gain-based evaluation
of IR techniques", ACM TOIS 20(4), 2002: the cumulated gain vector divided by the ideal one),
at rank k: the sum of the grades in the top k over the sum of the k highest grades judged.

nDCG without its discount: the gains are nDCG's (the raw positive grade; the relevance level
plays no part). On binary judgments it is the relevant documents in the top k over min(k, R),
BEIR's "capped recall" R_cap@k (Thakur et al., NeurIPS 2021 datasets track): recall@k when
k >= R, precision@k when k <= R. Neither trec_eval nor ir_measures has it.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _ncg(j: Judged, m: Asked) -> float:
    k = m.k
    assert k is not None
    gain = 0.0
    for rank, grade in j.hits:
        if rank >= k:
            break
        if grade > 0:
            gain += grade
    ideal = 0.0
    for grade in sorted((g for g in j.grades.values() if g > 0), reverse=True)[:k]:
        ideal += grade
    return gain / ideal if ideal > 0.0 else 0.0


MEASURE = Measure(
    name="ncg",
    trec_eval=None,
    trec_eval_cut=None,
    spellings=("ncg",),
    cutoff="required",
    value=_ncg,
    summary="gains (grades) in the top k / the k highest grades judged (binary: capped recall)",
    graded=True,
    levelled=False,
)
