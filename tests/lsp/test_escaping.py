"""The hostile workspace of tests/hostile_world.py over stdio, through the real server: the first
line's hover (whose lens titles quote the runs' `name:`), each question's hover, lens titles,
inlay hints, code action titles and diagnostics. Hovers are Markdown, rendered as GitHub and
markdown-it render them: no link but to the golden set's own lines, no image or HTML, each id in
its table cell; everything else is plain text: one printable line, whatever the data holds."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest
from hostile_world import (
    DOCS,
    GOLDEN,
    QIDS,
    RUN_NAMES,
    UNKNOWN_DOC,
    assert_inert_markdown,
    assert_plain_line,
    build,
    shown,
    yaml_str,
)
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, diagnostics, open_doc, position_of


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    """The hostile workspace instead of the demo's, for the ``client`` fixture."""
    root = tmp_path / "ws"
    build(root)
    return root


def identifier(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The golden set's diagnostics once its analysis is published (they name the document the
    corpus lacks). pygls keys open documents by their URI unquoted, so for a name that must be
    percent-encoded the server may publish under either form, without the version."""
    while True:
        for key in (uri, unquote(uri)):
            found = client.diagnostics.get(key) or []
            if any(d.code == "QR106" for d in found):
                return list(found)
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def hover_markdown(client: LanguageClient, uri: str, at: types.Position) -> str:
    got = await client.text_document_hover_async(types.HoverParams(identifier(uri), at))
    assert got is not None and isinstance(got.contents, types.MarkupContent)
    return got.contents.value


@pytest.mark.asyncio
async def test_hovers_show_every_id_and_name_as_text(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await published(client, uri)
    text = ws.text(GOLDEN)
    links = ((ws.root / GOLDEN).as_uri(),)  # the comparison's questions link to their lines
    top = await hover_markdown(client, uri, types.Position(0, 0))
    for renderer, tree in assert_inert_markdown(top, links).items():
        said = "".join(tree.text)
        assert all(shown(n) in said for n in RUN_NAMES), (renderer, said)
    for i, qid in enumerate(QIDS):
        at = position_of(text, yaml_str(qid), ws.encoding, delta=1)
        markdown = await hover_markdown(client, uri, at)
        for renderer, tree in assert_inert_markdown(markdown).items():
            assert tree.tags[:2] == [("p", {}), ("strong", {})], renderer
            judged = next(t for t in tree.tables if t[0][0] == "relevant document")
            expected = [DOCS[i], DOCS[(i + 1) % len(DOCS)], *([UNKNOWN_DOC] if i == 0 else [])]
            assert [row[0] for row in judged[1:]] == [shown(d) for d in expected], renderer
            metrics = next(t for t in tree.tables if t[0][0] == "metric")
            assert metrics[0][1:] == [shown(n) for n in RUN_NAMES], renderer


@pytest.mark.asyncio
async def test_lenses_hints_actions_and_diagnostics_are_plain_lines(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    found = await published(client, uri)
    assert any(d.code == "QR106" for d in found)  # the judged document the corpus lacks
    for d in found:
        assert_plain_line(d.message)
    await hover_markdown(client, uri, types.Position(0, 0))  # (the comparison made)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(identifier(uri)))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert sum(" vs " in t for t in titles) == 1 and len(titles) > len(QIDS)
    for title in titles:
        assert_plain_line(title)
    lines = ws.text(GOLDEN).count("\n") + 1
    whole = types.Range(types.Position(0, 0), types.Position(lines, 0))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(identifier(uri), whole)
    )
    assert hints
    for hint in hints:
        assert isinstance(hint.label, str)
        assert_plain_line(hint.label)
    # A run's retrieved document that its question does not judge: "Judge ..." actions, which
    # name both (document 10 is question 7's fourth, unjudged: a line break in its name).
    run = "runs/head.run.yaml"
    run_uri = await open_doc(client, ws, run)
    await diagnostics(client, run_uri, version=1)
    at = position_of(ws.text(run), yaml_str(DOCS[10]), ws.encoding, delta=2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            identifier(run_uri), types.Range(at, at), types.CodeActionContext([])
        )
    )
    judge = [a.title for a in actions or [] if a.title.startswith("Judge")]
    assert judge, actions
    for title in judge:
        assert_plain_line(title)
        assert "d10line\\x0abreak.md" in title and QIDS[7] in title
