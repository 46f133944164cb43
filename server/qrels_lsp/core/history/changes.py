"""What changed between two versions of a golden set (docs/history.md, "What changed").

Questions are compared by id. An id only in the new version whose question text and judgments
equal those of an id only in the old one is a **rename** of it, not a removal and an addition
(the first such pair in file order; a question judged nothing is never taken for a rename: any
two would match). A question whose text changed is **reworded**; one that became (or stopped
being) unanswerable is listed too. Judgments are compared on the questions both versions have
(a renamed question's are equal by definition): added, removed, **regraded**. A new question's
judgments are part of the question added, not listed again.

:func:`golden_changes` compares two parses; :func:`changes_after_edit` brings a comparison up to
date after an edit of one entry of the new version (the editor's keystroke), which never adds,
removes or renames a question of the file: only that question is compared again (and the
renames, when it was one side of one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..model import Qrels, Query

Judgment = tuple[str, str, int]  # question, document, grade
Regrade = tuple[str, str, int, int]  # question, document, old grade, new grade
Tally = tuple[int, int, int, int, int]  # reworded, (un)answerable, added, removed, regraded


@dataclass(frozen=True, slots=True)
class QuestionChange:
    """How one question present in both versions changed (only the changed ones are kept)."""

    reworded: bool = False
    unanswerable: bool = False  # its `unanswerable:` flag flipped
    added: tuple[Judgment, ...] = ()
    removed: tuple[Judgment, ...] = ()
    regraded: tuple[Regrade, ...] = ()

    def __bool__(self) -> bool:
        return bool(
            self.reworded or self.unanswerable or self.added or self.removed or self.regraded
        )


@dataclass(frozen=True, slots=True)
class GoldenChanges:
    """Two versions of a golden set compared: ids in each version's file order."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()  # (old id, new id)
    changed: Mapping[str, QuestionChange] = field(default_factory=dict)  # new id -> change
    settings: Mapping[str, tuple[object, object]] = field(default_factory=dict)  # old, new
    tally: Tally | None = field(default=None, compare=False)  # counts(), when made

    @property
    def reworded(self) -> list[str]:
        return [q for q, c in self.changed.items() if c.reworded]

    @property
    def unanswerable(self) -> list[str]:
        return [q for q, c in self.changed.items() if c.unanswerable]

    def counts(self) -> Tally:
        """How many questions were reworded and flipped (un)answerable, and how many judgments
        were added, removed and regraded: a lens's words, kept (an edit updates them)."""
        return self.tally if self.tally is not None else _tally(self.changed.values())

    def judgments(self) -> tuple[list[Judgment], list[Judgment], list[Regrade]]:
        """Every judgment added, removed and regraded, question by question."""
        added: list[Judgment] = []
        removed: list[Judgment] = []
        regraded: list[Regrade] = []
        for change in self.changed.values():
            added.extend(change.added)
            removed.extend(change.removed)
            regraded.extend(change.regraded)
        return added, removed, regraded

    def old_id(self, qid: str) -> str:
        """The id the old version gives question ``qid`` of the new one."""
        for old, new in self.renamed:
            if new == qid:
                return old
        return qid

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.renamed or self.changed or self.settings)


def _tally(changes: Iterable[QuestionChange], sign: int = 1) -> Tally:
    t = [0, 0, 0, 0, 0]
    for c in changes:
        t[0] += sign * c.reworded
        t[1] += sign * c.unanswerable
        t[2] += sign * len(c.added)
        t[3] += sign * len(c.removed)
        t[4] += sign * len(c.regraded)
    return t[0], t[1], t[2], t[3], t[4]


def _plus(a: Tally, b: Tally) -> Tally:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4]


def question_change(old: Query, new: Query) -> QuestionChange:
    """How one question changed between two versions of it (false when it did not)."""
    before, after = old.grades(), new.grades()
    added = tuple((new.qid, d, g) for d, g in after.items() if d not in before)
    removed = tuple((new.qid, d, g) for d, g in before.items() if d not in after)
    regraded = tuple(
        (new.qid, d, before[d], g) for d, g in after.items() if d in before and before[d] != g
    )
    return QuestionChange(
        reworded=(old.question or "") != (new.question or ""),
        unanswerable=old.unanswerable != new.unanswerable,
        added=added,
        removed=removed,
        regraded=regraded,
    )


