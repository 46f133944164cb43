"""The measures qrels-lsp computes, in the order the README lists them. A new measure is one
module building a :class:`~.measure.Measure` and one line here."""

from __future__ import annotations

from . import (
    alpha_ndcg,
    average_precision,
    bpref,
    err,
    hit_rate,
    infap,
    judged,
    mrr,
    ncg,
    ndcg,
    ndcg_burges,
    precision,
    rbp,
    recall,
    rprec,
    set_f,
    set_precision,
    set_recall,
)
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
    infap.MEASURE,
    set_precision.MEASURE,
    set_recall.MEASURE,
    set_f.MEASURE,
    ncg.MEASURE,
    ndcg_burges.MEASURE,
    err.MEASURE,
    alpha_ndcg.MEASURE,
)
_BY_NAME = {m.name: m for m in MEASURES}


def measure_named(name: str) -> Measure | None:
    return _BY_NAME.get(name)
