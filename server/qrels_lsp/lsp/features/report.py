"""The report command (`qrels-lsp.report`, the first line's report lens): the golden set's HTML
report (``ide/report``), written to the user's cache folder and opened in a browser; with
``inline``, returned as text for an editor that shows it itself (the VS Code extension's
webview)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.lsp.server import LanguageServer

from ...core.base.escape import for_log
from ..commands import REPORT_COMMAND
from ..convert import uri_of
from ..state import State

if TYPE_CHECKING:
    from ...core.project.analysis import Analysis


def report_of(analysis: Analysis) -> str:
    """The report of a golden set's runs, as its lenses show them, once their comparison is
    made (numbers in, text out: on the reports thread, touching nothing of the project)."""
    from ...ide.report import build_report

    ctx = analysis.context
    assert ctx is not None
    return build_report(ctx, analysis.runs, analysis.base, analysis.comparisons, analysis.text)


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.command(REPORT_COMMAND)
    async def report(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any] | None:
        """Write the report and open it; ``inline``: return its HTML instead."""
        from ...core.model import Qrels
        from ...ide.report import write_report

        session, uri = state.session, uri_of(Path(str(args.get("path", ""))))
        analysis = await session.analysis_if_ours(uri)
        if analysis is None or analysis.context is None or not isinstance(analysis.model, Qrels):
            return None
        if not analysis.runs:
            client.inform("No runs to report on: list them under `runs:`.")
            return None
        if analysis.context.blind_judging:
            client.inform("Judging blind: the report, which shows what the runs say, is off.")
            return None
        compared = await session.decided.compared(analysis)
        html = await session.reporting(lambda: report_of(compared))
        if args.get("inline") is True:
            return {"html": html}
        try:
            target = await session.run(lambda: write_report(analysis.path, html))
        except OSError as exc:  # a symlink planted at the report's name, a full disk
            client.warn(f"The report could not be written: {exc.strerror or exc}")
            return None
        if not await client.show(target.as_uri(), external=True):
            client.inform(f"The report is written to {for_log(str(target))}: open it in a browser.")
        return {"path": str(target)}
