"""The report command over stdio (issue 17): the first line's report lens writes the golden set's
report into the user's cache (never the workspace) and asks the editor to open it outside
(window/showDocument, external); with `inline` the page comes back as the answer, for an editor
that shows it itself (the VS Code extension's webview)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, open_doc, until_lenses

GOLDEN = "support.qrels.yaml"


@pytest.mark.asyncio
async def test_the_report_lens_writes_and_opens_the_report(
    client: LanguageClient, ws: Workspace
) -> None:
    before = {p: p.stat().st_mtime_ns for p in ws.root.rglob("*")}
    uri = await open_doc(client, ws, GOLDEN)

    def report(lenses: list[types.CodeLens]) -> types.CodeLens | None:
        return next(
            (x for x in lenses if x.command and x.command.title.startswith("report:")), None
        )

    lens = report(await until_lenses(client, uri, lambda found: report(found) is not None))
    assert lens is not None and lens.command is not None
    assert lens.range.start.line == 0 and lens.command.command == "qrels-lsp.report"
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lens.command.command, lens.command.arguments)
    )
    written = Path(result["path"])
    assert written.is_file() and not written.is_relative_to(ws.root)
    assert written.parent.name == "reports" and written.parent.parent.name == "qrels-lsp"
    page = written.read_text(encoding="utf-8")
    assert "<h1>Retrieval report: support.qrels.yaml</h1>" in page
    capabilities = client.capabilities.window if client.capabilities else None
    if capabilities and capabilities.show_document and capabilities.show_document.support:
        shown = client.shown_documents[-1]
        assert shown.uri == written.as_uri() and shown.external
    inline = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            "qrels-lsp.report", [{"path": str(ws.root / GOLDEN), "inline": True}]
        )
    )
    assert inline["html"] == page
    # nothing in the workspace was written
    assert {p: p.stat().st_mtime_ns for p in ws.root.rglob("*")} == before
