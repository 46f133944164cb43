"""textDocument/foldingRange: the editor layer's folds (``ide/folding.py``) as line ranges, sent
as JSON bytes (a 10,000-question golden set has 20,000 folds, asked for after every edit)."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import RawJSON
from ..state import State


def register(server: LanguageServer, state: State) -> None:
    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding_range(
        ls: LanguageServer, params: types.FoldingRangeParams
    ) -> list[types.FoldingRange] | None:
        from ...ide.folding import folds

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        line = pos.lines.line_of

        def ranges() -> bytes:
            out, seen = [], set()
            for fold in folds(analysis.model, analysis.text):
                first, last = line(fold.span.start), line(fold.span.end)
                if last > first and (first, last) not in seen:
                    seen.add((first, last))
                    out.append({"startLine": first, "endLine": last, "kind": fold.kind})
            return json.dumps(out, separators=(",", ":")).encode()

        return RawJSON(await session.run(ranges))  # type: ignore[return-value]
