"""textDocument/semanticTokens/full and /range: the editor layer's tokens (``ide/tokens.py``),
relative-encoded in the client's position encoding and sent as JSON bytes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ...ide.token_types import TOKEN_TYPES
from ..convert import Positions, RawJSON
from ..state import State

if TYPE_CHECKING:
    from ...core.base.text import Span
    from ...ide.tokens import Token

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=[])
_INDEX = {name: i for i, name in enumerate(TOKEN_TYPES)}


def encode(found: list[Token], pos: Positions) -> bytes:
    """``{"data": [...]}``: five integers a token, each position relative to the one before."""
    data: list[int] = []
    position, enc = pos.lines.position, pos.encoding
    last_line = last_col = 0
    for t in found:
        line, col = position(t.span.start, enc)
        end_line, end_col = position(t.span.end, enc)
        if end_line != line:
            continue
        delta = line - last_line
        data += (delta, col - last_col if delta == 0 else col, end_col - col, _INDEX[t.type], 0)
        last_line, last_col = line, col
    return json.dumps({"data": data}, separators=(",", ":")).encode()


def register(server: LanguageServer, state: State) -> None:
    async def answer(uri: str, rng: types.Range | None) -> RawJSON | None:
        from ...ide.tokens import tokens

        session = state.session
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        window: Span | None = pos.span(rng) if rng is not None else None
        return RawJSON(await session.run(lambda: encode(tokens(analysis, window), pos)))

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    async def semantic_tokens_full(
        ls: LanguageServer, params: types.SemanticTokensParams
    ) -> types.SemanticTokens | None:
        return await answer(params.text_document.uri, None)  # type: ignore[return-value]

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
    async def semantic_tokens_range(
        ls: LanguageServer, params: types.SemanticTokensRangeParams
    ) -> types.SemanticTokens | None:
        return await answer(params.text_document.uri, params.range)  # type: ignore[return-value]
