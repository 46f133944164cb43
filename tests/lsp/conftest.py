"""End-to-end fixtures: the real server over stdio, driven by pytest-lsp replaying the recorded
capabilities of real clients (VS Code, Neovim 0.11, Emacs 29), on a copy of the demo workspace."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from qrels_lsp.lsp.encoders import JOIN

EXAMPLES = Path(__file__).resolve().parents[2] / "server" / "qrels_lsp" / "examples"
SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve", "--stdio"]
# Every end-to-end test runs once per recorded client in the slow run; the default run keeps VS Code
# (UTF-16 positions, LSP's default) so each feature is still exercised there, a third of the cost.
CLIENTS = [
    "visual-studio-code",
    pytest.param("neovim@0.11", marks=pytest.mark.slow),
    pytest.param("emacs@29.1", marks=pytest.mark.slow),
]


@dataclass
class Workspace:
    root: Path
    encoding: str

    def uri(self, relative: str) -> str:
        return (self.root / relative).as_uri()

    def text(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")


def encoding_of(client: LanguageClient) -> str:
    general = client.capabilities.general if client.capabilities else None
    offered = getattr(general, "position_encodings", None) or ["utf-16"]
    first = offered[0]
    return str(getattr(first, "value", first))


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    return root


def track_refreshes(lsp_client: LanguageClient) -> None:
    """Count the server's requests to refresh lenses (``refreshes``) and wake whoever waits for
    the next one (:func:`next_refresh`)."""
    lsp_client.refreshes = 0  # type: ignore[attr-defined]
    lsp_client.refreshed = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _on_lens_refresh(client: LanguageClient, params: None) -> None:
        client.refreshes += 1  # type: ignore[attr-defined]
        for waiter in client.refreshed:  # type: ignore[attr-defined]
            waiter.set()
        client.refreshed.clear()  # type: ignore[attr-defined]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=CLIENTS)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace_root: Path
) -> AsyncIterator[None]:
    lsp_client._qrels_versions = {}  # type: ignore[attr-defined]

    lsp_client.protocol.fm.features.pop(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, None)

    @lsp_client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _on_diagnostics(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client._qrels_versions[params.uri] = params.version  # type: ignore[attr-defined]

    track_refreshes(lsp_client)

    lsp_client.registrations = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _on_register(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def _on_hint_refresh(client: LanguageClient, params: None) -> None:
        return None

    caps = client_capabilities(request.param)
    # The BM25 baseline run has its own tests (test_baseline.py); here the runs are the files'.
    settings = {"bm25_baseline": False}
    lsp_client.set_configuration(settings, section="qrels")
    lsp_client.init_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(
            capabilities=caps,
            initialization_options={"qrels": settings},
            root_uri=workspace_root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace_root.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def ws(client: LanguageClient, workspace_root: Path) -> Workspace:
    return Workspace(workspace_root, encoding_of(client))


async def open_doc(
    client: LanguageClient,
    ws: Workspace,
    relative: str,
    text: str | None = None,
    language: str = "yaml",
) -> str:
    uri = ws.uri(relative)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri,
                language_id=language,
                version=1,
                text=text if text is not None else ws.text(relative),
            )
        )
    )
    return uri


async def diagnostics(
    client: LanguageClient, uri: str, version: int | None = None
) -> list[types.Diagnostic]:
    """Diagnostics of ``uri`` as published for ``version`` (the push model all three clients get)."""
    while True:
        published = client.diagnostics.get(uri)
        if published is not None and (version is None or _version_of(client, uri) == version):
            return list(published)
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


def _version_of(client: LanguageClient, uri: str) -> int | None:
    return getattr(client, "_qrels_versions", {}).get(uri)


def units(text: str, encoding: str) -> int:
    """The length of ``text`` in the client's position encoding."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def position_of(
    text: str, needle: str, encoding: str, *, occurrence: int = 0, delta: int = 0
) -> types.Position:
    """The LSP position of the ``occurrence``-th ``needle`` (plus ``delta`` characters)."""
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    line_start = text.rfind("\n", 0, at) + 1
    return types.Position(line=line, character=units(text[line_start:at], encoding))


async def next_refresh(client: LanguageClient, seen: int) -> None:
    """Wait until the server has asked the client to refresh its lenses more than ``seen``
    times: the event that says what was being made (a comparison, a run being read, the BM25
    baseline) is ready. No clock: a loaded machine only makes it come later."""
    while client.refreshes <= seen:  # type: ignore[attr-defined]
        waiter = asyncio.Event()
        client.refreshed.append(waiter)  # type: ignore[attr-defined]
        await waiter.wait()


UNSETTLED = "…"
"""What every lens title still waiting for something ends or says with: `comparing with …`,
`· updating…`, `loading…`, `waiting for …`."""


async def settled_lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    """The document's lenses once nothing in them is being made any more: asked again after
    each refresh request the server sends when it has made what a lens said it was making."""
    while True:
        seen = client.refreshes  # type: ignore[attr-defined]
        found = await client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(uri))
        )
        lenses = list(found or [])
        if not any(UNSETTLED in (lens.command.title if lens.command else "") for lens in lenses):
            return lenses
        await next_refresh(client, seen)


async def until_lenses(
    client: LanguageClient, uri: str, ready: Callable[[list[types.CodeLens]], bool]
) -> list[types.CodeLens]:
    """The document's settled lenses once ``ready`` holds of them: asked again after each
    refresh request (an analysis made in the background, a file changed on disk, new
    settings). A refresh that never comes is a failure of the server, caught by the suite's
    ceiling, not by a clock here."""
    while True:
        seen = client.refreshes  # type: ignore[attr-defined]
        lenses = await settled_lenses(client, uri)
        if ready(lenses):
            return lenses
        await next_refresh(client, seen)


def lens_titles(lenses: list[types.CodeLens]) -> list[str]:
    return [lens.command.title for lens in lenses if lens.command is not None]


def titles_of(lens: types.CodeLens) -> list[str]:
    """What a lens says, a run at a time: a question's runs share one lens (JOIN)."""
    assert lens.command is not None
    return lens.command.title.split(JOIN)


def range_of(text: str, needle: str, encoding: str, *, occurrence: int = 0) -> types.Range:
    start = position_of(text, needle, encoding, occurrence=occurrence)
    return types.Range(
        start=start, end=types.Position(start.line, start.character + units(needle, encoding))
    )
