"""The BM25 baseline in the editor: its own lens beside the runs, its ranks as inlay hints, and
numbers equal to pytrec_eval on rankings from rank_bm25's own get_scores."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from qrels_lsp.core.formats.corpus import Corpus, load_corpus
from qrels_lsp.core.search.baseline import BASELINE_NAME

from .conftest import (
    CLIENTS,
    Workspace,
    encoding_of,
    next_refresh,
    open_doc,
    range_of,
    settled_lenses,
    titles_of,
    track_refreshes,
)
from .oracle import bm25_run, golden_qrels, per_query

CACHE = tempfile.mkdtemp(prefix="qrels-lsp-test-cache-")
SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve"]


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env={**os.environ, "XDG_CACHE_HOME": CACHE}
    ),
    params=CLIENTS,
)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace_root: Path
) -> AsyncIterator[None]:
    lsp_client.set_configuration({"bm25_baseline": True}, section="qrels")

    track_refreshes(lsp_client)

    @lsp_client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def _hints(client: LanguageClient, params: None) -> None:
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(client: LanguageClient, params: types.RegistrationParams) -> None:
        return None

    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=workspace_root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace_root.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def lenses_with_baseline(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    """Lenses once the index is built (in the background: the server asks for a refresh when
    it is, and when each comparison it waited for is made)."""
    while True:
        seen = client.refreshes  # type: ignore[attr-defined]
        lenses = await settled_lenses(client, uri)
        if any(lens.command and lens.command.title.startswith(BASELINE_NAME) for lens in lenses):
            return lenses
        await next_refresh(client, seen)


@pytest.mark.asyncio
async def test_baseline_lens_equals_rank_bm25_and_pytrec_eval(
    client: LanguageClient, workspace_root: Path
) -> None:
    ws = Workspace(workspace_root, encoding_of(client))
    uri = await open_doc(client, ws, "support.qrels.yaml")
    lenses = await lenses_with_baseline(client, uri)
    text = ws.text("support.qrels.yaml")
    qrels, unanswerable, k = golden_qrels(ws.root / "support.qrels.yaml")
    corpus = load_corpus(ws.root / "corpus")
    assert isinstance(corpus, Corpus)
    import yaml

    questions = {
        q: e["question"] for q, e in yaml.safe_load(text)["queries"].items() if e.get("question")
    }
    expected = per_query(qrels, bm25_run(corpus, questions, 100), k)
    titles: dict[int, list[str]] = {}
    for lens in lenses:
        assert lens.command is not None
        titles.setdefault(lens.range.start.line, []).extend(titles_of(lens))
    for qid in qrels:
        if qid in unanswerable:
            continue
        line = range_of(text, f"\n  {qid}:", ws.encoding).start.line + 1
        want = f"{BASELINE_NAME}: recall@{k} {expected[qid][f'recall@{k}']:.2f} · MRR {expected[qid]['mrr']:.2f}"
        assert want in titles[line], (qid, titles[line])
    assert any(t.startswith(f"{BASELINE_NAME}: recall@{k} ") for t in titles[0])


@pytest.mark.asyncio
async def test_baseline_ranks_as_inlay_hints(client: LanguageClient, workspace_root: Path) -> None:
    ws = Workspace(workspace_root, encoding_of(client))
    uri = await open_doc(client, ws, "support.qrels.yaml")
    await lenses_with_baseline(client, uri)
    text = ws.text("support.qrels.yaml")
    whole = types.Range(types.Position(0, 0), types.Position(len(text.splitlines()) + 1, 0))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
    )
    labels = [h.label for h in hints if isinstance(h.label, str)]
    assert any(label.endswith(f" {BASELINE_NAME}") for label in labels)
