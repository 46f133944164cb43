"""Stale judgments in the editor, over stdio: a judged document changed since the lock was
written is a diagnostic on its judgment's line, with an action that accepts the change (its
line of the lock rewritten) and one that judges it again (the judging view opens on that very
pair, first in the queue), and the judging lens counts it (docs/history.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, diagnostics, open_doc, titles_of
from .test_judging import read_actions_as_editors_do

GOLDEN = "g.qrels.yaml"
TEXT = """\
judgments: exhaustive
corpus: corpus/
runs: [r.trec]
queries:
  q1:
    question: first
    relevant: [kb/a.md, kb/b.md]
  q2:
    question: second
    relevant: [kb/c.md]
"""


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name in ("a", "b", "c", "d"):
        (root / "corpus" / "kb").mkdir(parents=True, exist_ok=True)
        (root / "corpus" / "kb" / f"{name}.md").write_text(f"# {name}\n\ntext of {name}\n")
    (root / GOLDEN).write_text(TEXT, encoding="utf-8")
    (root / "r.trec").write_text("q1 Q0 kb/d.md 1 2 r\nq2 Q0 kb/c.md 1 2 r\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "lock", GOLDEN], cwd=root, check=True,
        capture_output=True,
    )  # fmt: skip
    (root / "corpus" / "kb" / "b.md").write_text("# b\n\nrewritten\n")
    return root


@pytest.mark.asyncio
async def test_a_changed_document_offers_to_accept_or_judge_again(
    client: LanguageClient, ws: Workspace
) -> None:
    read_actions_as_editors_do(client)
    uri = await open_doc(client, ws, GOLDEN)
    found = [d for d in await diagnostics(client, uri, version=1) if d.code == "QR131"]
    assert [d.range.start.line for d in found] == [6]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found[0].range,
            context=types.CodeActionContext(diagnostics=found),
        )
    )
    titles = {a.title: a for a in actions or [] if isinstance(a, types.CodeAction)}
    accept = titles["Accept the change to `kb/b.md` (update g.qrels.yaml.lock)"]
    assert accept.edit is not None
    changes = accept.edit.document_changes or []
    assert [c.text_document.uri for c in changes] == [ws.uri("g.qrels.yaml.lock")]  # type: ignore[union-attr]
    again = titles["Judge `kb/b.md` again for `q1`"]
    assert again.command is not None
    picked = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(again.command.command, again.command.arguments)
    )
    assert (picked["query"], picked["doc"]) == ("q1", "kb/b.md")
    got = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    first = [t for lens in got or [] if lens.range.start.line == 0 for t in titles_of(lens)]
    assert "1 stale judgment · 1 unjudged in the top 10 · judge next" in first
