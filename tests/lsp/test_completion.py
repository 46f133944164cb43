"""Completion end to end (VS Code, Neovim 0.11, Emacs 29 capabilities): BM25 order equal to
rank_bm25's, judged ids last, exact textEdit ranges in the client's encoding, schema keys, and
query / document ids in runs."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient
from qrels_lsp.core.formats.corpus import load_corpus
from qrels_lsp.core.formats.keys import GOLDEN_KEYS, QUERY_KEYS
from qrels_lsp.core.search.tokens import tokenize
from qrels_lsp.ide.completion import NOT_READY
from rank_bm25 import BM25Okapi

from .applyedits import apply_text_edits
from .conftest import Workspace, next_refresh, open_doc, position_of, units

GOLDEN = "support.qrels.yaml"


async def complete(
    client: LanguageClient, uri: str, position: types.Position
) -> types.CompletionList:
    """Completion once the BM25 index is ready (the first answers may be alphabetical; the
    server asks for a refresh of the views when the index is built)."""
    while True:
        seen = client.refreshes  # type: ignore[attr-defined]
        result = await client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=position
            )
        )
        assert isinstance(result, types.CompletionList), result
        if not any(item.detail == NOT_READY for item in result.items):
            return result
        assert result.is_incomplete
        await next_refresh(client, seen)


def snippet_support(client: LanguageClient) -> bool:
    """Whether the client said it takes snippets in completion items."""
    caps = client.capabilities
    completion = caps.text_document.completion if caps and caps.text_document else None
    item = completion.completion_item if completion else None
    return bool(item and item.snippet_support)


def in_order(items: list[types.CompletionItem]) -> list[types.CompletionItem]:
    assert all(i.sort_text for i in items)
    return sorted(items, key=lambda i: i.sort_text or "")


def bm25_order(ws: Workspace, question: str) -> list[str]:
    """rank_bm25's order of the demo corpus for ``question`` (ties: corpus order)."""
    corpus = load_corpus(ws.root / "corpus")
    docs = [tokenize(d.searchable_text) for d in corpus.documents()]
    scores = BM25Okapi(docs).get_scores(tokenize(question))
    order = np.lexsort((np.arange(len(docs)), -scores))
    return [corpus.ids[i] for i in order]


@pytest.mark.asyncio
async def test_relevant_block_mapping_is_ranked_by_bm25(
    client: LanguageClient, ws: Workspace
) -> None:
    text = ws.text(GOLDEN)
    anchor = "      kb/slow-speeds-troubleshooting.md: 1\n\n  work-vpn:"
    assert anchor in text
    text = text.replace(anchor, "      kb/slow-speeds-troubleshooting.md: 1\n      \n\n  work-vpn:")
    uri = await open_doc(client, ws, GOLDEN, text)
    cursor = position_of(text, "kb/slow-speeds-troubleshooting.md: 1\n      \n", ws.encoding)
    cursor = types.Position(cursor.line + 1, 6)
    result = await complete(client, uri, cursor)
    question = "my son gets lag spikes in fortnite whenever someone is watching netflix"
    judged = {"kb/device-prioritization-qos.md": 3, "kb/slow-speeds-troubleshooting.md": 1}
    order = bm25_order(ws, question)
    expected = [d for d in order if d not in judged] + [d for d in order if d in judged]
    items = in_order(result.items)
    assert [i.label for i in items] == expected
    assert not result.is_incomplete
    # a judgment in a mapping comes with its grade: a placeholder to type over where the client
    # takes snippets (VS Code, Neovim), `: 1` where it does not (Emacs without yasnippet)
    snippets = snippet_support(client)
    for item in items:
        assert item.filter_text == item.label
        entry = f"{item.label}: ${{1:1}}" if snippets else f"{item.label}: 1"
        assert item.text_edit == types.TextEdit(
            range=types.Range(start=cursor, end=cursor), new_text=entry
        )
        assert item.insert_text_format == (types.InsertTextFormat.Snippet if snippets else None)
        if item.label in judged:
            assert item.detail == f"already judged (grade {judged[item.label]})"
        else:
            assert item.detail is not None and item.detail.startswith("BM25")
    top = items[0]
    doc = top.documentation
    text_of_doc = doc.value if isinstance(doc, types.MarkupContent) else doc
    assert text_of_doc is not None and f"`{top.label}`" in text_of_doc
    markdown = ws.encoding != "utf-32"  # Emacs 29 declares plain-text documentation only
    assert isinstance(doc, types.MarkupContent) == markdown


