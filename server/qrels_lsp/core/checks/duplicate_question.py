"""QR108: the same question asked twice (case and punctuation aside): the mean counts it twice."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..base.findings import Finding, Related, Severity, declare, finding
from ..base.patterns import NOT_WORDS
from ..formats.golden import MAX_QUESTIONS
from ..model import Qrels, Query
from .check import GoldenCheck, GoldenInputs

QR108 = declare(
    "QR108", "duplicate-question", Severity.WARNING, "golden set", "The same question asked twice."
)


@functools.lru_cache(maxsize=4 * MAX_QUESTIONS)
def _normalized(question: str) -> str:
    """A question's words, for comparing questions (cached: asked for every question per edit)."""
    return NOT_WORDS.sub(" ", question.casefold()).strip()


@dataclass(slots=True)
class _Asked:
    """Which queries ask each question (by :func:`_normalized` key), in file order, for one
    golden set: kept for the last few checked, so that after an edit of one entry only that
    query is keyed again and only the questions asked twice are read (a pass over a hundred
    thousand questions took 50 ms of every keystroke)."""

    qrels: Qrels
    keys: dict[str, str]  # qid -> its question's key ("": none)
    groups: dict[str, list[str]]  # key -> the qids asking it, in file order
    twice: set[str]  # the keys asked more than once

    @classmethod
    def of(cls, qrels: Qrels) -> _Asked:
        keys = {qid: _key(q) for qid, q in qrels.queries.items()}
        groups: dict[str, list[str]] = {}
        for qid, key in keys.items():
            if key:
                groups.setdefault(key, []).append(qid)
        return cls(qrels, keys, groups, {k for k, qids in groups.items() if len(qids) > 1})

    def edited(self, qrels: Qrels, qid: str) -> None:
        """Now ``qrels``: the same queries, of which ``qid`` may ask another question."""
        old, new = self.keys.get(qid, ""), _key(qrels.queries[qid])
        self.qrels = qrels
        if old == new:
            return
        self.keys[qid] = new
        if old:
            group = self.groups[old]
            group.remove(qid)
            if len(group) < 2:
                self.twice.discard(old)
            if not group:
                del self.groups[old]
        if new:
            group = self.groups.setdefault(new, [])
            at = qrels.queries[qid].span.start
            i = next((i for i, q in enumerate(group) if qrels.queries[q].span.start > at), None)
            group.insert(len(group) if i is None else i, qid)
            if len(group) > 1:
                self.twice.add(new)


_LAST: list[_Asked] = []  # most recent first; the analysis thread's (or the CLI's) alone


def _key(query: Query) -> str:
    # (spans are read for duplicates only: see Query.shifted)
    return _normalized(query.question) if query.question else ""


def _asked(x: GoldenInputs) -> _Asked:
    """The golden set's questions by key: the last one's updated when ``x`` is its edit."""
    before = x.edit.before if x.edit is not None else None
    for i, asked in enumerate(_LAST):
        if asked.qrels is x.qrels:
            return asked
        if before is not None and asked.qrels is before and x.edit is not None:
            del _LAST[i]
            asked.edited(x.qrels, x.edit.qid)
            break
    else:
        asked = _Asked.of(x.qrels)
    _LAST.insert(0, asked)
    del _LAST[4:]
    return asked


def duplicate_questions(x: GoldenInputs) -> Iterable[Finding]:
    asked = _asked(x)
    queries = x.qrels.queries
    found = [f for key in asked.twice for f in _twice([queries[q] for q in asked.groups[key]])]
    found.sort(key=lambda f: f.span.start)  # in file order, as a pass over the file finds them
    return found


def _twice(queries: list[Query]) -> Iterator[Finding]:
    """The findings of the queries asking one question (in file order): each but the first."""
    first: Query | None = None
    for query in queries:
        if first is None:
            first = query
            continue
        # A question from a topics file has no place in this file: it is not compared.
        if first.question_span is None:
            if query.question_span is not None:
                first = query
            continue
        if query.question_span is None:
            continue
        yield finding(
            QR108,
            query.question_span,
            f"`{query.qid}` asks the same question as `{first.qid}`; the mean counts it "
            "twice. Merge them or reword one as users really ask it.",
            related=(Related(first.question_span, f"`{first.qid}` asks it here"),),
        )


CHECK = GoldenCheck(codes=(QR108,), run=duplicate_questions, after_queries=True)
