"""Code lenses: recall@k and MRR above each question, the means on the first line.

Every response is complete on its own (titles and commands filled in, no resolve step): Neovim
shows what the codeLens response holds and does not honour refresh requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..commands import COMPARE_COMMAND, EXPLAIN_COMMAND, HISTORY_COMMAND
from ..convert import RawJSON, uri_of
from ..state import State

if TYPE_CHECKING:
    from collections.abc import Callable

    from ...core.project.analysis import Analysis
    from ...core.project.project import Project
    from ..encoders import LensEncoder

COMPARE_WAIT_S = 1.0
"""How long a lens request waits for a golden set's first comparison (once: the next requests
while it is being made wait ``STALE_WAIT_S``)."""
STALE_WAIT_S = 0.03
"""How long it waits for a comparison brought up to date after an edit (started as the edit's
diagnostics went out: it takes milliseconds, and is usually made), before showing the last one
marked as being updated; the lenses are refreshed when it is made."""


def register(server: LanguageServer, state: State) -> None:
    client = state.client
    encoders: dict[str, LensEncoder] = {}  # per open document: its last response, megabytes
    state.on_close.append(lambda uri: encoders.pop(uri, None))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: LanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        from ..encoders import LensEncoder

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return []
        # A comparison not made in time is shown as being made (or the last one, as being
        # updated); the lenses are refreshed then. A client that cannot be asked to refresh
        # them (Neovim) would show that until its next edit: it waits for the comparison.
        if session.client.supports("workspace.code_lens.refresh_support"):
            analysis = await session.decided.compared(analysis, COMPARE_WAIT_S, STALE_WAIT_S)
        else:
            analysis = await session.decided.compared(analysis)
        if analysis.context is not None:
            analysis = await session.decided.shown(analysis)
        pos = session.positions(uri, analysis.text)
        path = str(analysis.path)
        encoder = encoders.get(uri)
        if encoder is None or encoder.path != path:
            encoder = encoders[uri] = LensEncoder(path)
        return RawJSON(encoder.encode(pos, analysis), encoder.sent)  # type: ignore[return-value]

    # pygls reads a command handler's annotations when it is called, to convert the arguments
    # (a dict here: anything else is answered with InvalidParams).
    @server.command(EXPLAIN_COMMAND)
    async def explain(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What a lens's numbers are made of: the same table as the hover, as a message."""
        from ...ide.lenses import explanation

        uri = uri_of(Path(str(args.get("path", ""))))
        qid = str(args.get("qid", ""))
        analysis = await state.session.analysis_if_ours(uri)
        text = explanation(analysis, qid) if analysis is not None else ""
        if text:
            client.inform(text)
        return text

    @server.command(COMPARE_COMMAND)
    async def compare(ls: LanguageServer, args: dict[str, Any]) -> str:
        """The whole comparison of a golden set's runs (or of one run file), as a message."""
        from ...ide.lenses import comparison_report

        return await _message(state, args, comparison_report, compared=True)

    @server.command(HISTORY_COMMAND)
    async def history(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What changed in a golden set since the base revision, as a message."""
        from ...ide.lenses import history_report

        return await _message(state, args, lambda _project, a: history_report(a), diffed=True)


async def _message(
    state: State,
    args: dict[str, Any],
    report: Callable[[Project, Analysis], str],
    *,
    compared: bool = False,
    diffed: bool = False,
) -> str:
    """A report on the file a lens's arguments name, made on the analysis thread (once its
    comparison is made, with ``compared``; its history, with ``diffed``) and shown as a
    message."""
    session, uri = state.session, uri_of(Path(str(args.get("path", ""))))
    found = await session.analysis_if_ours(uri)
    if found is None:
        return ""
    analysis = found
    if compared:
        analysis = await session.decided.compared(analysis)
    if diffed:
        analysis = await session.decided.diffed(analysis)
    project = session.project
    text = await session.run(lambda: report(project, analysis))
    if text:
        state.client.inform(text)
    return text
