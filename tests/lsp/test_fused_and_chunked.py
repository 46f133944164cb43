"""Fused runs and runs of chunks in the editor, over stdio: the demo's `rrf` (bm25 and dense
fused) and `passages` (a run of chunks, `chunks: {separator: "#"}`) have their lenses, which
follow a judgment edit and an edit of the `fusions:` and `chunks:` keys as the editor types; a
broken fusion is a diagnostic with its fix; the open run of chunks shows each chunk's document in
its inlay hints and hover, and follows the golden set's rule. Numbers are what `qrels-lsp score`
and `compare` say of the files as they are at each step (their numbers are checked against
pytrec_eval and ranx elsewhere: tests/test_chunks.py, tests/test_fusion.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, diagnostics, open_doc, range_of, settled_lenses, titles_of
from .oracle import golden_qrels

GOLDEN = "support.qrels.yaml"
PASSAGES = "runs/passages.run.yaml"
CLI = [sys.executable, "-m", "qrels_lsp.cli"]


def cli(ws: Workspace, tmp_path: Path, command: str, *args: str) -> dict[str, Any]:
    """`qrels-lsp score|compare GOLDEN --format json` with the editor's settings (no baseline)."""
    config = tmp_path / "outside.toml"
    config.write_text("bm25_baseline = false\n", encoding="utf-8")
    done = subprocess.run(
        [*CLI, command, str(ws.root / GOLDEN), *args, "--config", str(config), "--format", "json"],
        cwd=ws.root,  # the command line's workspace, as the editor's
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def summary(run: dict[str, Any], coverage: bool = False) -> str:
    """A run's first-line lens, from `score --format json` (``coverage``: with judged@k, as
    pooled judgments with a run below `min_judged` show it; the demo's are exhaustive)."""
    k, mean = run["k"], run["mean"]
    judged = f" · judged@{k} {mean[f'judged@{k}']:.2f}" if coverage else ""
    text = f"{run['name']}: recall@{k} {mean[f'recall@{k}']:.2f} · MRR {mean['mrr']:.2f}"
    text += f"{judged} (mean of {run['n_queries']})"
    if run["missing"]:
        text += f" · {len(run['missing'])} missing"
    if run["unknown"]:
        text += f" · {len(run['unknown'])} not in the golden set"
    return text


async def titles(client: LanguageClient, uri: str) -> dict[int, list[str]]:
    got = await settled_lenses(client, uri)
    out: dict[int, list[str]] = {}
    for lens in got or []:
        assert lens.command is not None
        out.setdefault(lens.range.start.line, []).extend(titles_of(lens))
    return out


async def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await diagnostics(client, uri, version=version)


async def assert_lenses_say_what_score_says(
    client: LanguageClient, ws: Workspace, tmp_path: Path, uri: str, text: str, names: list[str]
) -> dict[str, Any]:
    """The first line's lens of each of ``names`` and each question's, as `score` says of the
    file now (written to disk for it); returns `score`'s runs by name."""
    (ws.root / GOLDEN).write_text(text, encoding="utf-8")
    runs = {r["name"]: r for r in cli(ws, tmp_path, "score")["runs"]}
    shown = await titles(client, uri)
    for name in names:
        assert summary(runs[name]) in shown[0], name
    data = yaml.safe_load(text)
    for qid in ("slow-far-room", "add-satellite", "lm100-updates"):
        line = range_of(text, f"\n  {qid}:", ws.encoding).start.line + 1
        for name in names:
            v = runs[name]["queries"][qid]
            want = f"{name}: recall@{data['k']} {v['recall@5']:.2f}"
            title = next(t for t in shown[line] if t.startswith(f"{name}: "))
            assert title.replace("▲", "").replace("▼", "").startswith(want), (qid, title)
    return runs


@pytest.mark.asyncio
async def test_fused_and_chunked_lenses_follow_a_judgment_edit(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN, text)
    await diagnostics(client, uri, version=1)
    before = await assert_lenses_say_what_score_says(
        client, ws, tmp_path, uri, text, ["passages", "rrf"]
    )
    # lm100-updates: judge the LM-100 article's sibling, which passages and rrf both rank
    old = "lm100-updates:\n"
    at = text.index("relevant:", text.index(old))
    line_end = text.index("\n", at)
    edited = text[:line_end] + "\n      firmware/automatic-updates.md: 1" + text[line_end:]
    assert yaml.safe_load(edited)["queries"]["lm100-updates"]["relevant"]
    await change(client, uri, 2, edited)
    after = await assert_lenses_say_what_score_says(
        client, ws, tmp_path, uri, edited, ["passages", "rrf"]
    )
    assert after["rrf"]["queries"]["lm100-updates"] != before["rrf"]["queries"]["lm100-updates"]


@pytest.mark.asyncio
async def test_editing_the_fusions_key_remakes_the_fused_run(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN, text)
    await diagnostics(client, uri, version=1)
    fusion = "  - {name: rrf, method: rrf, runs: [bm25, dense]}"
    assert fusion in text
    # another name, another run, another k
    mixed = text.replace(fusion, "  - {name: mix, method: rrf, runs: [dense, hybrid], k: 10}")
    await change(client, uri, 2, mixed)
    runs = await assert_lenses_say_what_score_says(client, ws, tmp_path, uri, mixed, ["mix"])
    assert "rrf" not in runs and not any(
        t.startswith("rrf: ") for t in (await titles(client, uri))[0]
    )
    compared = cli(ws, tmp_path, "compare")
    assert "mix" in {c["run"] for c in compared["comparisons"]}
    # a typo: QR116 where it is written, with the fix; no lens of zeros meanwhile
    typo = mixed.replace("runs: [dense, hybrid]", "runs: [dense, hybird]")
    await change(client, uri, 3, typo)
    [found] = [d for d in client.diagnostics[uri] if d.code == "QR116"]
    assert found.range == range_of(typo, "hybird", ws.encoding)
    assert found.severity == types.DiagnosticSeverity.Error and "`hybrid`" in found.message
    assert not any(t.startswith("mix: ") for t in (await titles(client, uri))[0])
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found.range,
            context=types.CodeActionContext(diagnostics=[found]),
        )
    )
    assert any(
        isinstance(a, types.CodeAction) and a.title == "Replace with `hybrid`"
        for a in actions or []
    )
    # a score method over a run without scores: QR117 on it
    scored = mixed.replace(
        "method: rrf, runs: [dense, hybrid], k: 10", "method: combsum, runs: [bm25, hybrid]"
    )
    await change(client, uri, 4, scored)
    [found] = [d for d in client.diagnostics[uri] if d.code == "QR117"]
    start = range_of(scored, "bm25, hybrid", ws.encoding).start
    assert found.range == types.Range(start, types.Position(start.line, start.character + 4))
    # and back
    await change(client, uri, 5, text)
    assert not [d for d in client.diagnostics[uri] if d.code in ("QR116", "QR117")]
    await assert_lenses_say_what_score_says(client, ws, tmp_path, uri, text, ["rrf"])


