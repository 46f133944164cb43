"""What is under the cursor, and where else it is cited: plain offsets in, plain targets out.

Hover, inlay hints, go-to-definition, references and the outline all start from the same
question (a query id? a judged document? a retrieved document, at which rank?), answered here
once on the parsed model, so the language server only converts the answer to LSP types.

TREC and BEIR files repeat the query id on every line while the model keeps its first
occurrence only; :func:`locate` reads the query column of the line under the cursor, so every
occurrence is found.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.base.text import Span
from ..core.model import Qrels, Query, Run, rank_in_list
from ..core.project.analysis import Analysis
from ..core.project.project import Project
from ..core.project.results import run_name

TargetKind = Literal["query", "judged", "retrieved", "summary", "file"]

_FIRST_FIELD = re.compile(r"[ \t]*([^\s]+)")


@dataclass(frozen=True, slots=True)
class Target:
    """One thing a cursor can rest on.

    - ``query``: a query id (of a golden set/qrels file, or of a run's ranking);
    - ``judged``: a document id judged for ``qid`` in a golden set or qrels file (``grade``);
    - ``retrieved``: a document id retrieved for ``qid`` in a run, at evaluation ``rank``
      (trec_eval's order, 1-based);
    - ``summary``: a file-level key (``k``, ``runs``, ``corpus``; a run's ``name``, ``qrels``,
      ``results``), where the file's means are shown;
    - ``file``: the file itself (its first line where no id is under the cursor, for hover: the
      format it was read as, then its means).
    """

    kind: TargetKind
    span: Span
    qid: str | None = None
    doc_id: str | None = None
    grade: int | None = None
    rank: int | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    """A place a document id or query id is written (in the file whose model was searched)."""

    span: Span
    qid: str
    doc_id: str | None = None


def locate(model: Qrels | Run, offset: int, text: str | None = None) -> Target | None:
    """The id (or file-level key) at ``offset``; a cursor at either end of a span touches it.

    ``text`` is needed only for TREC/BEIR files, to find the query ids of lines after a query's
    first one.
    """
    if isinstance(model, Qrels):
        return _locate_qrels(model, offset, text)
    return _locate_run(model, offset, text)


def _locate_qrels(qrels: Qrels, offset: int, text: str | None) -> Target | None:
    for query in queries_in(qrels, Span(offset, offset)):
        if query.span.contains(offset):
            return Target("query", query.span, qid=query.qid)
        if not query.block.contains(
            offset
        ):  # TREC blocks run from a query's first line to its last
            continue
        for j in query.judgments:
            if j.span.contains(offset):
                return Target("judged", j.span, qid=query.qid, doc_id=j.doc_id, grade=j.grade)
    if qrels.format != "golden":
        return _line_query(offset, text, set(qrels.queries))
    keys = [r.span for r in qrels.runs] + [f.span for f in qrels.fusions or ()]
    if qrels.chunks is not None:
        keys.append(qrels.chunks.span)
    if qrels.corpus is not None:
        keys.append(qrels.corpus.span)
    if qrels.k_span is not None:
        keys.append(qrels.k_span)
    return _summary(keys, offset)


def _locate_run(run: Run, offset: int, text: str | None) -> Target | None:
    for ranking in run.rankings.values():
        if ranking.span.contains(offset):
            return Target("query", ranking.span, qid=ranking.qid)
        if not ranking.block.contains(offset):
            continue
        for rank, doc in enumerate(ranking.docs, start=1):
            if doc.span.contains(offset):
                return Target("retrieved", doc.span, qid=ranking.qid, doc_id=doc.doc_id, rank=rank)
    if run.format in ("trec-run", "msmarco-run"):  # a query id on every line
        found = _line_query(offset, text, set(run.rankings))
        if found is not None:
            return found
    keys = [s for s in (run.results_span, run.name_span) if s is not None]
    if run.qrels is not None:
        keys.append(run.qrels.span)
    return _summary(keys, offset)


def _summary(keys: list[Span], offset: int) -> Target | None:
    for span in keys:
        if span.contains(offset):
            return Target("summary", span)
    return None


def _line_query(offset: int, text: str | None, qids: set[str]) -> Target | None:
    """The query id in the first column of the line under the cursor (TREC and BEIR files)."""
    if text is None:
        return None
    offset = max(0, min(offset, len(text)))
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    m = _FIRST_FIELD.match(text, start)
    if m is None:
        return None
    span = Span(m.start(1), m.end(1))
    if span.contains(offset) and m.group(1) in qids:
        return Target("query", span, qid=m.group(1))
    return None


def citations(
    model: Qrels | Run, doc_id: str, doc_of: Callable[[str], str] | None = None
) -> Iterator[Citation]:
    """Every judgment or (scored) retrieval of ``doc_id`` in a file, in file order per query;
    ``doc_of`` (a golden set's `chunks:` rule) makes a run's chunks of the document cite it."""
    if isinstance(model, Qrels):
        for query in model.queries.values():
            for j in query.judgments:
                if j.doc_id == doc_id:
                    yield Citation(j.span, query.qid, doc_id)
        return
    for ranking in model.rankings.values():
        for i, cited in enumerate(ranking.doc_ids()):  # (a span made for a citation only)
            if cited == doc_id or (doc_of is not None and doc_of(cited) == doc_id):
                yield Citation(ranking.docs[i].span, ranking.qid, doc_id)


def query_span(model: Qrels | Run, qid: str) -> Span | None:
    """Where a file names ``qid`` (its first occurrence), if it does."""
    entry = model.queries.get(qid) if isinstance(model, Qrels) else model.rankings.get(qid)
    return entry.span if entry is not None else None


def rank_in(rankings: dict[str, list[str]], qid: str, doc_id: str) -> int | None:
    """1-based rank of ``doc_id`` in a scored ranking (RunResult.rankings); None if absent."""
    ranking = rankings.get(qid)
    return rank_in_list(ranking, doc_id) if ranking is not None else None


def rank_of(run: Run | None, qid: str, doc_id: str) -> int | None:
    """Evaluation rank (1-based, trec_eval's order) of ``doc_id`` for ``qid``; None if absent."""
    ranking = run.rankings.get(qid) if run is not None else None
    return rank_in_list(ranking.doc_ids(), doc_id) if ranking is not None else None


def in_range(span: Span, window: Span) -> bool:
    """Whether a span overlaps a requested window (hints are asked for per visible range)."""
    return span.end >= window.start and span.start <= window.end


def queries_in(qrels: Qrels, window: Span) -> list[Query]:
    """The queries whose entries overlap ``window`` (see :func:`in_range`).

    A golden set's entries follow one another in the text, so they are found by binary search:
    a hover or the hints of a screen read the places of a few queries, not of ten thousand (whose
    spans are worked out on demand after an edit, see :meth:`Query.shifted`). A TREC qrels
    query's lines need not be together, so there every query is looked at.
    """
    queries = list(qrels.queries.values())
    if qrels.format != "golden":
        return [q for q in queries if in_range(q.block, window)]
    i = bisect.bisect_left(queries, window.start, key=lambda q: q.block.end)
    out = []
    while i < len(queries) and queries[i].block.start <= window.end:
        out.append(queries[i])
        i += 1
    return out


@dataclass(frozen=True, slots=True)
class Loaded:
    """A file of a golden set's family as the project reads it (an open buffer wins)."""

    path: Path
    text: str
    model: Qrels | Run
    name: str  # a run's name; a golden set's file name


def family(project: Project, analysis: Analysis) -> tuple[Loaded | None, list[Loaded]]:
    """The golden set an analysed file belongs to and every run compared with it.

    The analysed file itself comes from the analysis (the text it was computed from); the others
    through the project's reader and parse cache. Call it on the analysis thread.
    """
    ctx = analysis.context
    this = Loaded(
        analysis.path.resolve(),
        analysis.text,
        analysis.model,
        analysis.path.name if isinstance(analysis.model, Qrels) else _name(analysis),
    )
    if ctx is None:
        return (this, []) if isinstance(analysis.model, Qrels) else (None, [this])
    golden: Loaded | None = this if isinstance(analysis.model, Qrels) else None
    if golden is None:
        _kind, text, model, _error = project.load(ctx.path)
        if text is not None and isinstance(model, Qrels):
            golden = Loaded(ctx.path, text, model, ctx.path.name)
    runs: list[Loaded] = []
    if isinstance(analysis.model, Run) and this.path not in ctx.run_paths:
        runs.append(this)
    for path in ctx.run_paths:
        if path == this.path:
            runs.append(this)
            continue
        _kind, text, model, _error = project.load(path)
        if text is not None and isinstance(model, Run):
            runs.append(Loaded(path, text, model, run_name(path, model)))
    return golden, runs


def _name(analysis: Analysis) -> str:
    for r in analysis.runs:
        if r.path == analysis.path.resolve():
            return r.name
    return run_name(analysis.path, analysis.model if isinstance(analysis.model, Run) else None)
