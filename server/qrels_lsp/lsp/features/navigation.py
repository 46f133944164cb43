"""Navigation: go to a document in the corpus or a query's golden-set entry, find every place a
document or query is cited, the outline of a file and the queries of every golden set.

What is under the cursor and where else it is cited is answered by the editor layer
(``ide/locate.py``, ``ide/navigation.py``); this module turns its places into locations in the
client's position encoding, and keeps the outline of a golden set as patched JSON
(``encoders.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import Positions, RawJSON, uri_of
from ..state import State

if TYPE_CHECKING:
    from ...core.project.analysis import Analysis
    from ...ide.locate import Target
    from ...ide.navigation import Place
    from ...ide.outline import Symbol
    from ..encoders import OutlineEncoder
    from ..session import Session

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
    _register_places(server, state)
    _register_symbols(server, state)


def _register_places(server: LanguageServer, state: State) -> None:
    """Definition and references: where an id is written, judged and retrieved."""
    client = state.client

    def open_text(path: Path) -> str | None:
        opened = client.open_document(uri_of(path))
        return opened[0] if opened is not None else None

    async def target_at(uri: str, position: types.Position) -> tuple[Analysis, Target] | None:
        from ...ide.locate import locate

        session = state.session
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
        from ...ide.navigation import definition

        found = await target_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        session = state.session
        project = session.project
        places = await session.run(lambda: definition(project, analysis, target, open_text))
        return [location(session, p) for p in places] or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(
        ls: LanguageServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        from ...ide.navigation import references

        found = await target_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        session = state.session
        project, include = session.project, params.context.include_declaration
        places = await session.run(
            lambda: references(project, analysis, target, include, open_text)
        )
        return [location(session, p) for p in places] or None


def _register_symbols(server: LanguageServer, state: State) -> None:
    """The outline of a file and the workspace's symbols."""
    client = state.client
    outlines: dict[str, OutlineEncoder] = {}  # per open document: its last outline
    state.on_close.append(lambda uri: outlines.pop(uri, None))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: LanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        from ...core.model import Qrels
        from ...ide.outline import outline
        from ..encoders import OutlineEncoder

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        hierarchical = client.supports(
            "text_document.document_symbol.hierarchical_document_symbol_support"
        )
        if hierarchical and isinstance(analysis.model, Qrels):
            encoder = outlines.get(uri) or outlines.setdefault(uri, OutlineEncoder())
            return RawJSON(encoder.encode(pos, analysis), encoder.sent)  # type: ignore[return-value]
        symbols = [symbol_of(s, pos) for s in outline(analysis.model)]
        return symbols if hierarchical else _flatten(symbols, uri)

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: LanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        from ...ide.navigation import workspace_symbols

        session = state.session
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
