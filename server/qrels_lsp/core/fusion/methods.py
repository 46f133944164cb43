"""The fusion methods and score normalisations, as ranx computes them (``ranx.fusion``,
``ranx.normalization``), per query.

Each method turns one query's inputs (per run: its documents in trec_eval's order, cut at the
fusion's depth, with their scores when the method needs them) into a score per document. The
sums run over the runs in the order the fusion lists them, one addition after another from 0.0,
as ranx's compiled loops do, so the fused scores are ranx's to the bit (zmuv's mean and standard
deviation are numba's plain loops, also copied, and its ``** 0.5`` is the square root numba
compiles it to: C's ``pow(x, 0.5)``, Python's ``** 0.5``, is a last bit off now and then).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Scores = Mapping[str, float]
Ranked = tuple[Sequence[str], Sequence[float] | None]
"""One run's documents for one query, in evaluation order, and their scores (None: it has none)."""

NORMS: dict[str, Callable[[Sequence[float]], list[float]]] = {}
"""Normalisations of one run's scores for one query, by name: ``min-max``, ``zmuv``, ``sum``."""
DEFAULT_NORM = "min-max"
DEFAULT_RRF_K = 60


def _plain_sum(values: Sequence[float]) -> float:
    """Left to right from 0.0 (``sum`` compensates rounding since Python 3.12; ranx does not)."""
    return functools.reduce(operator.add, values, 0.0)


def _norm(
    name: str,
) -> Callable[[Callable[[Sequence[float]], list[float]]], Callable[..., list[float]]]:
    def register(f: Callable[[Sequence[float]], list[float]]) -> Callable[..., list[float]]:
        NORMS[name] = f
        return f

    return register


@_norm("min-max")
def min_max(scores: Sequence[float]) -> list[float]:
    """(s - min) / (max - min), the span at least 1e-9 (``ranx.normalization.min_max_norm``)."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    span = max(high - low, 1e-9)
    return [(s - low) / span for s in scores]


@_norm("zmuv")
def zmuv(scores: Sequence[float]) -> list[float]:
    """(s - mean) / standard deviation, at least 1e-9 (``zmuv_norm``: zero mean, unit variance)."""
    if not scores:
        return []
    n = len(scores)
    mean = _plain_sum(scores) / n
    deviation = math.sqrt(_plain_sum([(s - mean) * (s - mean) for s in scores]) / n)
    spread = max(deviation, 1e-9)
    return [(s - mean) / spread for s in scores]


@_norm("sum")
def sum_norm(scores: Sequence[float]) -> list[float]:
    """(s - min) / (sum - min * n), at least 1e-9 (``sum_norm``)."""
    if not scores:
        return []
    low = min(scores)
    total = max(_plain_sum(scores) - low * len(scores), 1e-9)
    return [(s - low) / total for s in scores]


@dataclass(frozen=True, slots=True)
class Params:
    """What a fusion computes with (its run names and where it is written aside)."""

    method: str
    k: float = DEFAULT_RRF_K
    weights: tuple[float, ...] | None = None
    norm: str = DEFAULT_NORM
    depth: int | None = None


@dataclass(frozen=True, slots=True)
class Method:
    """A fusion method: whether it needs the runs' scores, which parameters it takes, and its
    combination of one query's per-run contributions."""

    name: str
    needs_scores: bool
    takes: frozenset[str]
    combine: Callable[[Params, Sequence[dict[str, float] | None]], dict[str, float]]
    oracle: str  # ranx's name for it


def _union(parts: Sequence[dict[str, float] | None]) -> list[str]:
    return list(dict.fromkeys(d for part in parts if part is not None for d in part))


def _sum(params: Params, parts: Sequence[dict[str, float] | None]) -> dict[str, float]:
    out: dict[str, float] = {}
    for doc in _union(parts):
        acc = 0.0
        for part in parts:
            acc += part.get(doc, 0.0) if part is not None else 0.0
        out[doc] = acc
    return out


def _mnz(params: Params, parts: Sequence[dict[str, float] | None]) -> dict[str, float]:
    out: dict[str, float] = {}
    for doc in _union(parts):
        present = [part[doc] for part in parts if part is not None and doc in part]
        out[doc] = _plain_sum(present) * len(present)
    return out


def _weighted(params: Params, parts: Sequence[dict[str, float] | None]) -> dict[str, float]:
    weights = params.weights or ()
    out: dict[str, float] = {}
    for doc in _union(parts):
        acc = 0.0
        for weight, part in zip(weights, parts, strict=False):
            acc += weight * (part.get(doc, 0.0) if part is not None else 0.0)
        out[doc] = acc
    return out


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("rrf", False, frozenset({"k", "depth"}), _sum, "rrf"),
        Method("combsum", True, frozenset({"norm", "depth"}), _sum, "sum"),
        Method("combmnz", True, frozenset({"norm", "depth"}), _mnz, "mnz"),
        Method("wsum", True, frozenset({"norm", "weights", "depth"}), _weighted, "wsum"),
    )
}
"""The fusion methods by name. RRF (Cormack, Clarke & Buettcher 2009) sums 1 / (k + rank) over
the runs that rank a document; the others sum normalised scores (CombMNZ times the number of
runs that have the document; the weighted sum each run's score times its weight)."""


def contributions(method: Method, params: Params, ranked: Ranked | None) -> dict[str, float] | None:
    """One run's share of one query's fusion: 1 / (k + rank) for RRF, else its normalised
    scores; None when the run does not answer the query."""
    if ranked is None:
        return None
    docs, scores = ranked
    if params.depth is not None:
        docs = docs[: params.depth]
        scores = scores[: params.depth] if scores is not None else None
    if not method.needs_scores:
        k = params.k
        return {doc: 1 / (k + i + 1) for i, doc in enumerate(docs)}
    assert scores is not None, "a score method was given a run without scores"
    return dict(zip(docs, NORMS[params.norm](scores), strict=True))
