"""The lens and outline responses of a golden set as JSON, each question's piece encoded once
and the last response patched after an edit of one entry (the machinery is :mod:`.pieces`).
The handlers (``features/lenses.py``, ``features/navigation.py``) make an encoder per open
document when it is first asked for."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..core.base.text import Span
from ..core.model import Qrels, Query
from ..core.project.analysis import Analysis
from ..core.project.results import QrelsContext
from ..ide.lenses import LensGroup, lens_groups, question_titles, top_groups
from ..ide.outline import judged_count, lists_documents, query_detail
from .commands import COMMANDS
from .convert import Positions
from .pieces import LINE, Last, PieceCache, Placed, compact_json

JOIN = " | "
"""A question's lenses (a run each) go out as one lens, its titles joined as VS Code, Neovim and
Emacs join the lenses of a line: the same text on screen and one command, at a fraction of
the bytes (each lens repeats its range and command: 300 bytes; 55 MB a response at 100,000
questions and two runs, before)."""


class LensEncoder:
    """One document's lenses as JSON, each place's lenses encoded once and the last response
    patched after an edit of one entry (see :mod:`.pieces`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._pieces = PieceCache()

    def sent(self, data: bytes | bytearray) -> None:
        """A response of this encoder was written: its bytes may be patched in place again."""
        self._pieces.sent(data)

    def encode(self, pos: Positions, analysis: Analysis) -> bytearray:
        """The lenses as a JSON array (UTF-8)."""
        ctx = analysis.context
        if isinstance(analysis.model, Qrels) and ctx is not None:
            last = self._pieces.last(pos, analysis)
            before = last.analysis.context if last is not None else None
            if last is not None and before is not None and before.k == ctx.k:
                changes = self._changes(pos, analysis, ctx, last)
                patched = (
                    None
                    if changes is None
                    else self._pieces.patch(pos, analysis, last, changes, extra=last.extra)
                )
                if patched is not None:
                    return patched
        parts: list[Placed] = []
        at: dict[str, int] = {}
        tops = 0
        for group in lens_groups(analysis):
            if not group.titles:
                continue
            if group.qid is not None:
                at[group.qid] = len(parts)
            else:
                tops += 1
            parts.append(self._part(pos, group))
        out = self._pieces.answer(pos, analysis, parts, at, extra=tops)
        if not isinstance(analysis.model, Qrels):
            self._pieces.forget()  # a run's lenses are made whole each time
        return out

    def _changes(
        self, pos: Positions, analysis: Analysis, ctx: QrelsContext, last: Last
    ) -> dict[int, Placed] | None:
        """The first line's and the changed questions' pieces; None when a question gained or
        lost its lenses, or the first line a lens (then the pieces are not the same ones)."""
        assert isinstance(analysis.model, Qrels)
        queries = analysis.model.queries
        tops = [g for g in top_groups(analysis) if g.titles]
        if len(tops) != last.extra or _lineage(analysis) != _lineage(last.analysis):
            return None  # (another base revision: every question's history lens may differ)
        changes = {i: self._part(pos, group) for i, group in enumerate(tops)}
        edited = [queries[qid] for qid in last.changed if qid in queries]  # others: run only
        for query, titles in question_titles(analysis, edited):
            i = last.at.get(query.qid)
            if i is None and not titles:
                continue  # no lens before, none now (a golden set with no runs yet)
            if i is None or not titles:
                return None
            group = LensGroup(query.span, tuple(titles), query.qid, "explain")
            changes[i] = self._part(pos, group)
        return changes

    def _part(self, pos: Positions, group: LensGroup) -> Placed:
        position, enc = pos.lines.position, pos.encoding
        span = group.span
        (l1, c1), (l2, c2) = position(span.start, enc), position(span.end, enc)
        where = (c1, l2 - l1, c2)  # lines relative to the lens's own
        key = (where, group.titles, group.qid, group.action)
        return self._pieces.piece(key, l1, lambda: self._json(where, group))

    def _json(self, where: tuple[int, int, int], group: LensGroup) -> str:
        c1, lines, c2 = where
        start, end = {"line": LINE, "character": c1}, {"line": LINE + lines, "character": c2}
        rng = {"start": start, "end": end}
        # A question's lenses explain its numbers; the first line's show the comparison, and
        # its judging lens goes to the next pair to judge.
        qid, titles = group.qid, group.titles
        command: dict[str, Any] = {"command": COMMANDS[group.action]}
        command["arguments"] = [{"path": self.path, "qid": qid} if qid else {"path": self.path}]
        if qid is not None:
            titles = (JOIN.join(titles),)
        lenses = [{"range": rng, "command": {"title": t, **command}} for t in titles]
        return ",".join(compact_json(lens) for lens in lenses)


def _lineage(analysis: Analysis) -> tuple[int, tuple[tuple[str, str], ...]] | None:
    """Which history the lenses of ``analysis`` show (None: none). One made after an edit of
    one entry keeps its lineage and, unless the renames moved (an added question now asks what
    a removed one asked), only the edited questions' history lenses change."""
    history = analysis.history
    return (history.lineage, history.changes.renamed) if history is not None else None


class OutlineEncoder:
    """A golden set's outline as JSON, each question's symbol encoded once and the last response
    patched after an edit of one entry (see :mod:`.pieces`): editors ask for the outline after
    every keystroke, and ten thousand symbols made as lsprotocol objects took half a second."""

    def __init__(self) -> None:
        self._pieces = PieceCache()

    def sent(self, data: bytes | bytearray) -> None:
        """A response of this encoder was written: its bytes may be patched in place again."""
        self._pieces.sent(data)

    def encode(self, pos: Positions, analysis: Analysis) -> bytearray:
        model = analysis.model
        assert isinstance(model, Qrels)
        last = self._pieces.last(pos, analysis)
        changed = self._changes(pos, model, last) if last is not None else None
        if last is not None and changed is not None:
            patched = self._pieces.patch(pos, analysis, last, *changed)
            if patched is not None:
                return patched
        total = judged_count(model)
        children = lists_documents(total)
        at = {qid: i for i, qid in enumerate(model.queries)}
        parts = [self._symbol(pos, q, children) for q in model.queries.values()]
        return self._pieces.answer(pos, analysis, parts, at, total)

    def _changes(
        self, pos: Positions, model: Qrels, last: Last
    ) -> tuple[dict[int, Placed], int] | None:
        """The changed questions' symbols and the new count of documents; None when that count
        crosses the limit for listing them (then every symbol changes)."""
        before = last.analysis.model
        assert isinstance(before, Qrels) and isinstance(last.extra, int)
        edited = [model.queries[qid] for qid in last.changed if qid in model.queries]
        total = last.extra + sum(
            len(q.judgments) - len(before.queries[q.qid].judgments) for q in edited
        )
        children = lists_documents(total)
        if children != lists_documents(last.extra):
            return None
        return {last.at[q.qid]: self._symbol(pos, q, children) for q in edited}, total

    def _symbol(self, pos: Positions, q: Query, children: bool) -> Placed:
        position, enc = pos.lines.position, pos.encoding
        first = position(q.block.start, enc)[0]

        def where(span: Span) -> tuple[int, int, int, int]:  # lines relative to the entry's
            (l1, c1), (l2, c2) = position(span.start, enc), position(span.end, enc)
            return (l1 - first, c1, l2 - first, c2)

        docs = tuple((j.doc_id, j.grade, where(j.span)) for j in q.judgments) if children else None
        key = (q.qid, query_detail(q), where(q.block), where(q.span), docs)
        return self._pieces.piece(key, first, lambda: compact_json(_symbol_json(*key)))


def _range_json(where: tuple[int, int, int, int]) -> dict[str, Any]:
    l1, c1, l2, c2 = where
    start = {"line": LINE + l1, "character": c1}
    return {"start": start, "end": {"line": LINE + l2, "character": c2}}


def _symbol_json(
    name: str,
    detail: str | None,
    block: tuple[int, int, int, int],
    span: tuple[int, int, int, int],
    docs: tuple[tuple[str, int, tuple[int, int, int, int]], ...] | None,
) -> dict[str, Any]:
    """A DocumentSymbol as lsprotocol writes it (no null fields) for one question."""
    out: dict[str, Any] = {"name": name}
    if detail is not None:
        out["detail"] = detail
    out |= {
        "kind": types.SymbolKind.Key.value,
        "range": _range_json(block),
        "selectionRange": _range_json(span),
    }
    if docs is not None:
        out["children"] = [
            {
                "name": doc_id,
                "detail": f"grade {grade}",
                "kind": types.SymbolKind.File.value,
                "range": _range_json(where),
                "selectionRange": _range_json(where),
            }
            for doc_id, grade, where in docs
        ]
    return out
