"""Comparing runs with a base run: per-query wins and losses, significance, intervals, and how
many questions a golden set needs (docs/compare.md). ``stats.py`` holds the statistics over a
family of comparisons; ``comparison.py`` the comparisons themselves and the ``Comparer`` that
updates them after an edit."""

from __future__ import annotations

from .comparison import Comparer, Comparison, Comparisons, compare
from .stats import (
    SEED,
    bootstrap_ci,
    detectable_difference,
    holm,
    questions_needed,
    randomization_p,
    ttest_p,
)

__all__ = [
    "SEED",
    "Comparer",
    "Comparison",
    "Comparisons",
    "bootstrap_ci",
    "compare",
    "detectable_difference",
    "holm",
    "questions_needed",
    "randomization_p",
    "ttest_p",
]
