"""set_f (trec_eval ``set_F``, ir_measures ``SetF``): the weighted harmonic mean of set
precision P and set recall R, (beta + 1) P R / (beta P + R), beta the relative importance of
recall (1 by default: F1; ``SetF(beta=2)``). As trec_eval's ``m_set_F.c``, in its operations:
0 when no relevant document is retrieved."""

from __future__ import annotations

from .measure import Asked, Judged, Measure, Param
from .set_precision import relevant_retrieved


def _set_f(j: Judged, m: Asked) -> float:
    found = relevant_retrieved(j)
    if not found:
        return 0.0
    p = found / j.retrieved
    r = found / j.num_rel
    x = m.parameter
    return (x + 1.0) * p * r / (x * p + r)


MEASURE = Measure(
    name="set_f",
    trec_eval="set_F",
    trec_eval_cut=None,
    spellings=("set_f", "setf"),
    cutoff="none",
    value=_set_f,
    summary="F measure of set precision and set recall, beta 1 (set_f(beta=2) for another)",
    whole_ranking=True,
    param=Param("beta", 1.0, 0.0, float("inf"), high_open=True),
)
