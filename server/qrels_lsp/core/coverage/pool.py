"""The judging queue: which (question, document) pairs to judge next (docs/compare.md, "Which
documents to judge next").

Depth-k pooling over the runs: every document a run puts in a question's top ``depth`` that the
golden set does not judge: no judgment, or a negative grade, which judged@k counts as unjudged
(trec_eval's "in the pool, not judged"), so that judging the whole queue always brings judged@k
to 1 (judging such a pair writes its grade over the negative one). Judging a pair
raises judged@depth by 1/depth for each run that retrieved it there, so the queue puts first the
pairs most runs share (judging the first N raises the runs' mean judged@depth at least as much as
any other N pairs of the pool), then those some run ranks highest, then by question and document
id. Unanswerable questions and questions the golden set does not have are left out: no mean
reads them.

The editor keeps the pool between keystrokes (:class:`PoolCache`): after an edit of one entry only
that question's pairs are found again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..metrics import Since, changed_keys

DEFAULT_DEPTH = 10


@dataclass(frozen=True, slots=True)
class Pair:
    """One (question, document) pair of the pool: unjudged, or judged on a document that has
    changed since (``stale``: the code that says how, core/history/lock.py)."""

    query: str
    doc: str
    runs: tuple[str, ...]  # the runs that put it in their top depth, in the runs' order
    best_rank: int  # the best (1-based) rank any of them gives it (0: none does)
    stale: str | None = None

    def order(self) -> tuple[bool, int, int, str, str]:
        rank = self.best_rank or 1 << 62
        return (self.stale is None, -len(self.runs), rank, self.query, self.doc)


RunRankings = tuple[str, Mapping[str, Sequence[str]]]
"""A run's name and its rankings (question -> ids in trec_eval's order)."""
Staleness = Callable[[str], str | None]
"""Why a judged document's judgments may no longer hold (a check code), None when they hold."""


def query_pairs(
    qid: str,
    grades: Mapping[str, int],
    runs: Sequence[RunRankings],
    depth: int,
    stale: Staleness | None = None,
) -> list[Pair]:
    """The unjudged pairs of one question and its stale judgments, in queue order."""
    found: dict[str, tuple[list[str], int]] = {}
    again = {d: why for d in grades if (why := stale(d)) is not None} if stale is not None else {}
    for name, rankings in runs:
        ranking = rankings.get(qid)
        if not ranking:
            continue
        for rank, doc in enumerate(ranking[:depth], start=1):
            if grades.get(doc, -1) >= 0 and doc not in again:
                continue
            hit = found.get(doc)
            if hit is None:
                found[doc] = ([name], rank)
            else:
                hit[0].append(name)
                if rank < hit[1]:
                    found[doc] = (hit[0], rank)
    pairs = [Pair(qid, doc, tuple(ns), best, again.get(doc)) for doc, (ns, best) in found.items()]
    pairs += [Pair(qid, doc, (), 0, why) for doc, why in again.items() if doc not in found]
    pairs.sort(key=Pair.order)
    return pairs


def judging_queue(
    grades: Mapping[str, Mapping[str, int]],
    runs: Sequence[RunRankings],
    depth: int = DEFAULT_DEPTH,
    unanswerable: Collection[str] = (),
    stale: Staleness | None = None,
) -> list[Pair]:
    """Every stale judgment, then every unjudged pair of the pool in the order that covers the
    runs fastest."""
    return _ordered(
        pair
        for qid, judged in grades.items()
        if qid not in unanswerable
        for pair in query_pairs(qid, judged, runs, depth, stale)
    )


def _ordered(pairs: Iterable[Pair]) -> list[Pair]:
    return sorted(pairs, key=Pair.order)


