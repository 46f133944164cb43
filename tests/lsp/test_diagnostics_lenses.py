"""Diagnostics and code lenses end to end, for VS Code, Neovim 0.11 and Emacs 29 capabilities."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, diagnostics, open_doc, range_of, titles_of
from .oracle import demo_runs, golden_qrels, per_query

GOLDEN = "support.qrels.yaml"


def planted(text: str) -> dict[int, str]:
    """0-based line -> code, from the demo's `# demo: QRnnn` markers."""
    return {
        i: m.group(1)
        for i, line in enumerate(text.splitlines())
        if (m := re.search(r"# demo: (QR\d{3})", line))
    }


@pytest.mark.asyncio
async def test_demo_golden_set_diagnostics_are_the_planted_ones(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    diags = await diagnostics(client, uri, version=1)
    text = ws.text(GOLDEN)
    expected = planted(text)
    got = {(d.range.start.line, d.code) for d in diags}
    for line, code in expected.items():
        # A marker sits on the line the finding starts on, or on the query id line above it.
        assert any(c == code and line - 1 <= ln <= line for ln, c in got), (line, code, sorted(got))
    assert {d.code for d in diags} >= set(expected.values())
    unknown = next(d for d in diags if d.code == "QR106")
    assert unknown.range == range_of(text, "errors/e1107-weak-backhual.md", ws.encoding)
    assert unknown.source == "qrels-lsp"
    assert "errors/e1107-weak-backhaul.md" in unknown.message


@pytest.mark.asyncio
@pytest.mark.slow
async def test_duplicate_points_at_first_occurrence(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    diags = await diagnostics(client, uri, version=1)
    text = ws.text(GOLDEN)
    dup = next(d for d in diags if d.code == "QR102")
    assert dup.range == range_of(
        text, "setup/adding-a-satellite-node.md", ws.encoding, occurrence=1
    )
    assert dup.related_information
    assert dup.related_information[0].location.range == range_of(
        text, "setup/adding-a-satellite-node.md", ws.encoding, occurrence=0
    )


@pytest.mark.asyncio
async def test_question_lenses_equal_pytrec_eval(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    text = ws.text(GOLDEN)
    qrels, unanswerable, k = golden_qrels(ws.root / GOLDEN)
    # every run: the files, `passages` by its documents and the fused `rrf` (oracle.demo_runs)
    runs = demo_runs(ws.root)
    assert list(runs) == ["bm25", "dense", "passages", "hybrid", "rrf"]
    expected_by_run = {name: per_query(qrels, run, k) for name, run in runs.items()}
    by_line: dict[int, list[str]] = {}
    per_line: dict[int, int] = {}
    for lens in lenses:
        assert lens.command is not None
        by_line.setdefault(lens.range.start.line, []).extend(titles_of(lens))
        per_line[lens.range.start.line] = per_line.get(lens.range.start.line, 0) + 1
    # A question's runs share one lens (editors show the lenses of a line joined the same way).
    assert {n for line, n in per_line.items() if line > 0} == {1}
    checked = 0
    for qid in qrels:
        line = range_of(text, f"\n  {qid}:", ws.encoding).start.line + 1
        titles = by_line[line]
        if qid in unanswerable:
            assert titles == ["unanswerable · excluded from the means"]
            continue
        for name, expected in expected_by_run.items():
            title = next(t for t in titles if t.startswith(f"{name}: "))
            if qid not in runs[name]:
                assert title == f"{name}: not in the run · scores 0"
                continue
            want = f"{name}: recall@{k} {expected[qid][f'recall@{k}']:.2f} · MRR {expected[qid]['mrr']:.2f}"
            # (▲/▼ mark a value above or below the base run's: tests/lsp/test_compare_lenses.py)
            assert title.replace("▲", "").replace("▼", "") == want, qid
            checked += 1
    assert checked > 90
    header = by_line[0]
    n_answerable = len(qrels) - len(unanswerable)
    assert header[0] == f"{len(qrels)} questions · {len(unanswerable)} unanswerable"
    for name, expected in expected_by_run.items():
        mean_recall = (
            sum(expected[q][f"recall@{k}"] for q in qrels if q not in unanswerable) / n_answerable
        )
        summary = next(t for t in header if t.startswith(f"{name}: "))
        assert summary.startswith(f"{name}: recall@{k} {mean_recall:.2f} · ")
        assert f"(mean of {n_answerable})" in summary


@pytest.mark.asyncio
async def test_run_file_lenses_and_missing_query(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/dense.run.yaml"
    uri = await open_doc(client, ws, rel)
    diags = await diagnostics(client, uri, version=1)
    text = ws.text(rel)
    missing = next(d for d in diags if d.code == "QR202")
    assert missing.range == range_of(text, "results", ws.encoding)
    assert "browser-admin" in missing.message
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    titles = [lens.command.title for lens in lenses if lens.command]
    assert titles[0].startswith("dense vs support.qrels.yaml · recall@5 ")
    assert "1 missing" in titles[0] and "1 not in the golden set" in titles[0]
    assert "not in the golden set · ignored" in titles


@pytest.mark.asyncio
async def test_editing_golden_set_updates_open_run(client: LanguageClient, ws: Workspace) -> None:
    golden_uri = await open_doc(client, ws, GOLDEN)
    run_uri = await open_doc(client, ws, "runs/dense.run.yaml")
    await diagnostics(client, run_uri, version=1)
    before = [d for d in client.diagnostics[run_uri] if d.code == "QR201"]
    assert len(before) == 1  # ipv6 is not a golden query
    text = ws.text(GOLDEN)
    addition = (
        "  ipv6:\n    question: does lumen support ipv6\n    relevant: [kb/port-forwarding.md]\n"
    )
    end = types.Position(line=len(text.splitlines()), character=0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=golden_uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=end, end=end), text=addition
                )
            ],
        )
    )
    for _ in range(20):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if not [d for d in client.diagnostics.get(run_uri, []) if d.code == "QR201"]:
            break
    assert not [d for d in client.diagnostics[run_uri] if d.code == "QR201"]


