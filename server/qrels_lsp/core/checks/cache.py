"""Per-query findings kept between analyses, so an edit re-checks the query it touched.

A query's findings depend on its entry's text (from its key's line to the end of its last line)
and on the inputs the registered per-query checks declare they read (:data:`~.check.Input`): the
cache is keyed on exactly those, so a check that reads something new must declare it and the
cache follows. Cached findings are moved with their entry; another setting starts afresh. Object
inputs (the corpus) are held and compared by identity, so that a reloaded corpus, a new object,
is never mistaken for the old one.

The last result is kept per query too: after an edit of one entry (an :class:`EntryEdit` from the
incremental re-parse), the others' findings are the last ones, moved by the edit where they lie
after it, with no pass over every entry's text.
"""

from __future__ import annotations

from ..base.findings import Finding, shift_finding
from ..model import EntryEdit, Qrels

Key = tuple[str, str]  # query id, entry text


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


class CheckCache:
    def __init__(self) -> None:
        self._entries: dict[Key, tuple[int, list[Finding]]] = {}
        self._setting: tuple[object, ...] | None = None
        self._last: tuple[Qrels, dict[str, list[Finding]], frozenset[str]] | None = None
        self._places: dict[str, int] = {}  # each query's place in the last whole check's order

    def use(self, setting: tuple[object, ...]) -> None:
        """The values of the declared inputs for the next check; others empty the cache."""
        if self._setting is None or not _same(self._setting, setting):
            self._entries, self._last = {}, None
            self._setting = setting

    def get(self, key: Key, start: int) -> list[Finding] | None:
        hit = self._entries.get(key)
        if hit is None:
            return None
        old_start, found = hit
        return found if old_start == start else [shift_finding(f, start - old_start) for f in found]

    def put(self, key: Key, start: int, found: list[Finding]) -> None:
        self._entries[key] = (start, found)

    def keep_only(self, keys: set[Key]) -> None:
        for key in [k for k in self._entries if k not in keys]:
            del self._entries[key]

    def remember(
        self, qrels: Qrels, found: dict[str, list[Finding]], flagged: frozenset[str] | None = None
    ) -> None:
        """Keep the per-query findings of ``qrels``; ``flagged``: the queries that have any,
        when the caller knows (else found by a pass)."""
        if flagged is None:
            flagged = frozenset(qid for qid, f in found.items() if f)
            self._places = {qid: i for i, qid in enumerate(found)}
        self._last = (qrels, found, flagged)

    def flagged_findings(self) -> list[Finding] | None:
        """The last per-query findings, from the queries that have any only, in the order of the
        last whole check (an edit of one entry keeps every query's place); None when they are
        too many to be worth sorting: walking a hundred thousand findings lists scattered over
        a large heap takes 15-20 ms."""
        if self._last is None:
            return None
        _qrels, found, flagged = self._last
        places = self._places
        if len(flagged) > len(places) // 8 or any(q not in places for q in flagged):
            return None
        return [f for qid in sorted(flagged, key=places.__getitem__) for f in found[qid]]

    def last_for(self, edit: EntryEdit) -> tuple[dict[str, list[Finding]], frozenset[str]] | None:
        """The last per-query findings and the queries that have any, if they were computed for
        the model ``edit`` changed. Few queries have findings: after an edit only theirs move,
        with no pass over a hundred thousand entries."""
        last = self._last
        return (last[1], last[2]) if last is not None and last[0] is edit.before else None
