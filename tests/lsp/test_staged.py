"""Staged publishing, over stdio: a golden set's own diagnostics (syntax, shape, corpus ids) are
published before its large runs are read; the run-dependent findings and the lenses follow when
the runs are read on the background thread, and meanwhile the lens of a run still loading says
so (never zeros, never nothing). Keystrokes typed meanwhile are answered."""

from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from qrels_lsp.ide.present import LOADING as LOADING_TITLE

from .conftest import Workspace, diagnostics, open_doc

GOLDEN = "support.qrels.yaml"
SLOW = "runs/slow.run.yaml"  # read through PyYAML (quoted ids): seconds
BROKEN = "runs/broken.run.yaml"  # large, and no ranking in it: a QR111 once it is read
LOADING = f"slow.run.yaml: {LOADING_TITLE}"


def _plant(ws: Workspace) -> None:
    queries = [
        line.split(":")[0].strip()
        for line in ws.text(GOLDEN).splitlines()
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":")
    ]
    ids = ", ".join(f'"kb/doc-{i}.md"' for i in range(40))
    body = "".join(f"  {q}: [{ids}]\n" for q in queries)
    filler = "".join(f'  "filler-{i}": [{ids}]\n' for i in range(6_000))
    (ws.root / SLOW).write_text(f"qrels: ../{GOLDEN}\nname: slow\nresults:\n{body}{filler}")
    comment = "# padding, to make this file worth reading later\n" * 30_000
    (ws.root / BROKEN).write_text(f"{comment}qrels: ../{GOLDEN}\nresults: 12\n")


async def _lenses(client: LanguageClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in found or [] if lens.command]


def _codes(client: LanguageClient, uri: str) -> set[str]:
    return {str(d.code) for d in client.diagnostics.get(uri) or []}


@pytest.mark.asyncio
async def test_own_findings_first_then_the_runs(client: LanguageClient, ws: Workspace) -> None:
    _plant(ws)
    uri = await open_doc(client, ws, GOLDEN)
    first = {str(d.code) for d in await asyncio.wait_for(diagnostics(client, uri, 1), 60)}
    assert "QR106" in first  # the golden set's own: an id not in the corpus (planted in the demo)
    assert "QR111" not in first  # the broken run is not read yet
    titles = await _lenses(client, uri)
    assert LOADING in titles, titles  # the run being read says so...
    numbers = [t for t in titles if t != LOADING and ("slow:" in t or "slow " in t)]
    assert numbers == []  # ...and shows no numbers for it
    # A keystroke meanwhile is answered with the golden set's own findings.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 0), types.Position(0, 0)), text="# \n"
                )
            ],
        )
    )
    await asyncio.wait_for(diagnostics(client, uri, 2), 60)
    deadline = time.monotonic() + 120
    while "QR111" not in _codes(client, uri):  # then the runs: the broken one is said
        assert time.monotonic() < deadline
        await asyncio.wait_for(
            client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 120
        )
    assert "QR106" in _codes(client, uri)
    titles = await _lenses(client, uri)
    assert LOADING not in titles
    assert any(t.startswith("slow: recall@5") for t in titles), titles
