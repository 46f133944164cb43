"""err@k: expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009), as
gdeval computes it (the TREC Web track's script, which ir_measures runs for ``ERR@k``).

A user reads down the ranking and stops at a document with probability R(g) = (2^g - 1) / 2^4,
g its grade (gdeval's maximum grade is 4: it refuses qrels with a higher one; here a grade above
4 counts as 4, so R stays below 1); err@k is the sum over the top k of R(g_i) / i times the
chance of reading on to rank i, prod_{j<i} (1 - R(g_j)). Unjudged documents and grades of 0 or
less stop nobody. No normalisation: a query with nothing relevant retrieved is 0. Without a
cutoff, over the whole ranking. gdeval's float operations, in its order.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure

MAX_GRADE = 4
"""gdeval's ``$MAX_JUDGMENT``: the grade that stops a user for certain, but for 1 in 16."""


def _err(j: Judged, m: Asked) -> float:
    k = m.k
    score = 0.0
    decay = 1.0
    top = 2.0**MAX_GRADE
    for rank, grade in j.hits:
        if k is not None and rank >= k:
            break
        if grade <= 0:
            continue  # R = 0: neither the score nor the decay moves
        r = (2.0 ** min(grade, MAX_GRADE) - 1) / top
        score += r * decay / (rank + 1)
        decay *= 1 - r
    return score


MEASURE = Measure(
    name="err",
    trec_eval=None,
    trec_eval_cut=None,
    spellings=("err",),
    cutoff="optional",
    value=_err,
    summary="expected reciprocal rank, as gdeval: stop at grade g with (2^g - 1) / 16, gain 1 / rank",
    whole_ranking=True,
    graded=True,
    levelled=False,
)
