"""rbp (rank-biased precision, Moffat & Zobel 2008; trec_eval ``rbp``): the expected gain of a
user who reads on from each rank with probability p, (1 - p) * sum of gain(i) * p^(i-1).

As trec_eval's ``m_rbp.c``: the gain of a document is its grade, scaled into [0, 1] by the
query's highest grade when that is above 1 (so binary judgments keep gain 1, and grade 2 of 4 is
0.5); unjudged and negative grades gain 0; the relevance level plays no part, unless the metric
sets its own (``RBP(rel=2)``, as ir_measures reads it: gain 1 at or above it, else 0). p^(i-1)
is kept by one multiplication per rank, as trec_eval keeps it. The default p is 0.8 (ir_measures'
and this project's); trec_eval's own default is 0.9, so `score --format trec` names it
``rbp_p=0.8``, as ``trec_eval -m rbp.p=0.8`` prints it. No residual is computed.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _rbp(j: Judged, m: Asked) -> float:
    p = m.persistence
    if m.rel is not None:
        gains = {g: 1.0 if j.relevant(g) else 0.0 for _rank, g in j.hits}
    else:
        top = max((g for g in j.grades.values() if g >= 0), default=0)
        gains = {g: (g / top if top > 1 else float(g)) if g > 0 else 0.0 for _rank, g in j.hits}
    total = 0.0
    weight = 1.0  # p^0
    at = 0
    for rank, grade in j.hits:
        while at < rank:
            weight *= p
            at += 1
        gain = gains[grade]
        if gain != 0.0:
            total += gain * weight
    return (1.0 - p) * total


MEASURE = Measure(
    name="rbp",
    trec_eval="rbp",
    trec_eval_cut=None,
    spellings=("rbp",),
    cutoff="none",
    value=_rbp,
    summary="rank-biased precision, p 0.8 (rbp@0.9 for another p): (1 - p) times the gains discounted by p per rank",
    whole_ranking=True,
    graded=True,
    param=("p", 0.8),
)
