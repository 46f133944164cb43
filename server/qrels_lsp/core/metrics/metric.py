"""A metric as asked for (a measure, its cutoff and parameters: ``recall@5``,
``precision(rel=2)@5``, ``rbp@0.9``), how its name is read from any tool's spelling, and how one
query is scored for several metrics at once."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..base.caps import MAX_METRIC_NAME, too_long
from ..base.patterns import METRIC_NAME, METRIC_PARAM
from .measure import Judged, Measure
from .registry import MEASURES, measure_named

# name, then ir_measures' parameters in parentheses, then a cutoff (or RBP's p) after @ _ or .;
# run by RE2 (core/base/patterns.py): Python's engine backtracked for minutes on "a" + 60,000
# spaces + "x"
_METRIC_RE = METRIC_NAME
_PARAM_RE = METRIC_PARAM


@dataclass(frozen=True, slots=True)
class Metric:
    """A measure, its cutoff, a relevance level of its own (``rel``), its own parameter
    (``param``: RBP's p, alpha-nDCG's alpha, SetF's beta), nDCG's custom gains and trec_eval's
    ``-J`` for it alone (``judged_only``); ``str()`` gives the project's canonical name, which
    is also the result key, and which :func:`parse_metric` reads back."""

    name: str
    k: int | None = None
    rel: int | None = None  # None: the golden set's relevance level
    param: float | None = None  # None: the measure's default
    gains: tuple[tuple[int, int], ...] | None = None  # grade -> gain, by grade; None: the grade
    judged_only: bool = False
    # str(): made once (each query's scores are keyed by it, once per metric and query)
    _key: str = field(default="", init=False, compare=False, repr=False)

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
        if self.judged_only and not measure.condensable:
            raise ValueError(f"{self.name} takes no judged_only")
        if self.param is not None:
            param = measure.param
            if param is None:
                raise ValueError(f"{self.name} takes no parameter")
            problem = param.refuses(self.param)
            if problem is not None:
                raise ValueError(f"{param.name} of {self.name} {problem}")
            if self.param == param.default:
                object.__setattr__(self, "param", None)  # the default: one name for one metric
        if self.gains is not None:
            object.__setattr__(self, "gains", _gains(measure, self.gains))
        object.__setattr__(self, "_key", self._written())

    @property
    def measure(self) -> Measure:
        found = measure_named(self.name)
        assert found is not None
        return found

    @property
    def parameter(self) -> float:
        """The measure's parameter: the one asked for, else its default (RBP's p: 0.8)."""
        if self.param is not None:
            return self.param
        param = self.measure.param
        assert param is not None
        return param.default

    def gain(self) -> dict[int, int] | None:
        """The custom gains as a mapping (a grade not in it keeps itself as gain)."""
        return dict(self.gains) if self.gains else None

    def __str__(self) -> str:
        return self._key

    def _written(self) -> str:
        out = self.name
        written = []
        if self.rel is not None:
            written.append(f"rel={self.rel}")
        name = self.measure.param.name if self.measure.param is not None else ""
        if self.param is not None and name != "p":
            written.append(f"{name}={self.param!r}")
        if self.gains:
            written.append("gains={" + ",".join(f"{g}:{v}" for g, v in self.gains) + "}")
        if self.judged_only:
            written.append("judged_only=True")
        if written:
            out += "(" + ",".join(written) + ")"
        if self.param is not None and name == "p":
            out += f"@{self.param!r}"  # the shortest that reads back as the same p
        if self.k is not None:
            out += f"@{self.k}"
        # One string per metric, not one per query: each query's scores are keyed by it, and an
        # editor holds the scores of every question of hundreds of open runs.
        return sys.intern(out)


def _gains(
    measure: Measure, gains: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...] | None:
    """Custom gains as one name writes them: by grade, without the grades mapped to
    themselves (a grade not named keeps its own gain); None when nothing is left."""
    if not measure.gains:
        raise ValueError(f"{measure.name} takes no gains")
    for grade, gain in gains:
        if grade < 0 or gain < 0:
            raise ValueError(
                f"gains map grades of 0 or more to gains of 0 or more, not {grade}:{gain}"
            )
    kept = tuple(sorted((g, v) for g, v in dict(gains).items() if g != v))
    return kept or None


class UnknownMetric(ValueError):
    """A metric name no measure is spelled as; ``closest`` are the names meant most likely,
    each as it would be written in its place (the quick fixes of a configuration)."""

    def __init__(self, message: str, closest: list[str]) -> None:
        super().__init__(message)
        self.closest = closest


def parse_metric(s: str, k: int | None = None) -> Metric:
    """Read a metric in any tool's spelling: ranx's (``recall@5``, ``ndcg@10``, ``map@100``),
    trec_eval's (``P.5``, ``P_5``, ``ndcg_cut.10``, ``recip_rank``, ``unj.10``, ``rbp.p=0.9``,
    ``infAP``, ``set_F``) and ir_measures' (``nDCG@10``, ``R@100``, ``P(rel=2)@5``, ``RR@10``,
    ``AP@100``, ``Judged@10``, ``RBP(p=0.8)``, ``Success@5``, ``ERR@20``, ``alpha_nDCG@20``,
    ``SetP``, ``nDCG(gains={0:0,1:1,2:3})@10``, ``nDCG(dcg='exp-log2')@10``,
    ``nDCG(judged_only=True)@10``). ``k`` is the cutoff of ``recall@k`` and of a measure that
    needs one written without it (``recall``): the golden set's, or ``-k``'s."""
    if len(s) > MAX_METRIC_NAME:
        raise ValueError(too_long("a metric's name", len(s), MAX_METRIC_NAME))
    m = _METRIC_RE.match(s)
    spelling = m.group("name").lower() if m else ""
    measure = _by_spelling().get(spelling)
    if m is None or measure is None:
        closest = closest_metrics(s)
        meant = f"; did you mean {' or '.join(closest)}?" if closest else ""
        raise UnknownMetric(f"unknown metric {s!r}{meant} (known: {known_metrics()})", closest)
    params = _params(s, m.group("params"))
    measure = _selected(s, measure, params.pop("dcg", None))
    param = params.pop("param", None)
    named = params.pop("param_name", None)
    if named is not None and (measure.param is None or named != measure.param.name):
        own = f" (its own: {measure.param.name}=)" if measure.param is not None else ""
        raise ValueError(f"{s!r}: {measure.name} takes no parameter {named}{own}")
    cutoff: int | None = None
    written = (m.group("cut") or "").replace(" ", "")
    if written.startswith("p=") or "." in written:
        if measure.param is None or measure.param.name != "p":
            raise ValueError(f"{s!r}: {measure.name} takes a whole-number cutoff")
        param = float(written.removeprefix("p="))
    elif written == "k" or (
        not written and (measure.cutoff == "required" or spelling in measure.cut_spellings)
    ):
        if k is None:
            raise ValueError(f"{s!r}: no k to put in (give -k, or `k:` in the golden set)")
        cutoff = k
    elif written:
        cutoff = int(written)
    rel = params.get("rel")
    gains = params.get("gains")
    return Metric(
        measure.name,
        cutoff,
        rel if isinstance(rel, int) else None,
        param if isinstance(param, float) else None,
        gains if isinstance(gains, tuple) else None,
        params.get("judged_only") is True,
    )


def _selected(s: str, measure: Measure, dcg: object) -> Measure:
    """The measure an nDCG's ``dcg=`` names: ``log2`` is nDCG itself, ``exp-log2`` the one
    whose ``selected_by`` says so (ndcg_burges)."""
    if dcg is None:
        return measure
    for other in MEASURES:
        if other.selected_by == (measure.name, "dcg", dcg):
            return other
    if measure.name == "ndcg" and dcg == "log2":
        return measure
    raise ValueError(f"{s!r}: unknown dcg {dcg!r} (log2 or exp-log2)")


def _params(s: str, text: str | None) -> dict[str, object]:
    """ir_measures' parameters, read by hand (no regular expression on the braces):
    ``rel=2`` (a relevance level), the measure's own number (``p=0.8``, ``alpha=0.5``,
    ``beta=2``), ``gains={0:0,1:1,2:3}``, ``dcg='exp-log2'`` and ``judged_only=True``."""
    out: dict[str, object] = {}
    for part in _top_level(text or ""):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            raise ValueError(f"{s!r}: a parameter is written name=value, not {part.strip()!r}")
        if key == "gains":
            out[key] = _gain_pairs(s, value)
        elif key == "dcg":
            out[key] = value.strip("'\"")
        elif key == "judged_only":
            if value not in ("True", "true", "False", "false", "1", "0"):
                raise ValueError(f"{s!r}: judged_only is True or False, not {value!r}")
            out[key] = value in ("True", "true", "1")
        else:
            found = _PARAM_RE.match(part)
            if found is None or key in ("", "param"):
                raise ValueError(
                    f"{s!r}: unknown parameter {part.strip()!r} (rel=, a number such as p=, "
                    "gains=, dcg= or judged_only=)"
                )
            if key == "rel":
                try:
                    out[key] = int(found.group(2))
                except ValueError:
                    raise ValueError(f"{s!r}: rel= takes a whole number") from None
            else:
                out["param"] = float(found.group(2))
                out["param_name"] = key
    return out


def _top_level(text: str) -> list[str]:
    """``text`` split at the commas outside braces (``gains={0:0,1:1},rel=2``)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _gain_pairs(s: str, value: str) -> tuple[tuple[int, int], ...]:
    """``{0:0,1:1,2:3}`` as (grade, gain) pairs, read by hand."""
    if not (value.startswith("{") and value.endswith("}")):
        raise ValueError(f"{s!r}: gains are written {{grade:gain,...}}, e.g. {{0:0,1:1,2:3}}")
    pairs = []
    for item in value[1:-1].split(","):
        if not item.strip():
            continue
        grade, colon, gain = item.partition(":")
        try:
            if not colon:
                raise ValueError
            pairs.append((_whole(grade), _whole(gain)))
        except ValueError:
            raise ValueError(
                f"{s!r}: gains map whole grades to whole gains, not {item.strip()!r}"
            ) from None
    return tuple(pairs)


