"""Judge next over stdio (issue 16): the first line's judging lens counts the queue `qrels-lsp
pool` prints; its command selects the head pair's question (window/showDocument), where the inlay
hint names the document, the hover shows it and code actions write the grade as a minimal edit and
move on to the next pair; the count follows. Coverage on the first line and bounds in the
question hover; blind judging hides what the runs say."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Union

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from .applyedits import apply_workspace_edit, changed_lines
from .conftest import Workspace, lens_titles, open_doc, position_of, until_lenses

GOLDEN = "support.qrels.yaml"
JUDGE_LENS = "unjudged in the top"


def cli(ws: Workspace, *args: str) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", *args],
        capture_output=True,
        text=True,
        cwd=ws.root,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def first_line(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=doc(uri))
    )
    return [lens for lens in lenses if lens.range.start.line == 0 and lens.command]


async def judge_lens(client: LanguageClient, uri: str, count: int | None = None) -> types.CodeLens:
    """The first line's judging lens (saying ``count`` pairs, when given: waits for it)."""

    def judge(lenses: list[types.CodeLens]) -> types.CodeLens | None:
        found = [
            lens
            for lens in lenses
            if lens.range.start.line == 0 and lens.command and JUDGE_LENS in lens.command.title
        ]
        if found and (count is None or f"{count:,} unjudged in the top" in found[0].command.title):  # type: ignore[union-attr]
            return found[0]
        return None

    found = judge(await until_lenses(client, uri, lambda lenses: judge(lenses) is not None))
    assert found is not None
    return found
    raise AssertionError(f"no judging lens with {count}: {await first_line(client, uri)}")


def grade_in(relevant: Any, doc_id: str) -> int | None:
    """A document's grade in a `relevant:` value as YAML reads it (a list: grade 1)."""
    if isinstance(relevant, dict):
        return relevant.get(doc_id)  # type: ignore[no-any-return]
    for item in relevant or []:
        if item == doc_id:
            return 1
        if isinstance(item, dict) and doc_id in item:
            return item[doc_id]  # type: ignore[no-any-return]
    return None


def read_actions_as_editors_do(client: LanguageClient) -> None:
    """lsprotocol reads any object with a ``command`` key as a Command, but a CodeAction may
    carry a command besides its edit (run after it); VS Code, Neovim and eglot tell the two
    apart by the type of ``command``, and so does the test client from here on."""
    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)  # type: ignore[no-any-return]
        return converter.structure(obj, types.CodeAction)  # type: ignore[no-any-return]

    converter.register_structure_hook(types.Command | types.CodeAction, hook)
    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


def shows_documents(client: LanguageClient) -> bool:
    window = client.capabilities.window if client.capabilities else None
    return bool(window and window.show_document and window.show_document.support)


def messages(client: LanguageClient) -> list[str]:
    return [m.message for m in client.messages]


@pytest.fixture
def shown(client: LanguageClient) -> list[types.ShowDocumentParams]:
    """The documents the server asked the editor to show (pytest-lsp answers as an editor)."""
    read_actions_as_editors_do(client)
    return client.shown_documents


@pytest.mark.asyncio
async def test_judge_next_end_to_end(
    client: LanguageClient, ws: Workspace, shown: list[types.ShowDocumentParams]
) -> None:
    queue = cli(ws, "pool", GOLDEN, "--format", "json")
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    lens = await judge_lens(client, uri)
    assert lens.command is not None and lens.command.command == "qrels-lsp.judgeNext"
    assert f"{len(queue)} unjudged in the top 10 · judge next" in lens.command.title
    # the demo lists only relevant documents (`judgments: exhaustive`): its low coverage is the
    # listing's, and the lens does not warn of it (test_judgments.py has the pooled case)
    assert lens.command.title.startswith(f"{len(queue)} unjudged")

    moved: Any = None
    for step in range(3):  # judge three pairs, each through the actions, as a judge would
        if step == 0:
            result = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(lens.command.command, lens.command.arguments)
            )
        else:
            result = moved
        head = queue[step]
        assert result == {**head, "remaining": len(queue) - step}
        # The editor was asked to show the question's id, selected (one that cannot show a
        # document, Emacs 29's eglot, is told where instead).
        qid_at = position_of(text, f"\n  {head['query']}:", ws.encoding, delta=3)
        qid_range = types.Range(
            qid_at, types.Position(qid_at.line, qid_at.character + len(head["query"]))
        )
        if shows_documents(client):
            assert shown[-1].uri == uri and shown[-1].take_focus
            assert shown[-1].selection == qid_range
        else:
            assert f"Judge next: {head['doc']} for {head['query']}." in messages(client)
        # There: the hint names the document, the hover shows it, the actions judge it.
        hints = await client.text_document_inlay_hint_async(
            types.InlayHintParams(
                doc(uri), types.Range(types.Position(0, 0), types.Position(10_000, 0))
            )
        )
        assert [h.label for h in hints if h.position.line == qid_at.line] == [
            f"judge: {head['doc']}"
        ]
        hover = await client.text_document_hover_async(types.HoverParams(doc(uri), qid_at))
        assert hover is not None
        value = hover.contents.value  # type: ignore[union-attr]
        assert value.startswith(f"**Judge next** for `{head['query']}`: `{head['doc']}`")
        assert "Best-matching lines" in value
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(doc(uri), qid_range, types.CodeActionContext(diagnostics=[]))
        )
        judging = [
            a
            for a in actions or []
            if isinstance(a, types.CodeAction) and a.title.startswith(f"Judge `{head['doc']}`")
        ]
        assert len(judging) == 4  # grades 0, 1, 2 and 3
        grade = [0, 1, 2][step]
        chosen = next(a for a in judging if f"(grade {grade})" in a.title)
        assert chosen.edit is not None and chosen.command is not None
        after = apply_workspace_edit(chosen.edit, {uri: text}, ws.encoding)[uri]
        removed, added = changed_lines(text, after)
        assert all(head["doc"] in line for line in added) and len(removed) <= 1  # minimal
        judged = yaml.safe_load(after)["queries"][head["query"]]["relevant"]
        assert grade_in(judged, head["doc"]) == grade
        text = after
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2 + step),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        # The action's command moves on to the next pair, and the count follows.
        moved = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(chosen.command.command, chosen.command.arguments)
        )
        lens = await judge_lens(client, uri, len(queue) - step - 1)
    assert moved == {**queue[3], "remaining": len(queue) - 3}


