"""A metric as asked for (a measure and its cutoff: ``recall@5``), how its name is read from any
tool's spelling, and how one query is scored for several metrics at once."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .measure import Judged, Measure
from .registry import MEASURES, measure_named

_METRIC_RE = re.compile(r"^\s*([A-Za-z_]+?)(?:\s*[@_.]\s*(\d+|k))?\s*$")


@dataclass(frozen=True, slots=True, order=True)
class Metric:
    """A measure and its cutoff; ``str()`` gives ranx's name, which is also the result key."""

    name: str
    k: int | None = None

    def __post_init__(self) -> None:
        measure = measure_named(self.name)
        if measure is None:
            raise ValueError(f"unknown metric {self.name!r}")
        if self.k is None and measure.cutoff == "required":
            raise ValueError(f"{self.name} needs a cutoff, e.g. {self.name}@5")
        if self.k is not None and measure.cutoff == "none":
            raise ValueError(
                f"{self.name} takes no cutoff (trec_eval's {self.name}_cut is a different measure)"
            )
        if self.k is not None and self.k < 1:
            raise ValueError(f"the cutoff of {self.name} must be at least 1, not {self.k}")

    @property
    def measure(self) -> Measure:
        found = measure_named(self.name)
        assert found is not None
        return found

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


def parse_metric(s: str, k: int | None = None) -> Metric:
    """Read ``recall@5``, ``P@5``, ``P_5``, ``P.5``, ``ndcg_cut_10``, ``recip_rank``, ``mrr@10``:
    ranx's names, trec_eval's and ir_measures'. ``k`` is the cutoff of ``recall@k`` and of a
    measure that needs one written without it (``recall``): the golden set's, or ``-k``'s."""
    m = _METRIC_RE.match(s)
    measure = _by_spelling().get(m.group(1).lower()) if m else None
    if m is None or measure is None:
        raise ValueError(f"unknown metric {s!r}; expected one of {known_metrics()}")
    written = m.group(2)
    if written == "k" and k is None:
        raise ValueError(f"{s!r}: no k to put in (give -k, or `k:` in the golden set)")
    cutoff = int(written) if written not in (None, "k") else None
    if written == "k" or (written is None and measure.cutoff == "required"):
        cutoff = k
    return Metric(measure.name, cutoff)


def known_metrics() -> str:
    """The metrics as a user writes them, for messages."""
    out = []
    for measure in MEASURES:
        if measure.cutoff != "required":
            out.append(measure.name)
        if measure.cutoff != "none":
            out.append(f"{measure.name}@k")
    return ", ".join(out)


def _by_spelling() -> dict[str, Measure]:
    return {spelling: m for m in MEASURES for spelling in (m.name, *m.spellings)}


def default_metrics(k: int) -> list[Metric]:
    return [
        Metric("recall", k),
        Metric("precision", k),
        Metric("mrr"),
        Metric("ndcg", k),
        Metric("map"),
        Metric("hit_rate", k),
    ]


def walk(
    grades: Mapping[str, int], ranking: Sequence[str], depth: int | None, level: int
) -> Judged:
    """The judged documents of the top ``depth`` of ``ranking`` (all of it for None).

    A 1,000-deep ranking has a few dozen judged documents: mapping the ranking's ids to their
    ranks runs in C, and the Python loop is then over the judgments alone. A ranking that
    repeats an id (the model never builds one, but a caller could) is walked position by
    position instead.
    """
    num_rel = sum(1 for g in grades.values() if g >= level and g >= 0)
    n = len(ranking) if depth is None else min(len(ranking), depth)
    top = ranking[:n] if n < len(ranking) else ranking
    rank_of = dict(zip(top, range(n), strict=True))
    if len(rank_of) < n:
        get = grades.get
        hits = [(i, g) for i, d in enumerate(top) if (g := get(d)) is not None]
    else:
        hits = sorted((rank_of[d], g) for d, g in grades.items() if d in rank_of)
    return Judged(hits, grades, level, num_rel)


def depth_of(metrics: Sequence[Metric]) -> int | None:
    """How far down the ranking the metrics look; None means to the end (map, uncut mrr)."""
    if any(m.k is None and m.measure.whole_ranking for m in metrics):
        return None
    return max((m.k for m in metrics if m.k is not None), default=0)


def query_scores(
    grades: Mapping[str, int],
    ranking: Sequence[str],
    metrics: Sequence[Metric],
    level: int = 1,
) -> dict[str, float]:
    """Score one query. ``ranking`` is in evaluation order, without repeated doc ids.

    Relevant means ``grade >= level`` (and never a negative grade, which trec_eval treats as
    judged-but-unjudged); nDCG uses the raw positive grades and ignores ``level``, as trec_eval's
    ``ndcg_cut`` does.
    """
    judged = walk(grades, ranking, depth_of(metrics), level)
    return {str(m): m.measure.value(judged, m.k) for m in metrics}


TREC_EVAL_ORDER = ("map", "recip_rank", "P", "recall", "ndcg_cut", "success")
"""The order trec_eval prints its measures in (its measure table, measures.c), whatever order
they were asked for: `score --format trec` prints them so, and a diff is then empty."""


def trec_eval_name(metric: Metric) -> str | None:
    """trec_eval's name for ``metric`` (``recall_5``, ``recip_rank``), None where it has none
    (``mrr@10``: trec_eval's recip_rank takes no cutoff)."""
    template = metric.measure.trec_eval
    if "{k}" in template:
        return template.format(k=metric.k) if metric.k is not None else None
    return template if metric.k is None else None


def trec_eval_rank(metric: Metric) -> tuple[int, int]:
    """Where trec_eval prints ``metric``: by measure, then by cutoff."""
    base = metric.measure.trec_eval.split("_{k}")[0]
    at = TREC_EVAL_ORDER.index(base) if base in TREC_EVAL_ORDER else len(TREC_EVAL_ORDER)
    return at, metric.k or 0
