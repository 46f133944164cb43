"""Ranking metrics that reproduce trec_eval's per-query numbers (docs/metrics.md).

One module per measure (``recall.py``, ``ndcg.py``, ...), registered in ``registry.py``; the
evaluation with its averaging rules and its cache between edits in ``evaluate.py``; the order
trec_eval ranks a run in, ``order.py``. The names below are the package's whole public face.
"""

from __future__ import annotations

from .cut import RunCut
from .evaluate import (
    Evaluation,
    ScoreCache,
    Since,
    changed_keys,
    evaluate,
    evaluate_stream,
    restricted,
)
from .explain import NdcgExplanation, NdcgRow, ndcg_explain
from .measure import Judged, Measure, format_value
from .metric import (
    Metric,
    UnknownMetric,
    configured_metrics,
    default_metrics,
    known_metrics,
    parse_metric,
    query_scores,
    trec_eval_name,
    trec_eval_rank,
)
from .order import order_by_score, trec_eval_order
from .registry import MEASURES, measure_named

__all__ = [
    "MEASURES",
    "Evaluation",
    "Judged",
    "Measure",
    "Metric",
    "NdcgExplanation",
    "NdcgRow",
    "RunCut",
    "ScoreCache",
    "Since",
    "UnknownMetric",
    "changed_keys",
    "configured_metrics",
    "default_metrics",
    "evaluate",
    "evaluate_stream",
    "format_value",
    "known_metrics",
    "measure_named",
    "ndcg_explain",
    "order_by_score",
    "parse_metric",
    "query_scores",
    "restricted",
    "trec_eval_name",
    "trec_eval_order",
    "trec_eval_rank",
]
