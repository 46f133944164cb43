"""Fusing runs: every query any input answers, its documents scored by the fusion method and
ranked in trec_eval's order (score, then document id descending), so the fused run scores,
exports and compares like a run read from a file.

A :class:`Fuser` keeps the last fusion: when the inputs' rankings are the very same lists as
last time for all but a few queries (an edit of one question re-ranks it in the BM25 baseline
only), only those queries are fused again, and the result says which (``since``), so that the
score cache re-scores those alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..metrics import Since, order_by_score
from .methods import METHODS, Params, Ranked, contributions


@dataclass(frozen=True, slots=True)
class Input:
    """One run given to a fusion: qid -> documents in evaluation order (after any chunk
    mapping), and qid -> their scores in the same order when the method needs them."""

    rankings: Mapping[str, Sequence[str]]
    scores: Mapping[str, Sequence[float]] | None = None

    def ranked(self, qid: str) -> Ranked | None:
        docs = self.rankings.get(qid)
        if docs is None:
            return None
        return docs, (self.scores.get(qid) if self.scores is not None else None)


@dataclass(frozen=True, slots=True)
class Fused:
    """A fused run: qid -> documents in trec_eval's order and their fused scores."""

    rankings: dict[str, list[str]]
    scores: dict[str, list[float]]
    since: Since | None = None


def fuse_query(params: Params, inputs: Sequence[Input], qid: str) -> tuple[list[str], list[float]]:
    """One query fused: its documents in trec_eval's order and their scores."""
    method = METHODS[params.method]
    parts = [contributions(method, params, i.ranked(qid)) for i in inputs]
    fused = method.combine(params, parts)
    order = order_by_score(fused)
    return order, [fused[d] for d in order]


def queries(inputs: Sequence[Input]) -> list[str]:
    """Every query any input answers, in the order they first appear."""
    return list(dict.fromkeys(q for i in inputs for q in i.rankings))


def fuse(params: Params, inputs: Sequence[Input]) -> Fused:
    rankings: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    for qid in queries(inputs):
        rankings[qid], scores[qid] = fuse_query(params, inputs, qid)
    return Fused(rankings, scores)


class Fuser:
    """One fused run's last fusion, to fuse again only the queries whose inputs changed."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Params, tuple[Input, ...], Fused] | None = None

    def fuse(self, params: Params, inputs: Sequence[Input]) -> Fused:
        last = self._last
        now = tuple(inputs)
        if last is None or last[0] != params or len(last[1]) != len(now):
            fused = fuse(params, now)
        elif all(_same(a, b) for a, b in zip(now, last[1], strict=True)):
            return last[2]
        else:
            fused = self._again(params, now, last[1], last[2])
        self._last = (params, now, fused)
        return fused

    @staticmethod
    def _again(
        params: Params, now: tuple[Input, ...], before: tuple[Input, ...], was: Fused
    ) -> Fused:
        order = queries(now)
        if len(order) != len(was.rankings) or any(q not in was.rankings for q in order):
            return fuse(params, now)
        rankings = dict(was.rankings)
        scores = dict(was.scores)
        changed: set[str] = set()
        for qid in order:
            if all(_same_query(a, b, qid) for a, b in zip(now, before, strict=True)):
                continue
            rankings[qid], scores[qid] = fuse_query(params, now, qid)
            changed.add(qid)
        return Fused(rankings, scores, Since(was.rankings, frozenset(changed)))


def _same(a: Input, b: Input) -> bool:
    return a.rankings is b.rankings and a.scores is b.scores


def _same_query(a: Input, b: Input, qid: str) -> bool:
    if a.rankings.get(qid) is not b.rankings.get(qid):
        return False
    if a.scores is None or b.scores is None:
        return a.scores is b.scores
    return a.scores.get(qid) is b.scores.get(qid)
