"""Content checks of golden sets and runs: what a parser cannot see on its own.

One module per check, each declaring its codes and (for per-query checks) the inputs it reads;
``registry.py`` lists them. Parser findings (syntax, shape) come with the model and are not
repeated here. A new check is one module and one line there.
"""

from __future__ import annotations

from .cache import CheckCache
from .check import CorpusState
from .registry import GOLDEN_CHECKS, QUERY_CHECKS, RUN_CHECKS
from .runner import check_golden, check_run
from .suggestions import SUGGESTION_BUDGET, SuggestionBudget

__all__ = [
    "GOLDEN_CHECKS",
    "QUERY_CHECKS",
    "RUN_CHECKS",
    "SUGGESTION_BUDGET",
    "CheckCache",
    "CorpusState",
    "SuggestionBudget",
    "check_golden",
    "check_run",
]