@pytest.mark.asyncio
async def test_half_typed_flow_list_with_emoji_and_cjk(
    client: LanguageClient, ws: Workspace
) -> None:
    text = (
        "corpus: corpus/\n"
        "queries:\n"
        "  q😀:\n"
        "    question: 路由器😀 how do I wipe everything and start over 🙂\n"
        '    relevant: ["kb/😀.md", kb/路由器.md, kb/fa\n'
        "  other:\n"
        "    question: guest wifi\n"
    )
    uri = await open_doc(client, ws, "emoji.qrels.yaml", text)
    line = '    relevant: ["kb/😀.md", kb/路由器.md, kb/fa'
    cursor = types.Position(4, units(line, ws.encoding))
    result = await complete(client, uri, cursor)
    assert [i.label for i in result.items] == ["kb/factory-reset.md"]
    item = result.items[0]
    start = types.Position(4, units('    relevant: ["kb/😀.md", kb/路由器.md, ', ws.encoding))
    assert item.text_edit == types.TextEdit(
        range=types.Range(start=start, end=cursor), new_text="kb/factory-reset.md"
    )
    assert item.detail is not None and item.detail.startswith("BM25 ")
    applied = apply_text_edits(text, [item.text_edit], ws.encoding)  # type: ignore[list-item]
    assert applied == text.replace("kb/路由器.md, kb/fa\n", "kb/路由器.md, kb/factory-reset.md\n")
    doc = item.documentation
    value = doc.value if isinstance(doc, types.MarkupContent) else doc
    assert value is not None and value.startswith("**")
    assert "`kb/factory-reset.md`" in value


@pytest.mark.asyncio
@pytest.mark.parametrize("quote", ['"', "'"])
async def test_completion_in_an_unclosed_quote_keeps_the_bracket(
    client: LanguageClient, ws: Workspace, quote: str
) -> None:
    """`["kb/local-admin-page.md", "kb/fa]`: the id replaces what was typed after the quote and
    closes it; the `]` the user wrote stays."""
    line = f"    relevant: [{quote}kb/local-admin-page.md{quote}, {quote}kb/fa]"
    text = f"corpus: corpus/\nqueries:\n  q1:\n    question: wipe everything\n{line}\n"
    uri = await open_doc(client, ws, "quote.qrels.yaml", text)
    cursor = types.Position(4, units(line[:-1], ws.encoding))
    result = await complete(client, uri, cursor)
    item = next(i for i in result.items if i.label == "kb/factory-reset.md")
    applied = apply_text_edits(text, [item.text_edit], ws.encoding)  # type: ignore[list-item]
    want = f"{quote}kb/local-admin-page.md{quote}, {quote}kb/factory-reset.md{quote}]"
    assert applied == text.replace(line, f"    relevant: [{want}")
    assert yaml.safe_load(applied)["queries"]["q1"]["relevant"][1] == "kb/factory-reset.md"


