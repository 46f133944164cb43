"""Semantic tokens, in editor terms: what each id and field of a file is, so that an editor with
no grammar for these files (Neovim without the syntax files, Helix) colours them, and every
editor colours a document id by what the golden set says of it.

A document id is ``relevantDocument`` (judged at or above the relevance level),
``irrelevantDocument`` (judged below it), ``unjudgedDocument`` (a run's id the golden set does not
judge for that query) or ``unknownDocument`` (not in the corpus, when the corpus is known and was
read whole). In the line formats the other fields are standard types: the query id
``variable``, TREC's ``Q0``/iteration column ``keyword``, ranks, scores and grades ``number``, a
run's tag ``string``. YAML keys and values other than document ids keep the YAML colours.
Every type is one of ``token_types.py``, the server's legend.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ..core.base.patterns import TOKEN_FIELD
from ..core.base.text import Span
from ..core.formats.corpus import Corpus
from ..core.model import Qrels
from ..core.project.analysis import Analysis
from .locate import in_range, queries_in

MAX_TOKENS = 100_000
"""Tokens of one response: a million-line run would otherwise be tens of megabytes per edit.
The first ones in the text are kept; a range request (the lines on screen) has its own cap."""

_DOC = "document"
# The role of each whitespace-separated field of a line format; ``document`` is the id judged.
_FIELDS: Mapping[str, tuple[str, ...]] = {
    "trec-run": ("variable", "keyword", _DOC, "number", "number", "string"),
    "trec-qrels": ("variable", "keyword", _DOC, "number"),
    "beir-qrels": ("variable", _DOC, "number"),
    "msmarco-run": ("variable", _DOC, "number"),
}


@dataclass(frozen=True, slots=True)
class Token:
    span: Span
    type: str


def tokens(analysis: Analysis, window: Span | None = None) -> list[Token]:
    """The tokens of the file (or of ``window``), in text order, at most :data:`MAX_TOKENS`:
    the queries are taken in the order of their first line, and once that many tokens are made,
    the queries that start after the last one kept are not looked at."""
    text, model = analysis.text, analysis.model
    window = window or Span(0, len(text))
    roles = _FIELDS.get(model.format)
    out: list[Token] = []
    cutoff: int | None = None
    for start, ids in _document_ids(analysis, window):
        if cutoff is not None and start > cutoff:
            break
        out += [t for span, status in ids for t in _line_tokens(text, span, status, roles)]
        if len(out) >= MAX_TOKENS:
            out.sort(key=lambda t: t.span.start)
            del out[MAX_TOKENS:]
            cutoff = out[-1].span.start
    out.sort(key=lambda t: t.span.start)
    return out


def _document_ids(analysis: Analysis, window: Span) -> Iterator[tuple[int, list[tuple[Span, str]]]]:
    """Per query in the window, by its first line: where it starts and (id span, status) of each
    of its document ids in the window (status "": no golden set says what it is)."""
    model, ctx = analysis.model, analysis.context
    corpus = ctx.corpus if ctx is not None and isinstance(ctx.corpus, Corpus) else None
    known = corpus if corpus is not None and corpus.partial is None else None
    level = ctx.level if ctx is not None else 1
    if isinstance(model, Qrels):
        for q in sorted(queries_in(model, window), key=lambda q: q.block.start):
            yield (
                q.block.start,
                [
                    (j.span, _in_corpus(j.doc_id, known, _graded(j.grade, level)))
                    for j in q.judgments
                    if in_range(j.span, window)
                ],
            )
        return
    rankings = [r for r in model.rankings.values() if in_range(r.block, window)]
    for r in sorted(rankings, key=lambda r: r.block.start):
        judged = ctx.grades.get(r.qid, {}) if ctx is not None else None
        yield (
            r.block.start,
            [
                (
                    d.span,
                    _in_corpus(d.doc_id, known, _judged(judged, d.doc_id, level))
                    if judged is not None
                    else "",
                )
                for d in r.docs
                if in_range(d.span, window)
            ],
        )


def _graded(grade: int, level: int) -> str:
    return "relevantDocument" if grade >= level else "irrelevantDocument"


def _judged(grades: Mapping[str, int], doc_id: str, level: int) -> str:
    grade = grades.get(doc_id)
    return "unjudgedDocument" if grade is None else _graded(grade, level)


def _in_corpus(doc_id: str, corpus: Corpus | None, status: str) -> str:
    return "unknownDocument" if corpus is not None and doc_id not in corpus else status


def _line_tokens(text: str, doc: Span, status: str, roles: tuple[str, ...] | None) -> list[Token]:
    """The document id's token and, in a line format, those of the other fields of its line
    (when the line is the format's shape: the id where the format puts it)."""
    own = [Token(doc, status)] if status and "\n" not in text[doc.start : doc.end] else []
    if roles is None:
        return own
    start = max(text.rfind("\n", 0, doc.start), text.rfind("\r", 0, doc.start)) + 1
    end = text.find("\n", doc.end)
    fields = [
        Span(m.start(), m.end())
        for m in TOKEN_FIELD.finditer(text, start, end if end >= 0 else len(text))
    ]
    if len(fields) != len(roles) or fields[roles.index(_DOC)] != doc:
        return own
    return [
        Token(span, role) if role != _DOC else Token(span, status)
        for span, role in zip(fields, roles, strict=True)
        if role != _DOC or status
    ]