def _whole(text: str) -> int:
    """A whole number as Python writes one (no 2^53 surprise: at most 18 digits)."""
    text = text.strip()
    digits = text.removeprefix("-").removeprefix("+")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise ValueError(text)
    return int(text)


def _name_of(s: str) -> str:
    """The leading name of a metric as written: letters and underscores."""
    text = s.strip()[:MAX_SUGGESTED]
    end = 0
    while end < len(text) and (text[end].isascii() and (text[end].isalpha() or text[end] == "_")):
        end += 1
    return text[:end]


MAX_SUGGESTED = 64
"""The longest name compared with the known ones for suggestions."""


def closest_metrics(s: str, limit: int = 3) -> list[str]:
    """The names nearest ``s`` (rapidfuzz's similarity of its name with every spelling), each
    with what followed the name (``nDGC@10`` -> ``ndcg@10``), those that read as metrics."""
    from rapidfuzz import fuzz, process

    name = _name_of(s)
    if not name or len(s) > MAX_SUGGESTED * 4:  # (no metric is written so long)
        return []
    rest = s.strip()[len(name) :]
    spellings = _by_spelling()
    found = process.extract(
        name.lower(), list(spellings), scorer=fuzz.ratio, limit=12, score_cutoff=60
    )
    out: list[str] = []
    seen: set[str] = set()
    for spelling, _score, _at in found:
        measure = spellings[spelling]
        if measure.name in seen:
            continue
        candidate = spelling + rest
        found_again = _METRIC_RE.match(candidate)
        if found_again is None or found_again.group("name").lower() not in spellings:
            continue  # (what follows the name is what is wrong: no name mends it)
        try:
            parse_metric(candidate, k=1)
        except ValueError:
            continue
        seen.add(measure.name)
        out.append(candidate)
    return out[:limit]


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
    return Judged(hits, grades, level, num_rel, n, top)


