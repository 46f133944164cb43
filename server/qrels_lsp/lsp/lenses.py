"""Code lenses: recall@k and MRR above each question, the means on the first line.

Every response is complete on its own (titles and commands filled in, no resolve step): Neovim
shows what the codeLens response holds and does not honour refresh requests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..core.model import Qrels, Run
from ..core.present import (
    header_titles,
    lens_values,
    query_hover,
    query_lens_titles,
    run_header_title,
)
from ..core.project import Analysis
from ..core.text import Span
from .convert import Prerendered, range_json

if TYPE_CHECKING:
    from .server import QrelsServer

EXPLAIN_COMMAND = "qrels-lsp.explainQuery"


def lens_items(analysis: Analysis) -> list[tuple[Span, str, dict[str, Any] | None]]:
    """(where, title, explain-arguments) for every lens of a file, in core terms."""
    ctx = analysis.context
    if ctx is None:
        return []
    out: list[tuple[Span, str, dict[str, Any] | None]] = []
    top = Span(0, 0)
    path = str(analysis.path)
    if isinstance(analysis.model, Qrels):
        out += [(top, title, None) for title in header_titles(ctx, analysis.runs)]
        for query in analysis.model.queries.values():
            for title in query_lens_titles(ctx, query, analysis.runs):
                out.append((query.span, title, {"path": path, "qid": query.qid}))
        return out
    if isinstance(analysis.model, Run) and analysis.runs:
        result = analysis.runs[0]
        out.append((top, run_header_title(ctx, result), None))
        for qid, ranking in analysis.model.rankings.items():
            if qid not in ctx.qrels.queries:
                title = "not in the golden set · ignored"
            elif qid in ctx.unanswerable:
                title = "unanswerable · excluded from the means"
            else:
                title = lens_values(result.evaluation.per_query.get(qid, {}), ctx.k)
            out.append((ranking.span, title, {"path": path, "qid": qid}))
    return out


def register(server: QrelsServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: QrelsServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return []
        pos = ls.session.positions(uri, analysis.text)
        # Plain JSON-ready dicts, not lsprotocol objects: a 10,000-question golden set has
        # 10,000+ lenses per response, and building and unstructuring that many attrs objects
        # costs more than the analysis. The protocol sends a Prerendered list as it is.
        lenses = Prerendered()
        for span, title, args in lens_items(analysis):
            command: dict[str, Any] = {"title": title, "command": EXPLAIN_COMMAND if args else ""}
            if args:
                command["arguments"] = [args]
            lenses.append({"range": range_json(pos, span), "command": command})
        return lenses  # type: ignore[return-value]

    # pygls evaluates a command handler's annotations at call time (to convert the arguments),
    # in this module's globals: `QrelsServer` is imported for type checking only, so annotating
    # `ls` with it made every executeCommand fail with InvalidParams. The closure's `server` is
    # the same object, typed.
    @server.command(EXPLAIN_COMMAND)
    async def explain(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What a lens's numbers are made of: the same table as the hover, as a message."""
        from pathlib import Path

        from .convert import uri_of

        path = Path(str(args.get("path", "")))
        qid = str(args.get("qid", ""))
        analysis = await server.session.analysis(uri_of(path))
        if analysis is None or analysis.context is None:
            return ""
        ctx = analysis.context
        query = ctx.qrels.queries.get(qid)
        if query is None:
            return ""
        runs = [(r.name, r.rankings.get(qid)) for r in analysis.runs]
        text = query_hover(ctx, query, runs)
        server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=text)
        )
        return text