async def hints(client: LanguageClient, uri: str, text: str) -> dict[int, str]:
    whole = types.Range(types.Position(0, 0), types.Position(text.count("\n") + 1, 0))
    got = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=whole)
    )
    out: dict[int, str] = {}
    for h in got or []:
        assert isinstance(h.label, str)
        out[h.position.line] = h.label
    return out


def expected_hints(text: str, golden: Path) -> dict[int, str]:
    """What the run of passages' hints must say, worked out from the files: `→ document ✓grade`
    for each chunk, `· dropped` after a document's later chunks."""
    qrels, _unanswerable, _k = golden_qrels(golden)
    out: dict[int, str] = {}
    qid = None
    seen: set[str] = set()
    for i, line in enumerate(text.splitlines()):
        if line.startswith("  ") and not line.startswith("    ") and line.rstrip().endswith(":"):
            qid, seen = line.strip()[:-1], set()
            continue
        if qid is None or not line.startswith("    ") or qid not in qrels:
            continue
        chunk = line.strip().split(": ")[0]
        doc = chunk.split("#")[0]
        grade = qrels[qid].get(doc)
        mark = "?" if grade is None else (f"✓{grade}" if grade >= 1 else f"✗{grade}")
        out[i] = f"→ {doc} {mark}" + (" · dropped" if doc in seen else "")
        seen.add(doc)
    return out


