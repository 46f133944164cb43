"""Completion: corpus ids ranked by BM25 in ``relevant:`` and rankings, query ids in a run's
``results:``, and the schema's keys (see :mod:`qrels_lsp.core.completion`).

The BM25 index of a corpus is built once, on the analysis thread, as soon as a file that uses the
corpus has been analysed; until it is ready, ids come alphabetically (and the items say so, with
``isIncomplete`` set so that the client asks again).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..core.completion import Completions, Request, complete
from ..core.corpus import Corpus
from ..core.indexes import IndexCache
from ..core.model import Qrels, Run
from ..core.project import Analysis
from .convert import Positions

if TYPE_CHECKING:
    from .server import QrelsServer

TRIGGER_CHARACTERS = ["/", "[", "{", ",", " ", "-", ":"]
INDEX_TITLE = "Indexing corpus (BM25)"
_KINDS = {
    "document": types.CompletionItemKind.File,
    "query": types.CompletionItemKind.Value,
    "key": types.CompletionItemKind.Property,
}


def corpus_of(analysis: Analysis) -> Corpus | None:
    ctx = analysis.context
    return ctx.corpus if ctx is not None and isinstance(ctx.corpus, Corpus) else None


def request_for(analysis: Analysis, offset: int, indexes: IndexCache) -> Request:
    ctx = analysis.context
    model = analysis.model
    corpus = corpus_of(analysis)
    return Request(
        kind=analysis.kind,
        text=analysis.text,
        offset=offset,
        qrels=ctx.qrels if ctx is not None else (model if isinstance(model, Qrels) else None),
        run=model if isinstance(model, Run) else None,
        corpus=corpus,
        index=indexes.get(corpus) if corpus is not None else None,
    )


def completion_list(result: Completions, pos: Positions, markdown: bool) -> types.CompletionList:
    items = []
    for c in result.items:
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
                text_edit=types.TextEdit(range=pos.range(c.edit.span), new_text=c.edit.new_text),
            )
        )
    return types.CompletionList(is_incomplete=result.incomplete, items=items)


def register(server: QrelsServer) -> None:
    indexes = server.session.indexes
    builds: set[asyncio.Future[Any]] = set()

    def warm(corpus: Corpus) -> None:
        """Build the corpus's index on the analysis thread, once, in the background."""
        if not indexes.claim(corpus):
            return

        def progress(done: int, total: int) -> None:
            server.progress_from_thread(INDEX_TITLE, done, total)

        future = asyncio.ensure_future(server.session.run(lambda: indexes.build(corpus, progress)))
        builds.add(future)
        future.add_done_callback(builds.discard)
        future.add_done_callback(lambda _: server.session.reanalyse_open())  # the baseline lenses

    def on_analysis(uri: str, analysis: Analysis) -> None:
        corpus = corpus_of(analysis)
        if corpus is not None and analysis.kind in ("golden", "run-yaml"):
            warm(corpus)

    server.session.on_analysis.append(on_analysis)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    async def completion(
        ls: QrelsServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        uri = params.text_document.uri
        if not ls.session.is_ours(uri):
            return None
        analysis = await ls.session.analysis(uri)
        if analysis is None or analysis.kind not in ("golden", "run-yaml"):
            return None
        pos = ls.session.positions(uri, analysis.text)
        req = request_for(analysis, pos.offset(params.position), indexes)
        if req.corpus is not None and req.index is None:
            warm(req.corpus)
            result = complete(req)  # alphabetical, touches no document: fine on the loop
        else:
            # Snippets read documents (lazily, for folder corpora): on the analysis thread.
            result = await ls.session.run(lambda: complete(req))
        if result is None:
            return None
        formats = ls.client_supports(
            "text_document.completion.completion_item.documentation_format", None
        )
        markdown = bool(formats) and types.MarkupKind.Markdown in formats
        return completion_list(result, pos, markdown)