@pytest.mark.asyncio
async def test_non_ascii_before_the_error(client: LanguageClient, ws: Workspace) -> None:
    text = (
        "corpus: corpus/\n"
        "queries:\n"
        "  q😀:\n"
        "    question: 路由器😀 wifi 🙂 どうやって\n"
        "    relevant: [kb/路由器.md, kb/factory-reset.md]  # 😀 comment\n"
    )
    uri = await open_doc(client, ws, "emoji.qrels.yaml", text)
    diags = await diagnostics(client, uri, version=1)
    unknown = next(d for d in diags if d.code == "QR106")
    assert unknown.range == range_of(text, "kb/路由器.md", ws.encoding)


@pytest.mark.asyncio
@pytest.mark.slow
async def test_other_documents_stay_silent(client: LanguageClient, ws: Workspace) -> None:
    (ws.root / "notes.yaml").write_text("queries: [1, 2\n", encoding="utf-8")
    uri = await open_doc(client, ws, "notes.yaml")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not lenses
    assert uri not in client.diagnostics


@pytest.mark.asyncio
@pytest.mark.slow
async def test_close_clears_diagnostics(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    assert await diagnostics(client, uri, version=1)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    while client.diagnostics.get(uri):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_crashed_analysis_is_reported_and_retried(workspace_root, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A bug in a background analysis shows in the client's log and is tried again, so the
    diagnostics still arrive (the fault is injected for the first attempt only)."""
    import asyncio
    import os
    import sys

    from pygls.lsp.client import LanguageClient as RawClient

    client = RawClient("crash-test", "1")
    logs: list[str] = []
    published: list[types.PublishDiagnosticsParams] = []
    arrived = asyncio.Event()  # diagnostics of the golden set, after the retry

    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)
        if params.uri == uri and params.diagnostics:
            arrived.set()

    client.feature(types.WINDOW_LOG_MESSAGE)(lambda params: logs.append(params.message))
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_diagnostics)
    env = dict(os.environ, QRELS_LSP_INJECT_FAULT=GOLDEN)
    await client.start_io(sys.executable, "-m", "qrels_lsp.cli", "serve", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=workspace_root.as_uri()
        )
    )
    client.initialized(types.InitializedParams())
    uri = (workspace_root / GOLDEN).as_uri()
    text = (workspace_root / GOLDEN).read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    await arrived.wait()  # (the suite's ceiling is the guard)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    assert any("injected fault" in m and "attempt 1" in m for m in logs), logs
    assert any(
        p.uri == uri and p.version == 1 and any(d.code == "QR106" for d in p.diagnostics)
        for p in published
    )


@pytest.mark.asyncio
async def test_typed_changes_leave_the_server_with_the_editors_text(
    client: LanguageClient, ws: Workspace
) -> None:
    """Forty incremental changes (typing, deleting across line breaks, emoji, CRLF) in the
    client's position encoding; the diagnostics of the last version are those of opening its
    text afresh, so the server applied every change as the editor did."""
    import random

    from .conftest import units

    def position(text: str, at: int) -> types.Position:
        line_start = text.rfind("\n", 0, at) + 1
        return types.Position(text.count("\n", 0, at), units(text[line_start:at], ws.encoding))

    # An emoji opens every question, so that a column miscounted in the client's encoding moves
    # each edit.
    text = ws.text(GOLDEN).replace("\n", "\r\n").replace("question: ", "question: 😀 楼 ")
    uri = await open_doc(client, ws, GOLDEN, text)
    rng = random.Random(11)
    version = 1
    for _ in range(40):
        # Inside a question: type, delete a word, or break the line (a deeper-indented line
        # continues the question), so that the file stays a golden set with its findings.
        at = text.index("question: ", rng.randrange(len(text) - 400)) + len("question: ")
        at = text.index(" ", at) + 1
        line_end = text.index("\r\n", at)
        if rng.random() < 0.3 and " " in text[at:line_end]:
            end, new = text.index(" ", at), ""
        else:
            end, new = at, rng.choice(["x", "é", "😀", "文 ", "\r\n      so "])
        start_pos, end_pos = position(text, at), position(text, end)
        text = text[:at] + new + text[end:]
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=start_pos, end=end_pos), text=new
                    )
                ],
            )
        )
    typed = await diagnostics(client, uri, version=version)
    fresh_uri = await open_doc(client, ws, "fresh.qrels.yaml", text)
    fresh = await diagnostics(client, fresh_uri, version=1)
    key = lambda d: (d.range.start.line, d.range.start.character, d.range.end.line, str(d.code))  # noqa: E731
    assert sorted(map(key, typed)) == sorted(map(key, fresh))
    assert len(typed) > 5

    async def outline(uri: str) -> list[tuple[str, str | None, types.Range]]:
        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return [(s.name, s.detail, s.range) for s in symbols or []]  # type: ignore[union-attr]

    # The outline shows each question's text: the server's text is the editor's.
    assert await outline(uri) == await outline(fresh_uri)
