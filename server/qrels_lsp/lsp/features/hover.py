"""textDocument/hover: the editor layer's hover text (``ide/hover.py``) as markdown, or plain
text for clients that want it, over the range of what the cursor is on."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..state import State


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: LanguageServer, params: types.HoverParams) -> types.Hover | None:
        from ...ide.hover import hover_target, hover_text

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        target = hover_target(analysis, pos.offset(params.position))
        if target is None:
            return None
        # (its comparison made on its own thread, its queue and history on the analysis one)
        analysis = await session.decided.shown(await session.decided.compared(analysis))
        project, judging = session.project, session.judging.get(uri)
        text = await session.run(lambda: hover_text(project, analysis, target, judging))
        if not text:
            return None
        formats = client.supports("text_document.hover.content_format", None) or []
        markdown = not formats or types.MarkupKind.Markdown in formats
        kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
        return types.Hover(
            contents=types.MarkupContent(kind=kind, value=text), range=pos.range(target.span)
        )
