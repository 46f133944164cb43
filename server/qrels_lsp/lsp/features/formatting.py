"""textDocument/formatting and textDocument/rangeFormatting: the editor layer's edits
(``ide/formatting.py``) as LSP text edits in the client's position encoding.

Only the changed stretches are sent, so the editor keeps its cursor and folds elsewhere. A
file that cannot be formatted (a syntax error) gets no edit, never an error: the diagnostics
already say what is wrong with it. The editor's own options (tab size, spaces) do not apply:
YAML's indentation is the file's, and the formatter keeps it.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import path_of
from ..state import State


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    async def edits(uri: str, within: types.Range | None) -> list[types.TextEdit] | None:
        from ...ide.formatting import reformatted

        session, path, opened = state.session, path_of(uri), client.open_document(uri)
        if path is None or opened is None or not session.is_ours(uri):
            return None
        text = opened[0]
        pos = session.positions(uri, text)
        span = pos.span(within) if within is not None else None
        config = session.config  # read on the loop, which owns the session
        done = await session.run(lambda: reformatted(path, text, config, span))
        if done is None or done.problem is not None:
            return None
        return [types.TextEdit(range=pos.range(e.span), new_text=e.new_text) for e in done.edits]

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    async def formatting(
        ls: LanguageServer, params: types.DocumentFormattingParams
    ) -> list[types.TextEdit] | None:
        return await edits(params.text_document.uri, None)

    @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
    async def range_formatting(
        ls: LanguageServer, params: types.DocumentRangeFormattingParams
    ) -> list[types.TextEdit] | None:
        return await edits(params.text_document.uri, params.range)
