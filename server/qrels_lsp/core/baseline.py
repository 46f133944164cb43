"""The BM25 baseline: every question of a golden set run against its corpus with plain keyword
search, so each retriever can be read against "what would BM25 get?".

The top ``depth`` documents are put in trec_eval's order (score, then doc id descending), so the
numbers shown equal trec_eval's on the exported run.

Rankings are cached per question text: an edit to one question re-scores that question only.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .metrics import trec_eval_order
from .model import Qrels
from .tokens import tokenize

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from .bm25 import BM25Index

BASELINE_NAME = "bm25 (baseline)"
BASELINE_TAG = "bm25"
DEFAULT_DEPTH = 100


class BaselineCache:
    """question text -> ranked ids, for one index at a time (a new corpus starts afresh)."""

    def __init__(self) -> None:
        self._index: BM25Index | None = None
        self._depth = 0
        self._rankings: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def rankings(
        self, qrels: Qrels, index: BM25Index, depth: int = DEFAULT_DEPTH
    ) -> dict[str, list[str]]:
        """The baseline's ranking of every query that has question text (others are missing)."""
        with self._lock:
            if index is not self._index or depth != self._depth:
                self._index, self._depth, self._rankings = index, depth, {}
            out: dict[str, list[str]] = {}
            for qid, query in qrels.queries.items():
                question = (query.question or "").strip()
                if not question:
                    continue
                ranking = self._rankings.get(question)
                if ranking is None:
                    ranking = trec_eval_order(index.top_ids(tokenize(question), depth))
                    self._rankings[question] = ranking
                out[qid] = ranking
            if len(self._rankings) > 2 * len(out) + 64:  # each keystroke in a question adds one
                used = {(q.question or "").strip() for q in qrels.queries.values()}
                self._rankings = {t: r for t, r in self._rankings.items() if t in used}
            return out


def baseline_trec(qrels: Qrels, index: BM25Index, depth: int = DEFAULT_DEPTH) -> str:
    """The baseline as a TREC run (real BM25 scores), for trec_eval, ranx or a dashboard."""
    lines = []
    for qid, query in qrels.queries.items():
        question = (query.question or "").strip()
        if not question:
            continue
        scored = dict(index.top_ids(tokenize(question), depth))
        for rank, doc in enumerate(trec_eval_order(scored.items()), start=1):
            lines.append(f"{qid} Q0 {doc} {rank} {scored[doc]!r} {BASELINE_TAG}")
    return "\n".join(lines) + ("\n" if lines else "")
