"""Navigation: go to a document in the corpus or a query's golden-set entry, find every place a
document or query is cited, the outline of a file and the queries of every golden set.

What is under the cursor and where else it is cited is answered by :mod:`..core.locate`; this
module turns offsets and corpus lines into locations in the client's position encoding.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..core.corpus import Corpus, Document
from ..core.locate import Loaded, Target, citations, family, locate, query_span
from ..core.model import Qrels, Query, Run
from ..core.project import Analysis, Project
from ..core.text import LineIndex, Span
from .convert import Positions, RawJSON, uri_of
from .pieces import LINE, Last, PieceCache, Placed

if TYPE_CHECKING:
    from .server import QrelsServer

MAX_OUTLINE_CHILDREN = 5000
"""Documents listed under queries in an outline; a bigger file lists its queries only."""
MAX_WORKSPACE_SYMBOLS = 1000


def _read_line(path: Path, line: int) -> str | None:
    """One line of a file (line breaks as LineIndex counts them), without reading it whole."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace", newline=None) as f:
            found = next(itertools.islice(f, line, line + 1), None)
    except OSError:
        return None
    return found.rstrip("\n") if found is not None else None


def document_location(
    ls: QrelsServer, doc: Document
) -> types.Location:  # on the analysis thread: reads a line of the corpus file
    uri = uri_of(doc.path)
    if doc.line is None:  # a folder corpus: the file is the document
        start = types.Position(line=0, character=0)
        return types.Location(uri=uri, range=types.Range(start=start, end=start))
    open_doc = ls.workspace.text_documents.get(uri)
    if open_doc is not None:
        lines = LineIndex(open_doc.source)
        text = lines.line_text(doc.line) if doc.line < lines.line_count else ""
    else:
        text = _read_line(doc.path, doc.line) or ""
    pos = Positions(text, ls.session.positions(uri, "").encoding)
    span = doc.id_span or Span(0, 0)
    start, end = pos.position(span.start), pos.position(span.end)
    return types.Location(
        uri=uri,
        range=types.Range(
            start=types.Position(line=doc.line, character=start.character),
            end=types.Position(line=doc.line, character=end.character),
        ),
    )


def _corpus_document(analysis: Analysis, doc_id: str) -> Document | None:
    ctx = analysis.context
    if ctx is None or not isinstance(ctx.corpus, Corpus):
        return None
    return ctx.corpus.get(doc_id)


def _location(ls: QrelsServer, loaded: Loaded, span: Span) -> types.Location:
    uri = uri_of(loaded.path)
    return types.Location(uri=uri, range=ls.session.positions(uri, loaded.text).range(span))


def definition(ls: QrelsServer, analysis: Analysis, target: Target) -> list[types.Location]:
    project = ls.session.project
    if target.kind in ("judged", "retrieved") and target.doc_id is not None:
        doc = _corpus_document(analysis, target.doc_id)
        return [document_location(ls, doc)] if doc is not None else []
    if target.kind == "query" and target.qid is not None:
        golden, _runs = family(project, analysis)
        span = query_span(golden.model, target.qid) if golden is not None else None
        return [_location(ls, golden, span)] if golden is not None and span is not None else []
    return []


def references(
    ls: QrelsServer, analysis: Analysis, target: Target, include_declaration: bool
) -> list[types.Location]:
    project = ls.session.project
    golden, runs = family(project, analysis)
    files = ([golden] if golden is not None else []) + runs
    out: list[types.Location] = []
    if target.kind in ("judged", "retrieved") and target.doc_id is not None:
        if include_declaration:
            doc = _corpus_document(analysis, target.doc_id)
            if doc is not None:
                out.append(document_location(ls, doc))
        for loaded in files:
            out += [_location(ls, loaded, c.span) for c in citations(loaded.model, target.doc_id)]
        return out
    if target.kind == "query" and target.qid is not None:
        for loaded in files:
            if loaded is golden and not include_declaration:
                continue
            span = query_span(loaded.model, target.qid)
            if span is not None:
                out.append(_location(ls, loaded, span))
    return out


