"""What a comparison of runs says: numpy-free, so that every module that shows or gates one can
be imported without the numerical code (the language server answers `initialize` before it
needs numpy: see ``__init__``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

# Why a statistic is None (``Comparison.undefined``): said wherever the statistic would be shown.
NO_QUESTIONS = "no question to compare on"
ONE_QUESTION = "one question: a t-test needs two"
NO_VARIANCE = "every question's delta is the same (up to rounding): no variance to test or size"
NOT_FINITE = "a value is not a finite number"
NO_DIFFERENCE = "no difference to size for"
TOO_SMALL = "more than 10^15 questions: the difference is too small to detect"

Word = Literal[
    "better",
    "worse",
    "no difference detected",
    "too few questions to tell",
    "too few to decide",
    "cannot tell",
]
"""A comparison's verdict (docs/compare.md, "One verdict"): the Holm-adjusted randomization test
decides better and worse; short of that, whether the questions were enough to see the
difference that matters (``min_difference``). "too few to decide" is a tag's comparison with
fewer questions than the power analysis needs, whatever its p (docs/compare.md, "Per tag").
"cannot tell" only where a value is not a finite number, which no measure here produces."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """One run against the base for one metric, over the base's ``n_queries`` queries."""

    run: str
    metric: str
    n_queries: int
    base_mean: float
    run_mean: float
    delta: float  # run_mean - base_mean
    ci95: tuple[float, float] | None  # paired bootstrap, percentile method; None: undefined
    p_randomization: float | None  # paired sign-flip test, two-sided; None when undefined
    p_ttest: float | None  # paired t-test, two-sided; None when undefined
    p_adjusted: float | None  # Holm over the whole family, from p_randomization
    significant: bool  # p_adjusted < alpha
    verdict: Word
    verdict_needed: int | None  # with "too few questions to tell": how many would tell, if known
    wins: int  # queries where the run is above the base
    ties: int
    losses: int
    questions_needed: int | None  # to detect min_difference (else |delta|) with power 0.8
    detectable_difference: float | None  # smallest true difference n queries detect so
    deltas: dict[str, float]  # qid -> run - base, in the base's query order
    undefined: Mapping[str, str] = field(default_factory=dict)  # statistic -> why it is None


@dataclass(frozen=True, slots=True)
class Comparisons:
    """A family of comparisons: every run (in the order given) x every metric, run-major."""

    base: str
    n_queries: int
    alpha: float
    min_difference: float | None
    items: list[Comparison]
    tag: str | None = None  # the comparison of one tag's questions; None: the whole golden set

    def for_run(self, run: str) -> list[Comparison]:
        return [c for c in self.items if c.run == run]

    def get(self, run: str, metric: str) -> Comparison | None:
        return next((c for c in self.items if c.run == run and c.metric == metric), None)
