"""The editor's comparison on ordinary data that once never finished: every question's
precision@10 drops by 0.1 (equal up to rounding). The reports thread must come back with a
comparison, so the first line's lenses stop saying "comparing…" and its hover answers, with the
t-test and its power analysis shown as n/a (tests/test_degenerate_stats.py has the numbers)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from compare_data import looping_case
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, open_doc

GUARD = 120.0  # seconds: a failure guard for a comparison that never comes, not a speed claim


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    golden, _base, _head = looping_case(root)
    text = golden.read_text(encoding="utf-8")
    golden.write_text("runs: [base.trec, head.trec]\ncompare_to: base\n" + text, encoding="utf-8")
    return root


async def compared_header(client: LanguageClient, uri: str) -> list[str]:
    """The first line's lens titles once they hold a comparison: asked again after each
    `workspace/codeLens/refresh` the server sends when one is made."""
    refreshed = asyncio.Event()
    client.protocol.fm.features.pop(types.WORKSPACE_CODE_LENS_REFRESH, None)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _on_refresh(_client: LanguageClient, _params: None) -> None:
        refreshed.set()

    while True:
        refreshed.clear()
        found = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        header = [
            lens.command.title
            for lens in found or []
            if lens.command and lens.range.start.line == 0
        ]
        if any(" vs " in t for t in header):
            return header
        await refreshed.wait()


@pytest.mark.asyncio
async def test_a_comparison_of_equal_drops_is_made_and_hovered(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, "golden.qrels.yaml")
    header = await asyncio.wait_for(compared_header(client, uri), GUARD)
    assert "head vs base: ▼ worse · recall@10 -0.10 · p < 0.001 (Holm) · 0W 14L 0T" in header
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=0, character=0),
            )
        ),
        GUARD,
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    table = hover.contents.value
    assert "**Compared with base**" in table
    row = next(line for line in table.splitlines() if line.startswith("| precision@10 |"))
    assert "| worse |" in row and "-0.1000" in row and "n/a" in row  # no variance for a t-test