def _signature(query: Query) -> tuple[str, tuple[tuple[str, int], ...], bool] | None:
    grades = query.grades()
    if not grades:
        return None
    return (query.question or "", tuple(sorted(grades.items())), query.unanswerable)


def _renames(
    old: Mapping[str, Query], new: Mapping[str, Query], removed: list[str], added: list[str]
) -> list[tuple[str, str]]:
    """Each added id paired with the first removed id asking the same question with the same
    judgments (each removed id once)."""
    waiting: dict[object, list[str]] = {}
    for qid in removed:
        sig = _signature(old[qid])
        if sig is not None:
            waiting.setdefault(sig, []).append(qid)
    pairs = []
    for qid in added:
        sig = _signature(new[qid])
        found = waiting.get(sig) if sig is not None else None
        if found:
            pairs.append((found.pop(0), qid))
    return pairs


def golden_changes(
    old: Qrels, new: Qrels, settings: Mapping[str, tuple[object, object]] | None = None
) -> GoldenChanges:
    """``new`` compared with ``old``; ``settings``: what scoring reads of each (``k``, ...),
    the pairs that differ are kept."""
    before, after = old.queries, new.queries
    removed = [q for q in before if q not in after]
    added = [q for q in after if q not in before]
    renamed = _renames(before, after, removed, added) if removed and added else []
    gone = {o for o, _ in renamed}
    came = {n for _, n in renamed}
    changed = {}
    for qid, query in after.items():
        if qid in before:
            change = question_change(before[qid], query)
            if change:
                changed[qid] = change
    return GoldenChanges(
        added=tuple(q for q in added if q not in came),
        removed=tuple(q for q in removed if q not in gone),
        renamed=tuple(renamed),
        changed=changed,
        settings={k: v for k, v in (settings or {}).items() if v[0] != v[1]},
        tally=_tally(changed.values()),
    )


def changes_after_edit(
    last: GoldenChanges,
    old: Qrels,
    new: Qrels,
    qid: str,
    settings: Mapping[str, tuple[object, object]],
) -> GoldenChanges:
    """``last`` (``old`` against the version before an edit of question ``qid``'s entry) made
    true of ``new``: the question compared again, or, when it is new (added or renamed), the
    renames found again among the ids only one version has (its judgments or text may now match
    a removed question's, or no longer)."""
    kept = {k: v for k, v in settings.items() if v[0] != v[1]}
    if qid in old.queries:
        changed = dict(last.changed)
        change = question_change(old.queries[qid], new.queries[qid])
        was = changed.get(qid)
        if change:
            changed[qid] = change  # (in its place, when it was there)
        elif was is not None:
            del changed[qid]
        tally = _plus(last.counts(), _tally([was] if was else [], -1))
        tally = _plus(tally, _tally([change] if change else []))
        return replace(last, changed=changed, settings=kept, tally=tally)
    removed = _in_order(old.queries, [*last.removed, *(o for o, _ in last.renamed)])
    added = _in_order(new.queries, [*last.added, *(n for _, n in last.renamed)])
    renamed = _renames(old.queries, new.queries, removed, added) if removed and added else []
    gone, came = {o for o, _ in renamed}, {n for _, n in renamed}
    return replace(
        last,
        added=tuple(q for q in added if q not in came),
        removed=tuple(q for q in removed if q not in gone),
        renamed=tuple(renamed),
        settings=kept,
    )


def _in_order(queries: Mapping[str, Query], ids: list[str]) -> list[str]:
    """``ids`` in the order of the file ``queries`` was read from."""
    if len(ids) < 2:
        return ids
    place = {q: i for i, q in enumerate(queries)}
    return sorted(ids, key=place.__getitem__)
