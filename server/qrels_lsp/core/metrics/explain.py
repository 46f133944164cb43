"""nDCG@k term by term, for the hover: the number people quote most and inspect least."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NdcgRow:
    rank: int
    doc_id: str
    grade: int | None  # None: not judged
    gain: float
    discount: float
    contribution: float


@dataclass(frozen=True, slots=True)
class NdcgExplanation:
    """How an nDCG@k value was computed, row by row, for a hover."""

    k: int
    rows: list[NdcgRow]  # the run's top k
    ideal: list[NdcgRow]  # the best possible top k from the judgments
    dcg: float
    idcg: float
    ndcg: float


def _row(rank: int, doc_id: str, grade: int | None) -> NdcgRow:
    gain = float(grade) if grade is not None and grade > 0 else 0.0
    discount = math.log2(rank + 1)
    contribution = gain / discount
    return NdcgRow(rank, doc_id, grade, gain, discount, contribution)


def _total(rows: Sequence[NdcgRow]) -> float:
    total = 0.0
    for r in rows:
        if r.gain > 0:
            total += r.contribution
    return total


def ndcg_explain(grades: Mapping[str, int], ranking: Sequence[str], k: int) -> NdcgExplanation:
    """The terms of nDCG@k; its ``ndcg`` equals ``query_scores(...)["ndcg@k"]`` exactly."""
    rows = [_row(i + 1, d, grades.get(d)) for i, d in enumerate(ranking[:k])]
    best = sorted(((g, d) for d, g in grades.items() if g > 0), key=lambda t: (-t[0], t[1]))[:k]
    ideal = [_row(i + 1, d, g) for i, (g, d) in enumerate(best)]
    dcg, idcg = _total(rows), _total(ideal)
    return NdcgExplanation(k, rows, ideal, dcg, idcg, dcg / idcg if idcg > 0.0 else dcg)
