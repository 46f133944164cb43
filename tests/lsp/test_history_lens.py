"""A golden set's history in the editor, over stdio: the first line says what changed since the
base revision and how the head metric moved (the numbers `qrels-lsp diff` prints, which
tests/test_history.py holds to pytrec_eval), each changed question carries its own lens, the
hover shows the table, an edit brings them up to date, and git runs nothing of the repository's
(docs/history.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from history_repo import arm, make_repo
from lsprotocol import types
from pytest_lsp import LanguageClient
from qrels_lsp.ide.history import signed

from .conftest import Workspace, diagnostics, open_doc, settled_lenses, titles_of

GOLDEN = "golden.qrels.yaml"
CLI = [sys.executable, "-m", "qrels_lsp.cli"]


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    """The golden set's first version committed on main; the second in the working tree."""
    repo = make_repo(tmp_path / "ws", commit_second=False)
    arm(repo)  # any program git would run on the repository's behalf writes a marker
    (repo.root / "qrels-lsp.toml").write_text('diff_base = "auto"\n', encoding="utf-8")
    return repo.root


def cli_diff(root: Path, tmp_path: Path) -> dict:
    """What `qrels-lsp diff` says of the same files, with the editor's settings."""
    config = tmp_path / "outside.toml"
    config.write_text("bm25_baseline = false\n", encoding="utf-8")
    out = subprocess.run(
        [*CLI, "diff", GOLDEN, "--config", str(config), "--format", "json"],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)


async def lens_lines(client: LanguageClient, uri: str) -> dict[int, list[str]]:
    """Each line's lens titles, once no comparison in them is still being made."""
    out: dict[int, list[str]] = {}
    for lens in await settled_lenses(client, uri):
        out.setdefault(lens.range.start.line, []).extend(titles_of(lens))
    return out


def expected_header(doc: dict, run: str, metric: str) -> str:
    change = next(c for c in doc["changes"] if (c["run"], c["metric"]) == (run, metric))
    named = (("judgments", "judgments"), ("run", "run_change"), ("both", "interaction"))
    parts = ", ".join(f"{n} {signed(change[key], 2)}" for n, key in named if change[key])
    return f"{run}: {metric} {signed(change['total'], 2)} ({parts})"


def expected_question(doc: dict, run: str, qid: str) -> str:
    change = next(c for c in doc["changes"] if (c["run"], c["metric"]) == (run, "recall@5"))
    part = change["questions"][qid]
    named = (("judgments", "judgments"), ("run", "run_change"), ("both", "interaction"))
    parts = ", ".join(f"{n} {signed(part[key], 2)}" for n, key in named if part[key])
    return f"{run} {signed(part['total'], 2)} ({parts})"


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n")


@pytest.mark.asyncio
async def test_the_first_line_and_each_changed_question_say_what_diff_says(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    lines = await lens_lines(client, uri)
    (since,) = [t for t in lines[0] if t.startswith("since main: ")]
    doc = cli_diff(ws.root, tmp_path)
    assert since.startswith("since main: +1 question, -1 question, 1 renamed, 1 reworded")
    assert expected_header(doc, "bm25", "recall@5") in since
    text = ws.text(GOLDEN)
    assert "since main: new question" in lines[line_of(text, "  pairing:")][-1]
    assert lines[line_of(text, "  wifi-evening:")][-1].startswith("since main: renamed from wifi")
    assert "reworded" in lines[line_of(text, "  invoice:")][-1]
    reset = lines[line_of(text, "  reset:")][-1]
    assert reset.startswith("since main: +1 judgment, -1 judgment, 1 regraded · recall@5 bm25 ")
    got = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    (lens,) = [x for x in got or [] if x.command and x.command.title.startswith("since main")]
    assert lens.command is not None and lens.command.command == "qrels-lsp.history"
    table = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lens.command.command, lens.command.arguments)
    )
    assert "renamed: wifi → wifi-evening" in table and "| bm25 | recall@5 |" in table
    assert not (ws.root / "git-ran-a-program").exists()


@pytest.mark.asyncio
async def test_an_edit_brings_the_history_up_to_date(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    await lens_lines(client, uri)
    text = ws.text(GOLDEN).replace("{d9: 3, d10: 1, d12: 2}", "{d9: 3, d10: 1}")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await diagnostics(client, uri, version=2)
    lines = await lens_lines(client, uri)
    (ws.root / GOLDEN).write_text(text, encoding="utf-8")  # what `diff` reads
    doc = cli_diff(ws.root, tmp_path)
    (since,) = [t for t in lines[0] if t.startswith("since main: ")]
    assert expected_header(doc, "bm25", "recall@5") in since
    assert "+1 judgment," in since  # reset's d4 (invoice's d12 is gone again)
    invoice = lines[line_of(text, "  invoice:")][-1]  # its judgments are as first written
    assert invoice == "since main: reworded · recall@5 " + ", ".join(
        expected_question(doc, run, "invoice") for run in ("bm25", "dense")
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert hover is not None
    value = hover.contents.value  # type: ignore[union-attr]
    assert "| run | metric | before | after | total | judgments | run | interaction |" in value
    assert not (ws.root / "git-ran-a-program").exists()
