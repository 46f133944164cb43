"""textDocument/documentLink: the editor layer's links (``ide/links.py``): the corpus, runs and
golden set a file names, and a folder corpus's document ids, each to its file."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import uri_of
from ..state import State


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(
        types.TEXT_DOCUMENT_DOCUMENT_LINK, types.DocumentLinkOptions(resolve_provider=False)
    )
    async def document_link(
        ls: LanguageServer, params: types.DocumentLinkParams
    ) -> list[types.DocumentLink] | None:
        from ...ide.links import links

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        found = await session.run(lambda: links(analysis))
        tips = bool(client.supports("text_document.document_link.tooltip_support"))
        return [
            types.DocumentLink(
                range=pos.range(k.span),
                target=uri_of(k.target),
                tooltip=k.tooltip if tips else None,
            )
            for k in found
        ]
