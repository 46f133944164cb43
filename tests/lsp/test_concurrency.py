"""Concurrency over stdio, with the real server indexing a real (generated) 80,000-document
corpus: 200 rapid edits while the index builds, `$/cancelRequest` for a request stuck behind the
build, diagnostics and lenses for the latest version only, and shutdown/exit while the build is
still running. The BM25 cache goes to a fresh folder, so the index is really built each time."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fuzz.driver import Server
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

DOCS = 80_000
INDEX_TITLE = "Indexing corpus (BM25)"


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(4000)]
    path = tmp_path_factory.mktemp("corpus") / "big.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write('{"_id": "kb/factory-reset.md", "text": "hold reset ten seconds"}\n')
        for i in range(DOCS):
            f.write(json.dumps({"_id": f"doc-{i}", "text": " ".join(rng.choices(words, k=40))}))
            f.write("\n")
    return path


def golden_text(version: int) -> str:
    """Version ``n``: ``n % 7`` comment lines on top (so lenses move) and one unknown id that
    names its version (so each diagnostic says which text it was computed from)."""
    return (
        "".join(f"# edit {version}.{i}\n" for i in range(version % 7))
        + "corpus: big.jsonl\nk: 5\nruns: [r.run.yaml]\nqueries:\n"
        + "  reset:\n    question: how do I factory reset the router\n"
        + f"    relevant: [kb/factory-reset.md, missing-{version}.md]\n"
        + "  other:\n    question: what is w12\n    relevant: [doc-12]\n"
    )


@pytest.fixture
def workspace(tmp_path: Path, big_corpus: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    # A hard link, not a symlink: a symlink out of the workspace is refused (core/base/boundary.py).
    os.link(big_corpus, root / "big.jsonl")
    (root / "g.qrels.yaml").write_text(golden_text(0), encoding="utf-8")
    (root / "r.run.yaml").write_text(
        "results:\n  reset: [doc-1, kb/factory-reset.md]\n  other: [doc-12]\n", encoding="utf-8"
    )
    yield root


def index_progress(server: Server) -> list[object]:
    """The $/progress reports of the BM25 index build (begin, reports, end)."""
    for reports in list(server.client.progress_reports.values()):
        if any(
            isinstance(r, types.WorkDoneProgressBegin) and r.title == INDEX_TITLE for r in reports
        ):
            return list(reports)
    return []


def indexing(server: Server) -> bool:
    """Whether the index build has begun and not ended."""
    reports = index_progress(server)
    return bool(reports) and not isinstance(reports[-1], types.WorkDoneProgressEnd)


def wait_until(predicate: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def expected_range(text: str, needle: str) -> types.Range:
    at = text.index(needle)
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return types.Range(
        start=types.Position(line=line, character=col),
        end=types.Position(line=line, character=col + len(needle)),
    )


def start(workspace: Path, tmp_path: Path) -> Server:
    return Server(workspace, "visual-studio-code", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


@pytest.mark.slow
def test_rapid_changes_while_indexing(workspace: Path, tmp_path: Path) -> None:
    server = start(workspace, tmp_path)
    uri = (workspace / "g.qrels.yaml").as_uri()
    published: list[tuple[int | None, list[types.Diagnostic]]] = []

    def record(ls: object, params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            published.append((params.version, list(params.diagnostics)))
        server.client.diagnostics[params.uri] = params.diagnostics
        server.client.versions[params.uri] = params.version  # type: ignore[attr-defined]

    server.client.protocol.fm.features.pop(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, None)
    server.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(record)
    try:
        server.open(uri, golden_text(1), 1)
        wait_until(lambda: indexing(server))

        # A request stuck behind the index build is cancelled on request, promptly.
        async def cancelled_hover() -> tuple[bool, float]:
            protocol = server.client.protocol
            params = types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                # A document id: its hover reads the corpus on the (busy) analysis thread.
                position=expected_range(golden_text(1), "kb/factory-reset.md").start,
            )
            future = protocol.send_request(types.TEXT_DOCUMENT_HOVER, params, msg_id="stuck")
            protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="stuck"))
            began = time.monotonic()
            try:
                await asyncio.wrap_future(future)
            except JsonRpcRequestCancelled:
                return True, time.monotonic() - began
            return False, time.monotonic() - began

        was_cancelled, took = server.run(cancelled_hover(), timeout=60)
        assert was_cancelled and took < 5, took
        assert indexing(server)  # the hover was cancelled while the build was running

        # 200 edits as fast as the pipe takes them, while the index is still being built.
        for version in range(2, 202):
            server.change(uri, version, golden_text(version))
        final = golden_text(201)
        diags = server.diagnostics(uri, 201, timeout=120)
        assert diags is not None
        unknown = [d for d in diags if d.code == "QR106"]
        assert [d.range for d in unknown] == [expected_range(final, "missing-201.md")]

        # Every diagnostics push is for the text of the version it names.
        for version, items in published:
            assert version is not None
            text = golden_text(version)
            ranges = [d.range for d in items if d.code == "QR106"]
            assert ranges == [expected_range(text, f"missing-{version}.md")], version
        assert published[-1][0] == 201
        assert len(published) < 200  # stale versions were dropped, not all analysed

        # Lenses are complete and for the latest text: above each question of version 201.
        lenses = server.request(
            types.TEXT_DOCUMENT_CODE_LENS,
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        ).result
        lines = {lens.range.start.line for lens in lenses or []}
        keys = {final[: final.index(f"\n  {q}:")].count("\n") + 1 for q in ("reset", "other")}
        assert keys <= lines and len(lines) == 3, (lines, keys)
        assert not server.problems()
    finally:
        assert server.close() == 0


def test_shutdown_and_exit_while_indexing(workspace: Path, tmp_path: Path) -> None:
    server = start(workspace, tmp_path)
    uri = (workspace / "g.qrels.yaml").as_uri()
    server.open(uri, golden_text(1), 1)
    wait_until(lambda: indexing(server))
    for version in range(2, 20):
        server.change(uri, version, golden_text(version))
    server.request(
        types.TEXT_DOCUMENT_CODE_LENS,
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        timeout=0.01,
    )  # left in flight on purpose
    server.failures.clear()
    assert indexing(server)
    began = time.monotonic()
    code = server.close(timeout=10)
    took = time.monotonic() - began
    assert code == 0, server.stderr
    assert took < 8, f"exit waited {took:.1f} s for background work"
    assert not re.search(r"Traceback", "".join(server.stderr)), server.stderr
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
