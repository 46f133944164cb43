"""The base never switches silently: while a golden set's BM25 index is being built (a corpus of
11,429 documents, the Vaswani collection, with a fresh cache), its comparison waits for the
built-in baseline, and so does a fusion of it; no answer ever compares with the run file, and
once the index is ready the comparison is with the baseline."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from qrels_lsp.core.search.baseline import BASELINE_NAME
from test_fused_names import write_vaswani_fusion

from .conftest import Workspace, encoding_of, open_doc

SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve"]
GUARD = 600.0  # seconds: a failure guard (an index that never comes), not a speed claim
CACHE = tempfile.mkdtemp(prefix="qrels-lsp-pending-")


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    write_vaswani_fusion(root)
    return root


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env={**os.environ, "XDG_CACHE_HOME": CACHE}
    ),
)
async def client(lsp_client: LanguageClient, workspace_root: Path) -> AsyncIterator[None]:
    shutil.rmtree(CACHE, ignore_errors=True)  # no index on disk: it is built while we look
    lsp_client.refreshed = asyncio.Event()  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(client: LanguageClient, params: None) -> None:
        client.refreshed.set()  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def _hints(client: LanguageClient, params: None) -> None:
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(client: LanguageClient, params: types.RegistrationParams) -> None:
        return None

    lsp_client.set_configuration({"bm25_baseline": True}, section="qrels")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace_root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace_root.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def header(client: LanguageClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [
        lens.command.title for lens in found or [] if lens.command and lens.range.start.line == 0
    ]


async def watch(client: LanguageClient, uri: str) -> list[list[str]]:
    """Every first-line answer, asked again after each refresh, until one compares."""
    seen = []
    while True:
        client.refreshed.clear()  # type: ignore[attr-defined]
        titles = await header(client, uri)
        seen.append(titles)
        if any(" vs " in t for t in titles):
            return seen
        await client.refreshed.wait()  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_the_comparison_waits_for_the_baseline(
    client: LanguageClient, workspace_root: Path
) -> None:
    ws = Workspace(workspace_root, encoding_of(client))
    uri = await open_doc(client, ws, "g.qrels.yaml")
    seen = await asyncio.wait_for(watch(client, uri), GUARD)
    compared = [t for answer in seen for t in answer if " vs " in t]
    assert compared and all(f" vs {BASELINE_NAME}: " in t for t in compared), compared
    if len(seen) > 1:  # (a machine fast enough may have the index at the first answer)
        first = seen[0]
        assert f"comparing with {BASELINE_NAME} once its BM25 index is built…" in first, first
        assert f"hybrid: waiting for {BASELINE_NAME}, which it fuses…" in first, first
    assert any(t.startswith("hybrid vs ") for t in seen[-1]), seen[-1]
