"""textDocument/selectionRange: the editor layer's nested spans (``ide/selection.py``) as a
chain of selection ranges, one per position asked."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..state import State


def register(server: LanguageServer, state: State) -> None:
    @server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
    async def selection_range(
        ls: LanguageServer, params: types.SelectionRangeParams
    ) -> list[types.SelectionRange] | None:
        from ...ide.selection import selection

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        offsets = [pos.offset(p) for p in params.positions]
        model, text = analysis.model, analysis.text
        chains = await session.run(lambda: [selection(model, text, o) for o in offsets])
        out = []
        for chain in chains:
            parent: types.SelectionRange | None = None
            for span in reversed(chain):  # outermost first: each range's parent holds it
                parent = types.SelectionRange(range=pos.range(span), parent=parent)
            assert parent is not None  # a chain always ends with the whole file
            out.append(parent)
        return out
