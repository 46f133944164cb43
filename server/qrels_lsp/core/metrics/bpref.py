"""bpref (trec_eval ``bpref``, Buckley & Voorhees 2004): for each relevant document retrieved,
the share of judged non-relevant documents not ranked above it, over all relevant documents.

As trec_eval's ``m_bpref.c``: unjudged documents (no judgment, or a negative grade) are skipped,
not counted as non-relevant, which is the point of the measure; the non-relevant documents
counted above a relevant one are capped at R = num_rel, and so is their total.
"""

from __future__ import annotations

from .measure import Asked, Judged, Measure


def _bpref(j: Judged, m: Asked) -> float:
    num_rel = j.num_rel
    num_nonrel = sum(1 for g in j.grades.values() if 0 <= g < j.level)
    nonrel_so_far = 0
    total = 0.0
    for _rank, grade in j.hits:
        if grade < 0:
            continue  # in the pool, not judged
        if not j.relevant(grade):
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
        else:
            total += 1.0
    return total / num_rel if num_rel else total


MEASURE = Measure(
    name="bpref",
    trec_eval="bpref",
    trec_eval_cut=None,
    spellings=("bpref",),
    cutoff="none",
    value=_bpref,
    summary="share of judged non-relevant documents each relevant one is ranked above; unjudged ones are skipped",
    whole_ranking=True,
)
