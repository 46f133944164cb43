"""textDocument/completion: the editor layer's candidates (``ide/completion.py``): corpus ids
ranked by BM25 in ``relevant:`` and rankings, query ids in a run's ``results:``, the formats' keys.

An item that leaves a value to type (an id added to a mapping, `id: 1`) is a snippet whose
value is the placeholder, for clients that take snippets; the same text plain for the others.

Until the corpus's BM25 index is ready (it is built on the background thread, see
:mod:`..indexing`) ids come alphabetically, and the list says it is incomplete so that the client
asks again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import Positions
from ..state import State

if TYPE_CHECKING:
    from ...ide.completion import Completions

TRIGGER_CHARACTERS = ["/", "[", "{", ",", " ", "-", ":"]
_KINDS = {
    "document": types.CompletionItemKind.File,
    "query": types.CompletionItemKind.Value,
    "key": types.CompletionItemKind.Property,
    "run": types.CompletionItemKind.Reference,
}


def completion_list(
    result: Completions, pos: Positions, markdown: bool, snippets: bool = False
) -> types.CompletionList:
    items = []
    for c in result.items:
        snippet = c.snippet if snippets else None
        documentation: str | types.MarkupContent | None = None
        if c.documentation is not None:
            documentation = (
                types.MarkupContent(kind=types.MarkupKind.Markdown, value=c.documentation)
                if markdown
                else c.documentation
            )
        items.append(
            types.CompletionItem(
                label=c.label,
                kind=_KINDS[c.kind],
                detail=c.detail,
                documentation=documentation,
                sort_text=c.sort_text,
                filter_text=c.filter_text,
                text_edit=types.TextEdit(
                    range=pos.range(c.edit.span),
                    new_text=c.edit.new_text if snippet is None else snippet,
                ),
                insert_text_format=None if snippet is None else types.InsertTextFormat.Snippet,
            )
        )
    return types.CompletionList(is_incomplete=result.incomplete, items=items)


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    async def completion(
        ls: LanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        from ...core.formats import get
        from ...ide.completion import complete, request_for
        from ..indexing import warm

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None or not get(analysis.kind).yaml:
            return None
        pos = session.positions(uri, analysis.text)
        req = request_for(analysis, pos.offset(params.position), session.indexes)
        if req.corpus is not None and req.index is None:
            warm(session, req.corpus, analysis)
            result = complete(req)  # alphabetical, touches no document: fine on the loop
        else:  # snippets read documents (lazily, for folder corpora): on the analysis thread
            result = await session.run(lambda: complete(req))
        if result is None:
            return None
        item = "text_document.completion.completion_item"
        formats = client.supports(f"{item}.documentation_format", None)
        markdown = bool(formats) and types.MarkupKind.Markdown in formats
        return completion_list(
            result, pos, markdown, bool(client.supports(f"{item}.snippet_support"))
        )