@pytest.mark.asyncio
async def test_question_hover_bounds_and_first_line_coverage(
    client: LanguageClient, ws: Workspace
) -> None:
    # Pooled judgments: a document not judged is unknown, so the first line shows coverage.
    pooled = ws.text(GOLDEN).replace("judgments: exhaustive", "judgments: pooled", 1)
    (ws.root / GOLDEN).write_text(pooled, encoding="utf-8")
    scores = cli(ws, "score", GOLDEN, "--bounds", "--format", "json")
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    header = [lens.command.title for lens in await first_line(client, uri)]  # type: ignore[union-attr]
    for run in scores["runs"]:
        judged = run["mean"]["judged@5"]
        assert any(
            t.startswith(f"{run['name']}: ") and f"· judged@5 {judged:.2f} (mean of" in t
            for t in header
        ), header
    qid = "slow-far-room"
    at = position_of(text, f"\n  {qid}:", ws.encoding, delta=3)
    hover = await client.text_document_hover_async(types.HoverParams(doc(uri), at))
    assert hover is not None
    value = hover.contents.value  # type: ignore[union-attr]
    assert "**If the unjudged were relevant**" in value
    for run in scores["runs"]:
        row = run["queries"][qid]
        line = next(x for x in value.splitlines() if x.startswith(f"- {run['name']} ("))
        part = f"recall@5 {row['recall@5']:.2f}"
        if row["upper"]["recall@5"] > row["recall@5"]:
            assert f"{part} (up to {row['upper']['recall@5']:.2f} if the " in line, line
        else:
            assert part in line


@pytest.mark.asyncio
async def test_blind_judging_hides_what_the_runs_say(
    client: LanguageClient, ws: Workspace, shown: list[types.ShowDocumentParams]
) -> None:
    client.set_configuration({"bm25_baseline": False, "blind_judging": True}, section="qrels")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"qrels": {"bm25_baseline": False, "blind_judging": True}}
        )
    )
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    lenses = await until_lenses(
        client, uri, lambda found: any("blind judging" in t for t in lens_titles(found))
    )
    titles = lens_titles(lenses)
    assert not any(name in t for t in titles for name in ("dense", "bm25", "hybrid", "recall@"))
    lens = await judge_lens(client, uri)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lens.command.command, lens.command.arguments)  # type: ignore[union-attr]
    )
    at = position_of(text, f"\n  {result['query']}:", ws.encoding, delta=3)
    hover = await client.text_document_hover_async(types.HoverParams(doc(uri), at))
    value = hover.contents.value  # type: ignore[union-attr]
    assert value.startswith(f"**Judge next** for `{result['query']}`")
    assert not any(name in value for name in ("dense", "hybrid", "bm25", "best #", "recall@"))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            doc(uri), types.Range(types.Position(0, 0), types.Position(10_000, 0))
        )
    )
    assert [h.label for h in hints] == [f"judge: {result['doc']}"]  # no run's ranks
    assert not any(t.startswith("report:") for t in titles)  # the report is the runs' numbers
    # the first line's hover (no comparison) and a judged id's (no ranks) say nothing of a run
    first = await client.text_document_hover_async(
        types.HoverParams(doc(uri), types.Position(0, 1))
    )
    judged_id = position_of(text, "kb/account-login-problems.md", ws.encoding, delta=2)
    judged = await client.text_document_hover_async(types.HoverParams(doc(uri), judged_id))
    for h in (first, judged):
        shown = h.contents.value if h is not None else ""  # type: ignore[union-attr]
        assert not any(name in shown for name in ("dense", "hybrid", "bm25", "#1", "compared")), (
            shown
        )
