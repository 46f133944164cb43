"""Go to definition, references and the workspace's symbols, in editor terms: what the cursor is
on (:mod:`.locate`) leads to :class:`Place` s, which the language server turns into locations in
the client's position encoding."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.base.text import LineIndex, Span
from ..core.chunks import mapper
from ..core.formats.corpus import Corpus, Document
from ..core.model import Qrels
from ..core.project.analysis import Analysis
from ..core.project.project import Project
from .locate import Loaded, Target, citations, family, query_span

MAX_WORKSPACE_SYMBOLS = 1000

OpenText = Callable[[Path], str | None]
"""The text of a file the editor has open (None: not open): a corpus file being edited."""


@dataclass(frozen=True, slots=True)
class Place:
    """A place in a file: ``span`` in ``text`` (a file the server has read), or, for a document
    in a corpus file it has not read whole, columns ``span`` on line ``line`` whose text is
    ``text``."""

    path: Path
    text: str
    span: Span
    line: int | None = None


def _read_line(path: Path, line: int) -> str | None:
    """One line of a file (line breaks as LineIndex counts them), without reading it whole."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace", newline=None) as f:
            found = next(itertools.islice(f, line, line + 1), None)
    except OSError:
        return None
    return found.rstrip("\n") if found is not None else None


def document_place(doc: Document, open_text: OpenText) -> Place:
    """Where a corpus document is: its file (a folder corpus), or its id on its line."""
    if doc.line is None:
        return Place(doc.path, "", Span(0, 0), 0)
    opened = open_text(doc.path)
    if opened is not None:
        lines = LineIndex(opened)
        text = lines.line_text(doc.line) if doc.line < lines.line_count else ""
    else:
        text = _read_line(doc.path, doc.line) or ""
    return Place(doc.path, text, doc.id_span or Span(0, 0), doc.line)


def _corpus_document(analysis: Analysis, doc_id: str) -> Document | None:
    """The corpus document of an id: itself, or (a golden set's `chunks:` rule) the document a
    chunk is part of."""
    ctx = analysis.context
    if ctx is None or not isinstance(ctx.corpus, Corpus):
        return None
    doc = ctx.corpus.get(doc_id)
    if doc is None and ctx.chunks is not None:
        doc = ctx.corpus.get(ctx.chunks.document(doc_id))
    return doc


def _place(loaded: Loaded, span: Span) -> Place:
    return Place(loaded.path, loaded.text, span)


def definition(
    project: Project, analysis: Analysis, target: Target, open_text: OpenText
) -> list[Place]:
    """A document id: the document; a run's query id: its golden-set entry. Reads files: call
    it on the analysis thread."""
    if target.kind in ("judged", "retrieved") and target.doc_id is not None:
        doc = _corpus_document(analysis, target.doc_id)
        return [document_place(doc, open_text)] if doc is not None else []
    if target.kind == "query" and target.qid is not None:
        golden, _runs = family(project, analysis)
        span = query_span(golden.model, target.qid) if golden is not None else None
        return [_place(golden, span)] if golden is not None and span is not None else []
    return []


def references(
    project: Project,
    analysis: Analysis,
    target: Target,
    include_declaration: bool,
    open_text: OpenText,
) -> list[Place]:
    """Every place of the golden set and its runs that cites the document or query."""
    golden, runs = family(project, analysis)
    files = ([golden] if golden is not None else []) + runs
    out: list[Place] = []
    if target.kind in ("judged", "retrieved") and target.doc_id is not None:
        rule = analysis.context.chunks if analysis.context is not None else None
        doc_of = mapper(rule) if rule is not None else None
        doc_id = doc_of(target.doc_id) if doc_of is not None else target.doc_id  # a chunk's
        if include_declaration:
            doc = _corpus_document(analysis, doc_id)
            if doc is not None:
                out.append(document_place(doc, open_text))
        for loaded in files:
            out += [_place(loaded, c.span) for c in citations(loaded.model, doc_id, doc_of)]
        return out
    if target.kind == "query" and target.qid is not None:
        for loaded in files:
            if loaded is golden and not include_declaration:
                continue
            span = query_span(loaded.model, target.qid)
            if span is not None:
                out.append(_place(loaded, span))
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


@dataclass(frozen=True, slots=True)
class QuerySymbol:
    """A question of a golden set in the workspace, for the workspace-symbol search."""

    qid: str
    golden: Path
    place: Place


def workspace_symbols(project: Project, query: str) -> list[QuerySymbol]:
    """The questions of every golden set in the workspace matching ``query`` (capped)."""
    out: list[QuerySymbol] = []
    for path in project.golden_files():
        _kind, text, model, _error = project.load(path)
        if text is None or not isinstance(model, Qrels):
            continue
        for q in model.queries.values():
            if matches(query, q.qid, q.question):
                out.append(QuerySymbol(q.qid, path, Place(path, text, q.span)))
                if len(out) >= MAX_WORKSPACE_SYMBOLS:
                    return out
    return out