@pytest.mark.asyncio
async def test_the_run_of_chunks_follows_the_golden_sets_rule(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    golden_text = ws.text(GOLDEN)
    golden_uri = await open_doc(client, ws, GOLDEN, golden_text)
    run_text = ws.text(PASSAGES)
    run_uri = await open_doc(client, ws, PASSAGES, run_text)
    found = await diagnostics(client, run_uri, version=1)
    assert [d.code for d in found if d.code in ("QR206", "QR209")] == []
    crowded = [d for d in found if d.code == "QR208"]
    assert len(crowded) == 5 and crowded[0].severity == types.DiagnosticSeverity.Information
    expected = expected_hints(run_text, ws.root / GOLDEN)
    assert await hints(client, run_uri, run_text) == expected
    assert any(label.endswith("· dropped") for label in expected.values())
    # hover on a later chunk: its document, and where its first chunk is
    line = next(i for i, label in expected.items() if label.endswith("· dropped"))
    chunk = run_text.splitlines()[line].strip().split(":")[0]
    at = types.Position(line, 6)
    h = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=run_uri), position=at)
    )
    assert h is not None
    value = h.contents.value  # type: ignore[union-attr]
    assert f"Chunk `{chunk}` of `{chunk.split('#')[0]}`" in value and "is dropped" in value
    assert "adds nothing to the scores" in value
    # the run file's first lens: the run as `score` scores it, by document
    score = {r["name"]: r for r in cli(ws, tmp_path, "score")["runs"]}
    head = (await titles(client, run_uri))[0][0]
    assert head.startswith(
        f"passages vs {GOLDEN} · " + summary(score["passages"], coverage=False).split(": ", 1)[1]
    )
    # a rule that splits nothing: QR209 at the golden set's `chunks:` and on the run, no hints
    wrong = golden_text.replace('chunks: {separator: "#"}', 'chunks: {separator: "::"}')
    await change(client, golden_uri, 2, wrong)
    for _ in range(40):
        if [d for d in client.diagnostics.get(run_uri, []) if d.code == "QR209"]:
            break
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [run_209] = [d for d in client.diagnostics[run_uri] if d.code == "QR209"]
    assert run_209.range == range_of(run_text, "results", ws.encoding)
    [golden_209] = [d for d in client.diagnostics[golden_uri] if d.code == "QR209"]
    assert golden_209.range == range_of(wrong, '{separator: "::"}', ws.encoding)
    labels = await hints(client, run_uri, run_text)
    assert labels and not any(label.startswith("→") for label in labels.values())
    assert set(labels.values()) == {"?"}  # chunk ids judged as written: never
    (ws.root / GOLDEN).write_text(wrong, encoding="utf-8")
    zero = {r["name"]: r for r in cli(ws, tmp_path, "score")["runs"]}["passages"]
    assert zero["mean"]["recall@5"] == 0.0
    head = (await titles(client, run_uri))[0][0]
    assert head.startswith(
        f"passages vs {GOLDEN} · " + summary(zero, coverage=False).split(": ", 1)[1]
    )
    # the rule back: the hints again
    await change(client, golden_uri, 3, golden_text)
    for _ in range(40):
        if not [d for d in client.diagnostics.get(run_uri, []) if d.code == "QR209"]:
            break
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert await hints(client, run_uri, run_text) == expected
