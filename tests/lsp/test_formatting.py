"""Format Document and Format Selection end to end: the capabilities, edits that touch only what
changes (applied as the client applies them, in its position encoding), nothing for a file that
does not parse or is not a YAML golden set or run, and the editor's `format` settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from qrels_lsp.core.formats.golden import FORMAT as GOLDEN_FORMAT
from qrels_lsp.core.formats.style import FormatSettings

from .applyedits import apply_text_edits
from .conftest import CLIENTS, SERVER, Workspace, encoding_of, open_doc

GOLDEN = "support.qrels.yaml"
OPTIONS = types.FormattingOptions(tab_size=2, insert_spaces=True)


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def shuffled_example(text: str) -> str:
    """The example with one question's keys out of order, and `k:` at the bottom."""
    first = "  cant-login-app:\n    tags: [account]\n    question: cant log into the lumen app"
    assert first in text
    text = text.replace(
        "    tags: [account]\n    question: cant log into the lumen app",
        "    question: cant log into the lumen app",
        1,
    ).replace(
        "      kb/two-factor-authentication.md: 1\n",
        "      kb/two-factor-authentication.md: 1\n    tags: [account]  # 😀 moved\n",
        1,
    )
    k_line = "k: 5                    # the assistant gets the top 5 passages\n"
    return text.replace(k_line, "", 1) + k_line


async def formatting(client: LanguageClient, uri: str) -> list[types.TextEdit] | None:
    return await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=doc(uri), options=OPTIONS)
    )


def test_formatting_is_offered(client: LanguageClient) -> None:
    caps = client.init_result.capabilities  # type: ignore[attr-defined]
    assert caps.document_formatting_provider and caps.document_range_formatting_provider


@pytest.mark.asyncio
async def test_format_document_edits_only_what_moves(client: LanguageClient, ws: Workspace) -> None:
    text = shuffled_example(ws.text(GOLDEN))
    uri = await open_doc(client, ws, GOLDEN, text)
    edits = await formatting(client, uri)
    assert edits
    expected = GOLDEN_FORMAT.reformat(text, FormatSettings(), None).text
    assert (
        apply_text_edits(text, edits, ws.encoding)
        == expected
        == ws.text(GOLDEN).replace(
            "    tags: [account]\n    question: cant log",
            "    tags: [account]  # 😀 moved\n    question: cant log",
            1,
        )
    )
    lines = text.count("\n")
    touched = sum(e.range.end.line - e.range.start.line + 1 for e in edits)
    assert touched < 12 < lines  # a few lines, not the document


@pytest.mark.asyncio
async def test_format_selection_formats_the_questions_it_touches(
    client: LanguageClient, ws: Workspace
) -> None:
    text = shuffled_example(ws.text(GOLDEN))
    uri = await open_doc(client, ws, GOLDEN, text)
    line = text[: text.index("  cant-login-app:")].count("\n")
    edits = await client.text_document_range_formatting_async(
        types.DocumentRangeFormattingParams(
            text_document=doc(uri),
            range=types.Range(types.Position(line + 1, 0), types.Position(line + 2, 0)),
            options=OPTIONS,
        )
    )
    assert edits
    after = apply_text_edits(text, edits, ws.encoding)
    assert after.endswith("k: 5                    # the assistant gets the top 5 passages\n")
    assert "    tags: [account]  # 😀 moved\n    question: cant log" in after


@pytest.mark.asyncio
async def test_nothing_to_format_is_no_edit_not_an_error(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)  # formatted already
    assert not await formatting(client, uri)
    broken = await open_doc(client, ws, "broken.qrels.yaml", "k: 5\nqueries:\n  q1: [\n")
    assert not await formatting(client, broken)
    trec = await open_doc(client, ws, "runs/hybrid.trec", language="plaintext")
    assert not await formatting(client, trec)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=CLIENTS)
async def styled(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace_root: Path
) -> AsyncIterator[None]:
    """A client whose settings sort the questions and write `relevant:` on one line."""
    for method in (
        types.CLIENT_REGISTER_CAPABILITY,
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
    ):
        lsp_client.feature(method)(lambda *args: None)
    settings = {"bm25_baseline": False, "format": {"sort_queries": True, "relevant": "flow"}}
    lsp_client.set_configuration(settings, section="qrels")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            initialization_options={"qrels": settings},
            root_uri=workspace_root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace_root.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_editors_settings_choose_the_style(
    styled: LanguageClient, workspace_root: Path
) -> None:
    """A space added after a comma that follows an emoji: the edit's column is counted in the
    client's encoding."""
    ws = Workspace(workspace_root, encoding_of(styled))
    text = "queries:\n  q2:\n    relevant: [kb/😀.md,kb/b.md]\n  q1:\n    question: first\n"
    uri = await open_doc(styled, ws, "new.qrels.yaml", text)
    edits = await formatting(styled, uri)
    assert edits
    assert apply_text_edits(text, edits, ws.encoding) == (
        "queries:\n  q1:\n    question: first\n  q2:\n    relevant: [kb/😀.md, kb/b.md]\n"
    )
