"""infap (trec_eval ``infAP``, ir_measures ``infAP``): inferred average precision (Yilmaz &
Aslam, CIKM 2006), for judgments made on a random sample of the pool.

As trec_eval's ``m_infap.c``: a document the qrels do not name is outside the pool and skipped
(but it still takes its rank); one judged with a negative grade was pooled but not sampled
("in the pool, unjudged": trec_eval's convention is -1); at each relevant document at rank
j + 1 the precision above it is estimated from the judged documents, the pooled-unjudged ones
counting in proportion, with trec_eval's epsilon of 0.00001; the sum is divided by num_rel.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure

EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


def _infap(j: Judged, m: Asked) -> float:
    nonrel = rel = unjudged = 0
    total = 0.0
    for rank, grade in j.hits:
        if grade < 0:
            unjudged += 1
            continue
        if not j.relevant(grade):
            nonrel += 1
            continue
        rel += 1
        if rank == 0:
            total += 1.0
        else:
            fj = float(rank)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + EPSILON) / (rel - 1 + nonrel + 2 * EPSILON)
            )
    return total / j.num_rel if j.num_rel else total


MEASURE = Measure(
    name="infap",
    trec_eval="infAP",
    trec_eval_cut=None,
    spellings=("infap",),
    cutoff="none",
    value=_infap,
    summary="inferred AP: AP estimated from a sample of the pool; a negative grade is pooled, not judged",
    whole_ranking=True,
)
