"""qrels-lsp: a language server and CLI for retrieval evaluation files.

The Python API (``qrels_lsp.api``, docs/api.md) is re-exported here on first use of its names
(PEP 562): ``import qrels_lsp`` loads nothing else, so the language server and the command line
start as fast as before, and ``from qrels_lsp import evaluate`` works.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import (
        Check,
        Comparisons,
        Evaluation,
        Finding,
        Pair,
        Pool,
        Run,
        check,
        compare,
        evaluate,
        fuse,
        pool,
    )

__all__ = [
    "Check",
    "Comparisons",
    "Evaluation",
    "Finding",
    "Pair",
    "Pool",
    "Run",
    "__version__",
    "check",
    "compare",
    "evaluate",
    "fuse",
    "pool",
]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(".api", __name__), name)