@pytest.mark.asyncio
@pytest.mark.slow
async def test_schema_keys_not_already_present(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    anchor = "    relevant: [kb/local-admin-page.md]\n"
    text = text.replace(anchor, anchor + "    \n", 1)
    text = text.replace("corpus: corpus/\n", "corpus: corpus/\n\n", 1)
    uri = await open_doc(client, ws, GOLDEN, text)
    at_query = position_of(text, anchor + "    \n", ws.encoding)
    result = await complete(client, uri, types.Position(at_query.line + 1, 4))
    # browser-admin has question, relevant and tags already: the keys it lacks are offered
    assert [i.label for i in in_order(result.items)] == ["unanswerable", "notes"]
    for item in result.items:
        doc = item.documentation
        value = doc.value if isinstance(doc, types.MarkupContent) else doc
        assert value == QUERY_KEYS[item.label]
        assert item.text_edit is not None and item.text_edit.new_text == f"{item.label}: "
    top_line = position_of(text, "corpus: corpus/\n\n", ws.encoding).line + 1
    result = await complete(client, uri, types.Position(top_line, 0))
    assert [i.label for i in in_order(result.items)] == [  # in the order fmt writes them
        "description",
        "relevance_level",
        "compare_to",
        "preset",
    ]
    assert {i.label: i.detail for i in result.items} == {
        "relevance_level": "golden set key",
        "compare_to": "golden set key",
        "description": "golden set key",
        "preset": "golden set key",
    }
    assert set(GOLDEN_KEYS) >= {i.label for i in result.items}


@pytest.mark.asyncio
async def test_compare_to_offers_the_runs_by_name(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN).replace("queries:", "compare_to: \nqueries:", 1)
    uri = await open_doc(client, ws, GOLDEN, text)
    at = position_of(text, "compare_to: ", ws.encoding, delta=len("compare_to: "))
    result = await complete(client, uri, at)
    # the files' runs, then the fused run the golden set declares
    assert [i.label for i in in_order(result.items)] == [
        "bm25",
        "dense",
        "passages",
        "hybrid",
        "rrf",
    ]
    assert all(i.kind == types.CompletionItemKind.Reference for i in result.items)
    assert result.items[1].text_edit is not None and result.items[1].text_edit.new_text == "dense"


@pytest.mark.asyncio
@pytest.mark.slow
async def test_run_results_offer_missing_queries(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/dense.run.yaml"
    text = ws.text(rel)
    anchor = "results:  # demo: QR202\n"
    text = text.replace(anchor, anchor + "  \n", 1)
    uri = await open_doc(client, ws, rel, text)
    line = position_of(text, anchor, ws.encoding).line + 1
    result = await complete(client, uri, types.Position(line, 2))
    golden = yaml.safe_load(ws.text(GOLDEN))["queries"]
    answered = set(yaml.safe_load(ws.text(rel))["results"])
    expected = [q for q in golden if q not in answered]
    assert expected == ["browser-admin"]
    assert [i.label for i in result.items] == expected
    item = result.items[0]
    assert item.text_edit == types.TextEdit(
        range=types.Range(types.Position(line, 2), types.Position(line, 2)),
        new_text="browser-admin:",
    )
    doc = item.documentation
    value = doc.value if isinstance(doc, types.MarkupContent) else doc
    assert value == f"**browser-admin**\n\n{golden['browser-admin']['question']}"


@pytest.mark.asyncio
async def test_run_ranking_offers_documents(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/dense.run.yaml"
    text = ws.text(rel)
    anchor = "    - errors/e1107-weak-backhaul.md\n"
    at = text.index(anchor) + len(anchor)
    text = text[:at] + "    - errors/e\n" + text[at:]
    uri = await open_doc(client, ws, rel, text)
    line = text.count("\n", 0, at)
    cursor = types.Position(line, len("    - errors/e"))
    result = await complete(client, uri, cursor)
    ranking = yaml.safe_load(ws.text(rel))["results"]["e3050-used-hub"]
    question = yaml.safe_load(ws.text(GOLDEN))["queries"]["e3050-used-hub"]["question"]
    order = [d for d in bm25_order(ws, question) if "errors/e" in d]
    expected = [d for d in order if d not in ranking] + [d for d in order if d in ranking]
    items = in_order(result.items)
    assert [i.label for i in items] == expected
    by_label = {i.label: i for i in items}
    assert by_label["errors/e1107-weak-backhaul.md"].detail == "already in this ranking"
    e3050 = by_label["errors/e3050-cloud-link-failed.md"].detail
    assert e3050 == "already in this ranking · judged grade 3 in the golden set"
    for item in items:
        assert item.text_edit is not None
        assert item.text_edit.range == types.Range(types.Position(line, 6), cursor)
