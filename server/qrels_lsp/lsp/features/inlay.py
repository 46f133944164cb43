"""textDocument/inlayHint: the editor layer's hints (``ide/inlay.py``) for the range asked."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..state import State


def register(server: LanguageServer, state: State) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(
        ls: LanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint]:
        from ...ide.inlay import hint_items

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return []
        if uri in session.judging:  # the pair being judged is hinted
            analysis = await session.decided.pooled(analysis)
        pos = session.positions(uri, analysis.text)
        return [
            types.InlayHint(position=pos.position(offset), label=label, padding_left=True)
            for offset, label in hint_items(
                analysis, pos.span(params.range), session.judging.get(uri)
            )
        ]
