"""Comparisons in the editor, over stdio: the golden set's first-line lens per run, its hover and
command, the per-question marks, a run file's comparison lens and QR115; the numbers are the
ones `qrels-lsp compare` prints (whose statistics tests/test_compare_cli.py checks against
scipy and statsmodels), so the editor and CI say the same."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from qrels_lsp.ide.compare import p_text
from qrels_lsp.ide.present import UPDATING

from .conftest import (
    Workspace,
    diagnostics,
    next_refresh,
    open_doc,
    range_of,
    settled_lenses,
    titles_of,
)
from .oracle import golden_qrels, per_query, run_scores

GOLDEN = "support.qrels.yaml"
CLI = [sys.executable, "-m", "qrels_lsp.cli"]
TITLE = re.compile(
    r"^(?P<run>.+) vs (?P<base>.+): (?:[▲▼] )?(?P<verdict>better|worse|no difference detected|"
    r"too few questions to tell(?: \([\d,]+ needed\))?) · (?P<metric>\S+) "
    r"(?P<delta>[+-]\d\.\d\d) · p (?P<p>[<\d. ]+) \(Holm\) · "
    r"(?P<w>\d+)W (?P<l>\d+)L (?P<t>\d+)T$"
)


def cli_compare(ws: Workspace, tmp_path: Path) -> dict:
    """What `qrels-lsp compare` says of the same files, with the editor's settings."""
    config = tmp_path / "outside.toml"
    config.write_text("bm25_baseline = false\n", encoding="utf-8")
    out = subprocess.run(
        [*CLI, "compare", str(ws.root / GOLDEN), "--config", str(config), "--format", "json"],
        cwd=ws.root,  # the command line's workspace, as the editor's
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


async def raw_lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    """The lenses as the server answers now (a comparison may still be being made)."""
    return list(
        await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    )


lenses = settled_lenses  # what the tests compare with `compare`: once it is made


async def settled_header(client: LanguageClient, uri: str) -> list[str]:
    """The first line's lens titles once the comparison after an edit is made. Until then each
    answer shows the last comparison, every line of it marked as being updated (or, before the
    golden set's first comparison is made, that it is being made), never a part of one."""
    while True:
        seen = client.refreshes  # type: ignore[attr-defined]
        header = [t.command.title for t in await raw_lenses(client, uri) if t.command]
        compared = [t for t in header if " vs " in t]
        updating = [t for t in compared if t.endswith(UPDATING)]
        if not compared:
            assert any(t.startswith("comparing with ") for t in header), header
            await next_refresh(client, seen)
            continue
        assert not updating or updating == compared, header  # one comparison or the other
        if not updating:
            return header
        assert all(TITLE.match(t.removesuffix(UPDATING)) for t in updating), updating
        await next_refresh(client, seen)


@pytest.mark.asyncio
async def test_first_line_lenses_say_what_compare_says(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    header = [lens for lens in await lenses(client, uri) if lens.range.start.line == 0]
    compared = [m for lens in header if lens.command and (m := TITLE.match(lens.command.title))]
    doc = cli_compare(ws, tmp_path)
    _qrels, _unanswerable, k = golden_qrels(ws.root / GOLDEN)
    assert doc["base"] == "bm25"  # no baseline here: the first run
    # every run but the base, the run of chunks and the fused run too
    assert [m["run"] for m in compared] == ["dense", "passages", "hybrid", "rrf"]
    for m in compared:
        c = next(
            c for c in doc["comparisons"] if c["run"] == m["run"] and c["metric"] == f"recall@{k}"
        )
        assert m["base"] == "bm25" and m["metric"] == f"recall@{k}"
        assert m["delta"] == f"{c['delta']:+.2f}"
        assert m["verdict"].startswith(c["verdict"]) and m["p"] == p_text(c["p_adjusted"])
        assert (int(m["w"]), int(m["l"]), int(m["t"])) == (c["wins"], c["losses"], c["ties"])
    # Each first-line lens runs the command that shows the whole comparison, but the judging
    # lens, which goes to the next document to judge.
    judging = [
        lens for lens in header if lens.command and lens.command.title.endswith("judge next")
    ]
    assert [lens.command.command for lens in judging if lens.command] == ["qrels-lsp.judgeNext"]
    report = [lens for lens in header if lens.command and lens.command.title.startswith("report:")]
    assert [lens.command.command for lens in report if lens.command] == ["qrels-lsp.report"]
    others = [lens for lens in header if lens not in judging and lens not in report]
    assert all(lens.command and lens.command.command == "qrels-lsp.compareRuns" for lens in others)
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="qrels-lsp.compareRuns", arguments=[{"path": str(ws.root / GOLDEN)}]
        )
    )
    assert (
        "**Compared with bm25**" in shown and "| metric | verdict | base | run | delta |" in shown
    )
    assert f"{(ws.root / GOLDEN).as_uri()}#L" in shown  # the flipped questions link to entries


