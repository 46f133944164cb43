"""qrels-lsp for Python: notebooks, scripts and agents (docs/api.md).

``evaluate``, ``compare``, ``fuse``, ``pool`` and ``check`` are the command line's ``score``,
``compare``, ``fuse``, ``pool`` and ``check`` over the same core, so their numbers are the CLI's
JSON numbers (trec_eval's, docs/metrics.md). They take golden sets and runs as files, dictionaries
(``{qid: {doc: grade}}``, ``{qid: {doc: score}}``, ``{qid: [doc, ...]}``), pandas DataFrames,
ranx ``Qrels``/``Run`` and ir_measures' ``Qrel``/``ScoredDoc`` tuples, and return frozen
dataclasses with ``to_pandas()``. Importing this package loads no more than the command line's
start does (no pandas, no numpy).
"""

from __future__ import annotations

from .evaluation import compare, evaluate
from .fusion import fuse
from .inputs import GoldenInput, RunInput
from .judging import check, pool
from .results import Check, Comparisons, Evaluation, Finding, Pair, Pool, Run

# `diff` (two versions of a golden set, question by question) joins these when it exists.

__all__ = [
    "Check",
    "Comparisons",
    "Evaluation",
    "Finding",
    "GoldenInput",
    "Pair",
    "Pool",
    "Run",
    "RunInput",
    "check",
    "compare",
    "evaluate",
    "fuse",
    "pool",
]
