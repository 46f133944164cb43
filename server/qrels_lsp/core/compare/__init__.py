"""Comparing runs with a base run: per-query wins and losses, significance, intervals, and how
many questions a golden set needs (docs/compare.md). ``stats.py`` holds the statistics over a
family of comparisons; ``comparison.py`` the comparisons themselves and the ``Comparer`` that
updates them after an edit; ``results.py`` what they say.

The numerical modules (numpy) are imported on first use of one of their names, not with the
package: a language server that starts needs the results' types, not numpy, which alone is a
sixth of the server's start-up (PEP 562 module ``__getattr__``; imports are thread-safe).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .results import Comparison, Comparisons

if TYPE_CHECKING:
    from .comparison import Comparer, compare
    from .stats import (
        SEED,
        bootstrap_ci,
        detectable_difference,
        holm,
        questions_needed,
        randomization_p,
        ttest_p,
    )

_LAZY = {
    "Comparer": "comparison",
    "compare": "comparison",
    "SEED": "stats",
    "bootstrap_ci": "stats",
    "detectable_difference": "stats",
    "holm": "stats",
    "questions_needed": "stats",
    "randomization_p": "stats",
    "ttest_p": "stats",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


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
