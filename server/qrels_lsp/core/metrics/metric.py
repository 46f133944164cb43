"""A metric as asked for (a measure, its cutoff and parameters: ``recall@5``,
``precision(rel=2)@5``, ``rbp@0.9``), how its name is read from any tool's spelling, and how one
query is scored for several metrics at once."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .measure import Judged, Measure
from .registry import MEASURES, measure_named

# name, then ir_measures' parameters in parentheses, then a cutoff (or RBP's p) after @ _ or .
_METRIC_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z_]*?)\s*(?:\((?P<params>[^()]*)\))?"
    r"(?:\s*[@_.]\s*(?P<cut>\d+|k|\d*\.\d+|p\s*=\s*\d*\.?\d+))?\s*$"
)
_PARAM_RE = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*([-+]?\d*\.?\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Metric:
    """A measure, its cutoff, a relevance level of its own (``rel``) and RBP's persistence
    (``p``); ``str()`` gives the project's canonical name, which is also the result key."""

    name: str
    k: int | None = None
    rel: int | None = None  # None: the golden set's relevance level
    p: float | None = None  # None: the measure's default

    def __post_init__(self) -> None:
        measure = measure_named(self.name)
        if measure is None:
            raise ValueError(f"unknown metric {self.name!r}")
        if self.k is None and measure.cutoff == "required":
            raise ValueError(f"{self.name} needs a cutoff, e.g. {self.name}@5")
        if self.k is not None and measure.cutoff == "none":
            raise ValueError(f"{self.name} takes no cutoff")
        if self.k is not None and self.k < 1:
            raise ValueError(f"the cutoff of {self.name} must be at least 1, not {self.k}")
        if self.rel is not None and not measure.levelled:
            raise ValueError(f"{self.name} takes no relevance level (rel=)")
        if self.p is not None:
            if measure.param is None:
                raise ValueError(f"{self.name} takes no parameter p")
            if not 0.0 < self.p < 1.0:
                raise ValueError(f"p of {self.name} must be above 0 and below 1, not {self.p}")
            if self.p == measure.param[1]:
                object.__setattr__(self, "p", None)  # the default: one name for one metric

    @property
    def measure(self) -> Measure:
        found = measure_named(self.name)
        assert found is not None
        return found

    @property
    def persistence(self) -> float:
        """RBP's p: the one asked for, else the measure's default."""
        if self.p is not None:
            return self.p
        param = self.measure.param
        assert param is not None
        return param[1]

    def __str__(self) -> str:
        out = self.name
        if self.rel is not None:
            out += f"(rel={self.rel})"
        if self.p is not None:
            out += f"@{self.p!r}"  # the shortest that reads back as the same p
        if self.k is not None:
            out += f"@{self.k}"
        # One string per metric, not one per query: each query's scores are keyed by it, and an
        # editor holds the scores of every question of hundreds of open runs.
        return sys.intern(out)


def parse_metric(s: str, k: int | None = None) -> Metric:
    """Read a metric in any tool's spelling: ranx's (``recall@5``, ``ndcg@10``, ``map@100``),
    trec_eval's (``P.5``, ``P_5``, ``ndcg_cut.10``, ``recip_rank``, ``unj.10``, ``rbp.p=0.9``)
    and ir_measures' (``nDCG@10``, ``R@100``, ``P(rel=2)@5``, ``RR@10``, ``AP@100``,
    ``Judged@10``, ``RBP(p=0.8)``, ``Success@5``). ``k`` is the cutoff of ``recall@k`` and of a
    measure that needs one written without it (``recall``): the golden set's, or ``-k``'s."""
    m = _METRIC_RE.match(s)
    spelling = m.group("name").lower() if m else ""
    measure = _by_spelling().get(spelling)
    if m is None or measure is None:
        raise ValueError(f"unknown metric {s!r}; expected one of {known_metrics()}")
    rel, p = _params(s, m.group("params"))
    cutoff: int | None = None
    written = (m.group("cut") or "").replace(" ", "")
    if written.startswith("p=") or "." in written:
        if measure.param is None:
            raise ValueError(f"{s!r}: {measure.name} takes a whole-number cutoff")
        p = float(written.removeprefix("p="))
    elif written == "k" or (
        not written and (measure.cutoff == "required" or spelling in measure.cut_spellings)
    ):
        if k is None:
            raise ValueError(f"{s!r}: no k to put in (give -k, or `k:` in the golden set)")
        cutoff = k
    elif written:
        cutoff = int(written)
    return Metric(measure.name, cutoff, rel, p)


