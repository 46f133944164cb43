"""Navigation: go to a document in the corpus or a query's golden-set entry, find every place a
document or query is cited, the outline of a file and the queries of every golden set.

What is under the cursor and where else it is cited is answered by the editor layer
(``ide/locate.py``, ``ide/navigation.py``); this module turns its places into locations in the
client's position encoding, and keeps the outline of a golden set as patched JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ...core.base.text import Span
from ...core.model import Qrels, Query
from ...core.project.analysis import Analysis
from ...ide.locate import Target, locate
from ...ide.navigation import Place, definition, references, workspace_symbols
from ...ide.outline import Symbol, judged_count, lists_documents, outline, query_detail
from ..convert import Positions, RawJSON, uri_of
from ..pieces import LINE, Last, PieceCache, Placed, compact_json
from ..session import Session
from ..state import State

_KIND = {"query": types.SymbolKind.Key, "document": types.SymbolKind.File}


def symbol_of(s: Symbol, pos: Positions) -> types.DocumentSymbol:
    """An outline entry of the editor layer in the client's position encoding."""
    return types.DocumentSymbol(
        name=s.name,
        detail=s.detail,
        kind=_KIND[s.kind],
        range=pos.range(s.block),
        selection_range=pos.range(s.span),
        children=[symbol_of(c, pos) for c in s.children] if s.children is not None else None,
    )


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


def _flatten(
    symbols: list[types.DocumentSymbol], uri: str, container: str | None = None
) -> list[types.SymbolInformation]:
    out = []
    for s in symbols:
        out.append(
            types.SymbolInformation(
                name=s.name,
                kind=s.kind,
                location=types.Location(uri=uri, range=s.range),
                container_name=container,
            )
        )
        out += _flatten(list(s.children or []), uri, s.name)
    return out


def location(session: Session, place: Place) -> types.Location:
    """A place of the editor layer in the client's position encoding."""
    uri = uri_of(place.path)
    if place.line is None:
        return types.Location(uri=uri, range=session.positions(uri, place.text).range(place.span))
    pos = Positions(place.text, session.client.encoding)  # one line of a corpus file
    start, end = pos.position(place.span.start), pos.position(place.span.end)
    start.line = end.line = place.line
    return types.Location(uri=uri, range=types.Range(start=start, end=end))


def register(server: LanguageServer, state: State) -> None:
    session, client = state.session, state.client
    outlines: dict[str, OutlineEncoder] = {}  # per open document: its last outline
    session.on_close.append(lambda uri: outlines.pop(uri, None))

    def open_text(path: Path) -> str | None:
        opened = client.open_document(uri_of(path))
        return opened[0] if opened is not None else None

    async def target_at(uri: str, position: types.Position) -> tuple[Analysis, Target] | None:
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        target = locate(analysis.model, pos.offset(position), analysis.text)
        return (analysis, target) if target is not None else None

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def goto_definition(
        ls: LanguageServer, params: types.DefinitionParams
    ) -> list[types.Location] | None:
        found = await target_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        project = session.project
        places = await session.run(lambda: definition(project, analysis, target, open_text))
        return [location(session, p) for p in places] or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(
        ls: LanguageServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        found = await target_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        project, include = session.project, params.context.include_declaration
        places = await session.run(
            lambda: references(project, analysis, target, include, open_text)
        )
        return [location(session, p) for p in places] or None

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: LanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        uri = params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        hierarchical = client.supports(
            "text_document.document_symbol.hierarchical_document_symbol_support"
        )
        if hierarchical and isinstance(analysis.model, Qrels):
            encoder = outlines.setdefault(uri, OutlineEncoder())
            return RawJSON(encoder.encode(pos, analysis), encoder.sent)  # type: ignore[return-value]
        symbols = [symbol_of(s, pos) for s in outline(analysis.model)]
        return symbols if hierarchical else _flatten(symbols, uri)

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: LanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        project = session.project
        found = await session.run(lambda: workspace_symbols(project, params.query))
        return [
            types.WorkspaceSymbol(
                name=s.qid,
                kind=types.SymbolKind.Key,
                location=location(session, s.place),
                container_name=s.golden.name,
            )
            for s in found
        ]