def outline(
    model: Qrels | Run, pos: Positions
) -> list[types.DocumentSymbol]:  # queries, with their documents when the file is not huge
    if isinstance(model, Qrels):
        total = sum(len(q.judgments) for q in model.queries.values())
        out = []
        for q in model.queries.values():
            children = [
                types.DocumentSymbol(
                    name=j.doc_id,
                    detail=f"grade {j.grade}",
                    kind=types.SymbolKind.File,
                    range=pos.range(j.span),
                    selection_range=pos.range(j.span),
                )
                for j in q.judgments
            ]
            out.append(
                types.DocumentSymbol(
                    name=q.qid,
                    detail=_detail(q),
                    kind=types.SymbolKind.Key,
                    range=pos.range(q.block),
                    selection_range=pos.range(q.span),
                    children=children if total <= MAX_OUTLINE_CHILDREN else None,
                )
            )
        return out
    total = sum(len(r.docs) for r in model.rankings.values())
    runs = []
    for r in model.rankings.values():
        children = [
            types.DocumentSymbol(
                name=d.doc_id,
                detail=f"#{rank}",
                kind=types.SymbolKind.File,
                range=pos.range(d.span),
                selection_range=pos.range(d.span),
            )
            for rank, d in enumerate(r.docs, start=1)
        ]
        runs.append(
            types.DocumentSymbol(
                name=r.qid,
                detail=f"{len(r.docs)} result{'s' if len(r.docs) != 1 else ''}",
                kind=types.SymbolKind.Key,
                range=pos.range(r.block),
                selection_range=pos.range(r.span),
                children=children if total <= MAX_OUTLINE_CHILDREN else None,
            )
        )
    return runs


class OutlineEncoder:
    """A golden set's outline as JSON, each question's symbol encoded once and the last response
    patched after an edit of one entry (see :mod:`.pieces`): editors ask for the outline after
    every keystroke, and ten thousand symbols made as lsprotocol objects took half a second."""

    def __init__(self) -> None:
        self._pieces = PieceCache()

    def encode(self, pos: Positions, analysis: Analysis) -> bytes:
        model = analysis.model
        assert isinstance(model, Qrels)
        last = self._pieces.last(pos, analysis)
        changed = self._changes(pos, model, last) if last is not None else None
        if last is not None and changed is not None:
            patched = self._pieces.patch(pos, analysis, last, *changed)
            if patched is not None:
                return patched
        total = sum(len(q.judgments) for q in model.queries.values())
        children = total <= MAX_OUTLINE_CHILDREN
        at = {qid: i for i, qid in enumerate(model.queries)}
        parts = [self._symbol(pos, q, children) for q in model.queries.values()]
        return self._pieces.answer(pos, analysis, parts, at, total)

    def _changes(
        self, pos: Positions, model: Qrels, last: Last
    ) -> tuple[dict[int, Placed], int] | None:
        """The changed questions' symbols and the new count of documents; None when that count
        crosses the limit for listing them (then every symbol changes)."""
        before = last.analysis.model
        assert isinstance(before, Qrels) and isinstance(last.extra, int)
        edited = [model.queries[qid] for qid in last.changed if qid in model.queries]
        total = last.extra + sum(
            len(q.judgments) - len(before.queries[q.qid].judgments) for q in edited
        )
        children = total <= MAX_OUTLINE_CHILDREN
        if children != (last.extra <= MAX_OUTLINE_CHILDREN):
            return None
        return {last.at[q.qid]: self._symbol(pos, q, children) for q in edited}, total

    def _symbol(self, pos: Positions, q: Query, children: bool) -> Placed:
        position, enc = pos.lines.position, pos.encoding
        first = position(q.block.start, enc)[0]

        def where(span: Span) -> tuple[int, int, int, int]:  # lines relative to the entry's
            (l1, c1), (l2, c2) = position(span.start, enc), position(span.end, enc)
            return (l1 - first, c1, l2 - first, c2)

        docs = tuple((j.doc_id, j.grade, where(j.span)) for j in q.judgments) if children else None
        key = (q.qid, _detail(q), where(q.block), where(q.span), docs)
        return self._pieces.piece(
            key, first, lambda: json.dumps(_symbol_json(*key), separators=(",", ":"))
        )


def _range_json(where: tuple[int, int, int, int]) -> dict[str, Any]:
    l1, c1, l2, c2 = where
    start = {"line": LINE + l1, "character": c1}
    return {"start": start, "end": {"line": LINE + l2, "character": c2}}