class Pool:
    """The queue of one golden set over its runs: each question's pairs, its size, the next pair
    and (sorted when asked for) the whole queue. The editor's header lens needs only the size and
    the judge-next command the head, so ten thousand questions are not sorted per keystroke."""

    __slots__ = ("_pairs", "_per_query", "depth", "runs", "size", "stale")

    def __init__(
        self,
        depth: int,
        runs: tuple[str, ...],
        per_query: Mapping[str, list[Pair]],
        size: tuple[int, int] | None = None,
    ) -> None:
        self.depth = depth
        self.runs = runs  # the runs pooled
        # Not copied (a 100,000-entry dict per keystroke): ``PoolCache`` never changes a dict
        # it has handed to a pool. (``size``: the pairs in ``per_query`` and how many of them
        # are stale judgments, when counted.)
        self._per_query = per_query
        self.size, self.stale = _counts(per_query.values()) if size is None else size
        self._pairs: list[Pair] | None = None

    def __len__(self) -> int:
        return self.size

    @property
    def pairs(self) -> list[Pair]:
        """The whole queue, in order."""
        if self._pairs is None:
            self._pairs = _ordered(p for ps in self._per_query.values() for p in ps)
        return self._pairs

    def next(self, skip: tuple[str, str] | None = None) -> Pair | None:
        """The head of the queue, past the pair ``skip`` (question, document) if it is there:
        each question's first pair is compared, no sort of the whole queue."""
        heads = []
        for ps in self._per_query.values():
            if ps and skip is not None and (ps[0].query, ps[0].doc) == skip:
                ps = ps[1:]
            if ps:
                heads.append(ps[0])
        return min(heads, key=Pair.order) if heads else None

    def of_query(self, qid: str) -> list[Pair]:
        return list(self._per_query.get(qid, ()))


def _counts(lists: Iterable[list[Pair]]) -> tuple[int, int]:
    """How many pairs, and how many of them stale judgments."""
    size = stale = 0
    for pairs in lists:
        size += len(pairs)
        stale += sum(p.stale is not None for p in pairs)
    return size, stale


class PoolCache:
    """Each question's pairs, kept while its judgments and every run's rankings are the very same
    objects (rankings are kept per parse of a run, grades per entry of the golden set), so that a
    keystroke finds one question's pairs again, not ten thousand."""

    def __init__(self) -> None:
        self._config: tuple[int, tuple[str, ...], frozenset[str], object] | None = None
        self._grades: Mapping[str, Mapping[str, int]] | None = None
        self._rankings: tuple[Mapping[str, Sequence[str]], ...] = ()
        self._per_query: dict[str, list[Pair]] = {}
        self._size = (0, 0)  # the pairs in ``_per_query``, and the stale judgments among them
        self._last: Pool | None = None

    def pool(
        self,
        grades: Mapping[str, Mapping[str, int]],
        runs: Sequence[RunRankings],
        depth: int = DEFAULT_DEPTH,
        unanswerable: Collection[str] = (),
        since: Since | None = None,
        stale: Staleness | None = None,
    ) -> Pool:
        names = tuple(name for name, _ in runs)
        config = (depth, names, frozenset(unanswerable), stale)
        rankings = tuple(r for _, r in runs)
        same = config == self._config and len(rankings) == len(self._rankings)
        same = same and all(a is b for a, b in zip(rankings, self._rankings, strict=True))
        changed: Iterable[str] | None = None  # None: every question again
        last = self._grades
        if same and grades is last:
            if self._last is not None:
                return self._last
        elif same and last is not None:
            # Several edits may have been analysed since the last pool was asked for: the
            # questions whose judgments are other objects, and those gone.
            changed = changed_keys(grades, last, since)
            if since is None or since.base is not last:  # (else no question is gone)
                changed |= {q for q in last if q not in grades}
            if len(changed) > len(grades) // 4 + 1:
                changed = None  # most of them: as cheap to start again
        if changed is None and not (same and grades is last):
            self._per_query = {
                qid: query_pairs(qid, judged, runs, depth, stale)
                for qid, judged in grades.items()
                if qid not in unanswerable
            }
            self._size = _counts(self._per_query.values())
        elif changed is not None:
            self._redo(changed, grades, runs, depth, unanswerable, stale)
        self._config, self._grades, self._rankings = config, grades, rankings
        self._last = Pool(depth, names, self._per_query, self._size)
        return self._last

    def _redo(
        self,
        changed: Iterable[str],
        grades: Mapping[str, Mapping[str, int]],
        runs: Sequence[RunRankings],
        depth: int,
        unanswerable: Collection[str],
        stale: Staleness | None,
    ) -> None:
        """The changed questions' pairs again. The dict is copied (it belongs to the last pool)
        only when some question's pairs really differ: typing in a question's text changes none."""
        per_query, copied = self._per_query, False
        for qid in changed:
            judged = grades.get(qid)
            pairs = (
                query_pairs(qid, judged, runs, depth, stale)
                if judged is not None and qid not in unanswerable
                else None
            )
            old = per_query.get(qid)
            if pairs == old:
                continue
            if not copied:
                per_query, copied = dict(per_query), True
            size, stale_pairs = self._size
            gone, came = _counts([old or []]), _counts([pairs or []])
            self._size = (size - gone[0] + came[0], stale_pairs - gone[1] + came[1])
            if pairs is None:
                del per_query[qid]
            else:
                per_query[qid] = pairs
        self._per_query = per_query
