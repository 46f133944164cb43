"""The BM25 baseline: every question of a golden set run against its corpus with plain keyword
search, so each retriever can be read against "what would BM25 get?".

The top ``depth`` documents are put in trec_eval's order (score, then doc id descending), so the
numbers shown equal trec_eval's on the exported run.

Rankings are cached per question text: an edit to one question re-scores that question only.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ..formats.trec_run import run_lines
from ..metrics import Since, trec_eval_order
from ..model import EntryEdit, Qrels
from .tokens import tokenize

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from .bm25 import BM25Index

BASELINE_NAME = "bm25 (built-in)"
"""The built-in baseline's name: never mistaken for a run file someone called `bm25` (which
ranks with another tokenizer, other fields, other parameters: its numbers differ)."""
BASELINE_TAG = "bm25"
DEFAULT_DEPTH = 100


class BaselineCache:
    """question text -> ranked ids, for one index at a time (a new corpus starts afresh)."""

    def __init__(self) -> None:
        self._index: BM25Index | None = None
        self._depth = 0
        self._rankings: dict[str, list[str]] = {}
        # Each ranking's BM25 scores, in its order, 8 bytes each (a fusion by scores needs them).
        self._scores: dict[str, array[float]] = {}
        self._handed: dict[str, array[float]] = {}
        self._last: tuple[Qrels, dict[str, list[str]]] | None = None  # for edits of one entry
        self._lock = threading.Lock()

    def rankings(
        self,
        qrels: Qrels,
        index: BM25Index,
        edit: EntryEdit | None = None,
        depth: int = DEFAULT_DEPTH,
    ) -> tuple[dict[str, list[str]], Since | None]:
        """The baseline's ranking of every query that has question text (others are missing),
        and, after ``edit`` of the golden set last ranked, how they were made from the last."""
        with self._lock:
            if index is not self._index or depth != self._depth:
                self._index, self._depth, self._rankings = index, depth, {}
                self._scores = {}
                self._last = None
            derived = self._derived(qrels, edit)
            since = derived[1] if derived is not None else None
            out = derived[0] if derived is not None else self._all(qrels)
            if len(self._rankings) > 2 * len(out) + 64:  # each keystroke in a question adds one
                used = {(q.question or "").strip() for q in qrels.queries.values()}
                self._rankings = {t: r for t, r in self._rankings.items() if t in used}
                self._scores = {t: s for t, s in self._scores.items() if t in used}
            self._last = (qrels, out)
            self._handed = self._scores  # the scores of what was just handed out (see scores)
            return out, since

    def warm(
        self,
        index: BM25Index,
        questions: Iterable[str | None],
        pause: Callable[[], object] | None = None,
        depth: int = DEFAULT_DEPTH,
    ) -> None:
        """Rank ``questions`` now, so that the next :meth:`rankings` finds them ranked: what
        the editor does on its background thread right after building an index (ten thousand
        questions take seconds, which no keystroke's analysis should wait for). The lock is
        taken per question, never while one is ranked; ``pause`` is called between them."""
        with self._lock:
            if index is not self._index or depth != self._depth:
                self._index, self._depth, self._rankings = index, depth, {}
                self._scores = {}
                self._last = None
        for question in questions:
            text = (question or "").strip()
            if not text or text in self._rankings:
                continue
            if pause is not None:
                pause()
            scored = dict(index.top_ids(tokenize(text), depth))
            ranking = trec_eval_order(scored.items())
            with self._lock:
                if index is not self._index or depth != self._depth:
                    return  # another index came meanwhile
                self._rankings[text] = ranking
                self._scores[text] = array("d", (scored[d] for d in ranking))

    def scores(self, qrels: Qrels, rankings: dict[str, list[str]]) -> dict[str, array[float]]:
        """The BM25 score of each document of ``rankings`` (what :meth:`rankings` last returned,
        for ``qrels``), in the same order. Read from the scores kept when those rankings were
        handed out: a warm-up for another index, on the background thread, starts a new table
        of scores and leaves that one as it was."""
        with self._lock:
            kept = self._handed
            out: dict[str, array[float]] = {}
            for qid in rankings:
                text = (qrels.queries[qid].question or "").strip()
                out[qid] = kept[text]
            return out

    def _all(self, qrels: Qrels) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for qid, query in qrels.queries.items():
            ranking = self._ranking(query.question)
            if ranking is not None:
                out[qid] = ranking
        return out

    def _derived(
        self, qrels: Qrels, edit: EntryEdit | None
    ) -> tuple[dict[str, list[str]], Since] | None:
        """The last rankings with the edited query's ranked again, when ``edit`` made ``qrels``
        from the golden set last ranked and kept its having a question (or not having one)."""
        last = self._last
        if edit is None or last is None or last[0] is not edit.before:
            return None
        qid = edit.qid
        ranking = self._ranking(qrels.queries[qid].question)
        if (ranking is None) != (qid not in last[1]):
            return None  # the query gained or lost its question: the ids ranked changed
        out = dict(last[1])
        if ranking is not None:
            out[qid] = ranking
        return out, Since(last[1], frozenset([qid]))

    def _ranking(self, question: str | None) -> list[str] | None:
        """A question's ranking, None without question text; ranked once per text."""
        assert self._index is not None
        text = (question or "").strip()
        if not text:
            return None
        ranking = self._rankings.get(text)
        if ranking is None:
            scored = dict(self._index.top_ids(tokenize(text), self._depth))
            ranking = trec_eval_order(scored.items())
            self._rankings[text] = ranking
            self._scores[text] = array("d", (scored[d] for d in ranking))
        return ranking


def baseline_trec(qrels: Qrels, index: BM25Index, depth: int = DEFAULT_DEPTH) -> Iterator[str]:
    """The baseline as TREC run lines (real BM25 scores), for trec_eval, ranx or a dashboard:
    one query's lines at a time, so that a deep run of many questions is written as it is
    made, never held whole."""
    for qid, query in qrels.queries.items():
        question = (query.question or "").strip()
        if not question:
            continue
        scored = dict(index.top_ids(tokenize(question), depth))
        ranked = ((doc, scored[doc]) for doc in trec_eval_order(scored.items()))
        yield "".join(run_lines(qid, ranked, BASELINE_TAG))
