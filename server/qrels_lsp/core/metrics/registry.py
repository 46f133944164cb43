"""The measures qrels-lsp computes, in the order the README lists them. A new measure is one
module building a :class:`~.measure.Measure` and one line here."""

from __future__ import annotations

from . import average_precision, bpref, hit_rate, judged, mrr, ndcg, precision, rbp, recall, rprec
from .measure import Measure

MEASURES: tuple[Measure, ...] = (
    recall.MEASURE,
    precision.MEASURE,
    mrr.MEASURE,
    ndcg.MEASURE,
    average_precision.MEASURE,
    hit_rate.MEASURE,
    judged.MEASURE,
    bpref.MEASURE,
    rprec.MEASURE,
    rbp.MEASURE,
)
_BY_NAME = {m.name: m for m in MEASURES}


def measure_named(name: str) -> Measure | None:
    return _BY_NAME.get(name)