@pytest.mark.asyncio
async def test_question_marks_follow_the_per_query_differences(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    by_line: dict[int, list[str]] = {}
    for lens in await lenses(client, uri):
        assert lens.command is not None
        by_line.setdefault(lens.range.start.line, []).extend(titles_of(lens))
    text = ws.text(GOLDEN)
    qrels, unanswerable, k = golden_qrels(ws.root / GOLDEN)
    runs = {
        name: run_scores(ws.root / "runs" / file)
        for name, file in (("bm25", "bm25.run.yaml"), ("dense", "dense.run.yaml"))
    }
    values = {name: per_query(qrels, run, k) for name, run in runs.items()}
    marks = 0
    for qid in qrels:
        if qid in unanswerable or qid not in runs["dense"]:
            continue
        line = range_of(text, f"\n  {qid}:", ws.encoding).start.line + 1
        title = next(t for t in by_line[line] if t.startswith("dense: "))
        base = values["bm25"].get(qid, {}).get(f"recall@{k}", 0.0)
        mine = values["dense"][qid][f"recall@{k}"]
        mark = "▲" if mine > base else "▼" if mine < base else ""
        assert f"recall@{k} {mine:.2f}{mark} " in title + " ", (qid, title)
        marks += bool(mark)
        bm25 = next(t for t in by_line[line] if t.startswith("bm25: "))
        assert "▲" not in bm25 and "▼" not in bm25  # the base is not marked against itself
    assert marks >= 3


@pytest.mark.asyncio
async def test_hover_of_the_first_line_and_of_a_question(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    top = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert top is not None and isinstance(top.contents, types.MarkupContent)
    assert "**Compared with bm25**" in top.contents.value
    assert "questions needed" in top.contents.value
    text = ws.text(GOLDEN)
    at = range_of(text, "cant-login-app:", ws.encoding).start
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "| vs bm25 (base) |" in hover.contents.value
    assert re.search(r"\n\| dense \| [▲▼=] [+-]\d\.\d{4} \|", hover.contents.value)


@pytest.mark.asyncio
async def test_a_run_file_compares_itself_with_the_base(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    uri = await open_doc(client, ws, "runs/dense.run.yaml")
    await diagnostics(client, uri, version=1)
    titles = [
        lens.command.title
        for lens in await lenses(client, uri)
        if lens.command and lens.range.start.line == 0
    ]
    m = next(m for t in titles if (m := TITLE.match(t)))
    c = next(
        c
        for c in cli_compare(ws, tmp_path)["comparisons"]
        if c["run"] == "dense" and c["metric"] == m["metric"]
    )
    assert m["base"] == "bm25" and m["delta"] == f"{c['delta']:+.2f}"


@pytest.mark.asyncio
async def test_compare_to_naming_no_run_is_qr115_and_a_name_picks_the_base(
    client: LanguageClient, ws: Workspace
) -> None:
    text = ws.text(GOLDEN).replace("queries:", "compare_to: densee\nqueries:", 1)
    uri = await open_doc(client, ws, GOLDEN, text)
    found = [d for d in await diagnostics(client, uri, version=1) if d.code == "QR115"]
    assert len(found) == 1 and found[0].range == range_of(text, "densee", ws.encoding)
    assert "`densee` names no run" in found[0].message and "`dense`" in found[0].message
    fixed = text.replace("compare_to: densee", "compare_to: dense")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert not [d for d in await diagnostics(client, uri, version=2) if d.code == "QR115"]
    header = [lens.command.title for lens in await lenses(client, uri) if lens.command]
    runs = [m["run"] for t in header if (m := TITLE.match(t))]
    assert runs == ["bm25", "passages", "hybrid", "rrf"]


@pytest.mark.asyncio
async def test_lens_requests_in_flight_together_all_get_the_comparison(
    client: LanguageClient, ws: Workspace
) -> None:
    """VS Code asks again while the first answer is being made (the first comparison of a
    server imports scipy): every answer has the comparison or says it is being made (never a
    part of it), and one comparison job serves them all: once it is made, every answer has it."""
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)  # analysed: later requests need no analysis
    first = asyncio.ensure_future(raw_lenses(client, uri))
    asked = []
    # ask again and again while the first comparison is being made (a bounded number of times:
    # the comparison must finish while the server is asked, never wait for the asking to stop)
    while not first.done() and len(asked) < 500:
        asked.append(asyncio.ensure_future(raw_lenses(client, uri)))
        await asyncio.sleep(0)  # not a wait: a loop turn, the requests go out one after another
    assert len(asked) > 1
    want = ["dense vs bm25", "passages vs bm25", "hybrid vs bm25", "rrf vs bm25"]
    for answer in [*await asyncio.gather(first, *asked), await settled_lenses(client, uri)]:
        header = [t.command.title for t in answer if t.command and t.range.start.line == 0]
        compared = [t.split(": ")[0] for t in header if " vs " in t]
        assert compared == want or (not compared and "comparing with bm25…" in header), header
    assert compared == want


@pytest.mark.asyncio
async def test_editing_a_judgment_updates_the_comparison(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    """Each edit re-compares (the Comparer corrects the edited question): after every one the
    first line says what `compare` says of the file as it now is."""
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN, text)
    edits = [
        ("      kb/two-factor-authentication.md: 1\n", ""),
        ("relevant: [kb/local-admin-page.md]", "relevant: [kb/local-admin-page.md, kb/x.md]"),
        ("      kb/factory-reset.md: 1\n", "      kb/factory-reset.md: 3\n"),
    ]
    for version, (old, new) in enumerate(edits, start=2):
        assert old in text
        text = text.replace(old, new, 1)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        await diagnostics(client, uri, version=version)
        header = await settled_header(client, uri)
        shown = {m["run"]: m for t in header if (m := TITLE.match(t))}
        (ws.root / GOLDEN).write_text(text, encoding="utf-8")
        doc = cli_compare(ws, tmp_path)
        for c in doc["comparisons"]:
            if c["metric"] != "recall@5":
                continue
            m = shown[c["run"]]
            assert m["delta"] == f"{c['delta']:+.2f}"
            assert m["verdict"].startswith(c["verdict"]) and m["p"] == p_text(c["p_adjusted"])
            assert (int(m["w"]), int(m["l"]), int(m["t"])) == (c["wins"], c["losses"], c["ties"])


@pytest.mark.asyncio
async def test_the_first_lines_hover_answers_per_tag(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    """The demo tags its account and billing questions: the hover has a row per tag and run,
    with `compare --by tag`'s verdicts (each tag a family of its own)."""
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    top = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert top is not None and isinstance(top.contents, types.MarkupContent)
    config = tmp_path / "outside.toml"
    config.write_text("bm25_baseline = false\n", encoding="utf-8")
    out = subprocess.run(
        [*CLI, "compare", str(ws.root / GOLDEN), "--config", str(config), "--by", "tag",
         "--metrics", "recall@5", "--format", "json"],
        capture_output=True, text=True, check=True, cwd=ws.root,
    )  # fmt: skip
    tagged = [c for c in json.loads(out.stdout)["comparisons"] if c["tag"] is not None]
    assert {c["tag"] for c in tagged} == {"account", "billing"}
    rows = [
        r for r in top.contents.value.splitlines() if r.startswith(("| account |", "| billing |"))
    ]
    assert len(rows) == len(tagged)
    for row, c in zip(rows, tagged, strict=True):
        cells = [x.strip() for x in row.strip("|").split("|")]
        assert cells[:3] == [c["tag"], str(c["n_queries"]), c["run"]]
        assert cells[3].startswith(c["verdict"]) and cells[4] == f"{c['delta']:+.4f}"