def depth_of(metrics: Sequence[Metric]) -> int | None:
    """How far down the ranking the metrics look; None means to the end (map, uncut mrr)."""
    if any(m.judged_only or (m.k is None and m.measure.whole_ranking) for m in metrics):
        return None  # (the top k of the judged documents may lie anywhere in the ranking)
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
    condensed: Judged | None = None
    out: dict[str, float] = {}
    for m in metrics:
        j = judged
        if m.judged_only:
            j = condensed = condensed or judged.condensed()
        out[str(m)] = m.measure.value(j if m.rel is None else j.at_level(m.rel), m)
    return out


TREC_EVAL_ORDER = (
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    "P",
    "recall",
    "infAP",
    "ndcg",
    "ndcg_cut",
    "map_cut",
    "success",
    "set_P",
    "set_recall",
    "set_F",
    "rbp",
    "unj",
)
"""The order trec_eval prints its measures in (its measure table, measures.c), whatever order
they were asked for: `score --format trec` prints them so, and a diff is then empty."""


def trec_eval_name(metric: Metric) -> str | None:
    """trec_eval's name for ``metric`` (``recall_5``, ``recip_rank``, ``rbp_p=0.8``), None where
    it has none (``mrr@10``: trec_eval's recip_rank takes no cutoff; a metric with ``rel=`` or
    ``judged_only``: trec_eval has one level and one ``-J`` per run; custom gains)."""
    measure = metric.measure
    if metric.rel is not None or metric.judged_only or metric.gains:
        return None
    if metric.k is not None:
        return measure.trec_eval_cut.format(k=metric.k) if measure.trec_eval_cut else None
    if measure.param is not None and measure.trec_eval is not None and measure.param.name == "p":
        # trec_eval's own default p differs (RBP: 0.9): say which p, as `-m rbp.p=0.8` prints.
        return f"{measure.trec_eval}_{measure.param.name}={metric.parameter:g}"
    if metric.param is not None:
        return None  # (SetF's beta: trec_eval's set_F reads only the first one it is given)
    return measure.trec_eval


def trec_eval_rank(metric: Metric) -> tuple[int, int]:
    """Where trec_eval prints ``metric``: by measure, then by cutoff."""
    name = trec_eval_name(metric) or ""
    base = (metric.measure.trec_eval_cut or "").split("_{k}")[0] if metric.k else ""
    base = base or name.split("_p=")[0]
    at = TREC_EVAL_ORDER.index(base) if base in TREC_EVAL_ORDER else len(TREC_EVAL_ORDER)
    return at, metric.k or 0
