"""The project graph in the editor: a golden set's lenses name every run that names it with
`qrels:` (found on disk, updated as runs are edited, created and deleted), and a TREC qrels bound
by `[[qrels]]` to a corpus too large to index on the spot gets its baseline lens once the index
is built."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from conftest import TEST_DATA
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from qrels_lsp.core.search.baseline import BASELINE_NAME
from test_project_graph import GOLDEN, RUN_A

from .conftest import Workspace, encoding_of, lens_titles, open_doc, until_lenses

CACHE = tempfile.mkdtemp(prefix="qrels-lsp-test-cache-")
SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve"]

RUN = RUN_A  # names ../g.qrels.yaml from runs/


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "runs").mkdir(parents=True)
    (root / "g.qrels.yaml").write_text(GOLDEN, encoding="utf-8")
    (root / "runs" / "dense.run.yaml").write_text(RUN, encoding="utf-8")
    vaswani = TEST_DATA / "vaswani"
    trec = root / "trec"
    trec.mkdir()
    for name in ("qrels", "query-text.trec"):
        shutil.copy(vaswani / name, trec / name)
    shutil.copy(vaswani / "corpus" / "doc-text.trec", trec / "doc-text.trec")
    (root / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "trec/qrels"\ntopics = "trec/query-text.trec"\n'
        'corpus = "trec/doc-text.trec"\n',
        encoding="utf-8",
    )
    return root


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER, server_env={**os.environ, "XDG_CACHE_HOME": CACHE}
    ),
    params=["visual-studio-code"],
)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, workspace_root: Path
) -> AsyncIterator[None]:
    settings = {"bm25_baseline": True}
    lsp_client.set_configuration(settings, section="qrels")

    def ignore(client: LanguageClient, params: object) -> None:
        return None

    for method in (
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.CLIENT_REGISTER_CAPABILITY,
    ):
        lsp_client.feature(method)(ignore)
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


async def titles(client: LanguageClient, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in lenses if lens.command is not None]


async def until(client: LanguageClient, uri: str, want: str) -> list[str]:
    """The lens titles once one of them contains ``want`` (analyses run in the background)."""
    found = await until_lenses(client, uri, lambda x: any(want in t for t in lens_titles(x)))
    return lens_titles(found)


async def until_gone(client: LanguageClient, uri: str, gone: str) -> list[str]:
    def ready(found: list[str]) -> bool:
        return bool(found) and not any(gone in t for t in found)

    return lens_titles(await until_lenses(client, uri, lambda x: ready(lens_titles(x))))


def changed_on_disk(client: LanguageClient, path: Path, kind: types.FileChangeType) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)])
    )


@pytest.mark.asyncio
async def test_lenses_name_the_runs_that_name_the_golden_set(
    client: LanguageClient, workspace_root: Path
) -> None:
    ws = Workspace(workspace_root, encoding_of(client))
    uri = await open_doc(client, ws, "g.qrels.yaml")
    found = await until(client, uri, "dense: recall@2")
    assert found[0].startswith("2 questions · dense: recall@2")
    # the judging and report lenses are about no one run
    runs = [t for t in found[1:] if not t.endswith("judge next") and not t.startswith("report:")]
    assert all(t.startswith("dense: ") for t in runs)

    # A run created on disk that names it joins; deleted, it leaves.
    late = workspace_root / "runs" / "late.run.yaml"
    late.write_text(RUN.replace("dense", "late"), encoding="utf-8")
    changed_on_disk(client, late, types.FileChangeType.Created)
    await until(client, uri, "late: ")
    late.unlink()
    changed_on_disk(client, late, types.FileChangeType.Deleted)
    await until_gone(client, uri, "late: ")

    # Editing the open run so that it names nothing takes it out of the golden set's lenses.
    run_uri = await open_doc(client, ws, "runs/dense.run.yaml")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=run_uri, version=2),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text=RUN.replace("qrels:", "#"))
            ],
        )
    )
    found = await until_gone(client, uri, "dense: ")
    assert "no runs" in found[0]


@pytest.mark.asyncio
async def test_trec_qrels_bound_to_a_large_corpus_gets_its_baseline_lens(
    client: LanguageClient, workspace_root: Path
) -> None:
    ws = Workspace(workspace_root, encoding_of(client))
    uri = await open_doc(client, ws, "trec/qrels", language="plaintext")
    found = await until(client, uri, f"{BASELINE_NAME}: recall@")
    assert found[0].startswith("93 questions") and BASELINE_NAME in found[0]