def _params(s: str, text: str | None) -> tuple[int | None, float | None]:
    """ir_measures' parameters: ``rel=2`` (a relevance level) and ``p=0.8`` (RBP)."""
    rel: int | None = None
    p: float | None = None
    for part in (text or "").split(","):
        if not part.strip():
            continue
        found = _PARAM_RE.match(part)
        if found is None or found.group(1) not in ("rel", "p"):
            raise ValueError(f"{s!r}: unknown parameter {part.strip()!r} (rel= or p=)")
        if found.group(1) == "rel":
            try:
                rel = int(found.group(2))
            except ValueError:
                raise ValueError(f"{s!r}: rel= takes a whole number") from None
        else:
            p = float(found.group(2))
    return rel, p


def split_metrics(text: str) -> list[str]:
    """A comma-separated list of metrics, commas inside parentheses kept: ``RBP(rel=1,p=0.9)``
    is one metric."""
    out: list[str] = []
    depth, current = 0, ""
    for c in text:
        if c == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += (c == "(") - (c == ")")
        current += c
    out.append(current)
    return [m.strip() for m in out if m.strip()]


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
    return {spelling: m for m in MEASURES for spelling in (m.name, *m.spellings, *m.cut_spellings)}


def default_metrics(k: int) -> list[Metric]:
    return [
        Metric("recall", k),
        Metric("precision", k),
        Metric("mrr"),
        Metric("ndcg", k),
        Metric("map"),
        Metric("hit_rate", k),
        Metric("judged", k),
    ]


def configured_metrics(names: Sequence[str], k: int) -> list[Metric]:
    """The configured metrics at a golden set's ``k`` (``recall`` is ``recall@k``), each once;
    the defaults when none is configured (or none can be read: the configuration says so)."""
    out: list[Metric] = []
    for name in names:
        try:
            metric = parse_metric(name, k)
        except ValueError:
            continue
        if metric not in out:
            out.append(metric)
    return out or default_metrics(k)


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
    return Judged(hits, grades, level, num_rel, n)


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
    ``ndcg_cut`` does. A metric with a ``rel`` of its own reads the same walk at that level.
    """
    judged = walk(grades, ranking, depth_of(metrics), level)
    return {
        str(m): m.measure.value(judged if m.rel is None else judged.at_level(m.rel), m)
        for m in metrics
    }


TREC_EVAL_ORDER = (
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P",
    "recall",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
    "rbp",
    "unj",
)
"""The order trec_eval prints its measures in (its measure table, measures.c), whatever order
they were asked for: `score --format trec` prints them so, and a diff is then empty."""


def trec_eval_name(metric: Metric) -> str | None:
    """trec_eval's name for ``metric`` (``recall_5``, ``recip_rank``, ``rbp_p=0.8``), None where
    it has none (``mrr@10``: trec_eval's recip_rank takes no cutoff; a metric with ``rel=``:
    trec_eval has one level per run, ``-l``)."""
    measure = metric.measure
    if metric.rel is not None:
        return None
    if metric.k is not None:
        return measure.trec_eval_cut.format(k=metric.k) if measure.trec_eval_cut else None
    if measure.param is not None and measure.trec_eval is not None:
        # trec_eval's own default p differs (RBP: 0.9): say which p, as `-m rbp.p=0.8` prints.
        return f"{measure.trec_eval}_{measure.param[0]}={metric.persistence:g}"
    return measure.trec_eval


def trec_eval_rank(metric: Metric) -> tuple[int, int]:
    """Where trec_eval prints ``metric``: by measure, then by cutoff."""
    name = trec_eval_name(metric) or ""
    base = (metric.measure.trec_eval_cut or "").split("_{k}")[0] if metric.k else ""
    base = base or name.split("_p=")[0]
    at = TREC_EVAL_ORDER.index(base) if base in TREC_EVAL_ORDER else len(TREC_EVAL_ORDER)
    return at, metric.k or 0
