"""The history lens's command: what changed in a golden set since the ``diff_base`` revision and
why each number moved (``ide/lenses.py``'s ``history_report``: the table ``qrels-lsp diff
--format markdown`` prints), as a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer

from ..commands import HISTORY_COMMAND
from ..convert import uri_of
from ..state import State


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.command(HISTORY_COMMAND)
    async def history(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What changed in a golden set since the base revision, as a message."""
        from ...ide.lenses import history_report

        session, uri = state.session, uri_of(Path(str(args.get("path", ""))))
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return ""
        project = session.project
        text = await session.run(lambda: history_report(project, analysis))
        if text:
            client.inform(text)
        return text