def _symbol_json(
    name: str,
    detail: str | None,
    block: tuple[int, int, int, int],
    span: tuple[int, int, int, int],
    docs: tuple[tuple[str, int, tuple[int, int, int, int]], ...] | None,
) -> dict[str, Any]:
    """A DocumentSymbol as lsprotocol writes it (no null fields) for one question."""
    out: dict[str, Any] = {"name": name}
    if detail is not None:
        out["detail"] = detail
    out |= {
        "kind": types.SymbolKind.Key.value,
        "range": _range_json(block),
        "selectionRange": _range_json(span),
    }
    if docs is not None:
        out["children"] = [
            {
                "name": doc_id,
                "detail": f"grade {grade}",
                "kind": types.SymbolKind.File.value,
                "range": _range_json(where),
                "selectionRange": _range_json(where),
            }
            for doc_id, grade, where in docs
        ]
    return out


def _detail(q: Query) -> str | None:
    """A question's symbol detail: its text, cut to fit an outline line."""
    text = (q.question or "").strip()
    return (text[:80] + "…" if len(text) > 80 else text) or None


def _flatten(
    symbols: list[types.DocumentSymbol], uri: str, container: str | None = None
) -> list[types.SymbolInformation]:
    out = []
    for s in symbols:
        out.append(
            types.SymbolInformation(
                name=s.name,
                kind=s.kind,
                location=types.Location(uri=uri, range=s.range),
                container_name=container,
            )
        )
        out += _flatten(list(s.children or []), uri, s.name)
    return out


def matches(query: str, qid: str, question: str | None) -> bool:
    """Workspace-symbol filter: the query's letters in order in the id, or its words in the
    question (case-insensitive); an empty query matches everything."""
    needle = query.strip().lower()
    if not needle:
        return True
    letters = iter(qid.lower())
    if all(c in letters for c in needle if not c.isspace()):
        return True
    text = (question or "").lower()
    return all(word in text for word in needle.split())


def workspace_symbols(ls: QrelsServer, project: Project, query: str) -> list[types.WorkspaceSymbol]:
    out: list[types.WorkspaceSymbol] = []
    for path in project.golden_files():
        _kind, text, model, _error = project.load(path)
        if text is None or not isinstance(model, Qrels):
            continue
        uri = uri_of(path)
        pos: Positions | None = None
        for q in model.queries.values():
            if not matches(query, q.qid, q.question):
                continue
            pos = pos or ls.session.positions(uri, text)
            out.append(
                types.WorkspaceSymbol(
                    name=q.qid,
                    kind=types.SymbolKind.Key,
                    location=types.Location(uri=uri, range=pos.range(q.span)),
                    container_name=path.name,
                )
            )
            if len(out) >= MAX_WORKSPACE_SYMBOLS:
                return out
    return out


def register(server: QrelsServer) -> None:
    outlines: dict[str, OutlineEncoder] = {}  # per open document: its last outline
    server.session.on_close.append(lambda uri: outlines.pop(uri, None))

    async def target_at(
        ls: QrelsServer, uri: str, position: types.Position
    ) -> tuple[Analysis, Target] | None:
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = ls.session.positions(uri, analysis.text)
        target = locate(analysis.model, pos.offset(position), analysis.text)
        return (analysis, target) if target is not None else None

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def goto_definition(
        ls: QrelsServer, params: types.DefinitionParams
    ) -> list[types.Location] | None:
        found = await target_at(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        return await ls.session.run(lambda: definition(ls, analysis, target)) or None

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(
        ls: QrelsServer, params: types.ReferenceParams
    ) -> list[types.Location] | None:
        found = await target_at(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, target = found
        include = params.context.include_declaration
        return await ls.session.run(lambda: references(ls, analysis, target, include)) or None

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbol(
        ls: QrelsServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = ls.session.positions(uri, analysis.text)
        hierarchical = ls.client_supports(
            "text_document.document_symbol.hierarchical_document_symbol_support"
        )
        if hierarchical and isinstance(analysis.model, Qrels):
            encoder = outlines.setdefault(uri, OutlineEncoder())
            return RawJSON(encoder.encode(pos, analysis))  # type: ignore[return-value]
        symbols = outline(analysis.model, pos)
        return symbols if hierarchical else _flatten(symbols, uri)

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(
        ls: QrelsServer, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        project = ls.session.project
        return await ls.session.run(lambda: workspace_symbols(ls, project, params.query))
