"""Hover, in editor terms: a document id shows the document and who judges it; a query id every
metric at several cutoffs for every run compared, with BM25's view of it; a file-level key the
file's means. Everything the lenses and inlay hints show is reachable here too: Helix and eglot
have no lenses."""

from __future__ import annotations

from ..core.base.escape import md_text
from ..core.base.text import Span
from ..core.chunks import ChunkPlace, mapper, places
from ..core.formats import get
from ..core.formats.corpus import Corpus, CorpusError
from ..core.model import Qrels, Query, Run
from ..core.project.analysis import Analysis
from ..core.project.comparing import compare_by_tag, tagged
from ..core.project.naming import baseline_notes
from ..core.project.project import Project
from ..core.project.results import QrelsContext
from ..core.search.quality import quality_notes
from .compare import tag_summary
from .judging import Judging, pair_markdown, pending
from .lenses import comparison_report, history_report, top_groups
from .locate import Target, locate, rank_in
from .present import (
    chunk_note,
    document_hover,
    dropped_note,
    fusion_notes,
    judged_by,
    not_in_golden,
    query_hover,
    ranks_note,
    retrieval_note,
    run_header_title,
)


def hover_target(analysis: Analysis, offset: int) -> Target | None:
    """What a hover at ``offset`` is about: what :func:`locate` finds, else, on the file's first
    line, the file itself (``file``: the format it was read as, and its means)."""
    found = locate(analysis.model, offset, analysis.text)
    if found is not None:
        return found
    text = analysis.text
    ends = [at for at in (text.find("\n"), text.find("\r")) if at != -1]
    end = min(ends) if ends else len(text)
    return Target("file", Span(0, end)) if 0 <= offset <= end else None


def _means(analysis: Analysis) -> str | None:
    """The header lens's lines: the file's counts, each run's means and comparison. A lens title
    is plain text, and a run's name in it is its author's: as Markdown, it is quoted whole."""
    ctx = analysis.context
    if ctx is None:
        return None
    if isinstance(analysis.model, Qrels):
        return "  \n".join(md_text(t) for group in top_groups(analysis) for t in group.titles)
    return md_text(run_header_title(ctx, analysis.runs[0])) if analysis.runs else None


TAG_HOVER_MAX = 20_000
"""Questions up to which the first line's hover compares each tag (a family of resamples per
tag, made on the hover); past it the hover says where to ask (`compare --by tag`)."""


def _by_tag(analysis: Analysis) -> str:
    """Each tag's runs against the base on the headline metric, for a golden set with tags."""
    ctx, base = analysis.context, analysis.base
    if ctx is None or base is None or not isinstance(analysis.model, Qrels):
        return ""
    runs = [r for r in analysis.runs if not r.error]
    if len(runs) < 2 or not tagged(ctx):
        return ""
    if len(ctx.grades) > TAG_HOVER_MAX:
        return f"*By tag: `qrels-lsp compare {md_text(ctx.path.name)} --by tag`.*"
    return tag_summary(compare_by_tag(ctx, runs, base, [f"recall@{ctx.k}"]))


def _judging(
    analysis: Analysis, ctx: QrelsContext, query: Query, judging: Judging | None
) -> list[str]:
    """At the question being judged: the document to judge, first."""
    if judging is None or judging[0] != query.qid or not isinstance(analysis.model, Qrels):
        return []
    pair = pending(analysis, judging)
    return [pair_markdown(ctx, pair, query.question)] if pair is not None else []


def hover_text(
    project: Project, analysis: Analysis, target: Target, judging: Judging | None = None
) -> str | None:
    """The markdown of a hover, in core terms, of an analysis whose comparison, judging queue
    (``Decisions``) and history (``Histories``) are made. Reads the corpus: call it on the
    analysis thread."""
    if target.kind in ("summary", "file"):
        return _file_hover(project, analysis, target.kind == "summary")
    if target.kind == "query":
        assert target.qid is not None
        return _query_hover(project, analysis, target.qid, judging)
    return _document_hover(analysis, target)


def _file_hover(project: Project, analysis: Analysis, summary: bool) -> str | None:
    """The first line: the header lens's lines; for the whole file, also the comparison, what
    the fused and baseline runs are, and the per-tag answers."""
    ctx = analysis.context
    means = _means(analysis)
    if summary:
        return means
    read_as = f"Read as {get(analysis.kind).display}."
    blind = ctx is not None and ctx.blind_judging  # no system's numbers while judging
    compared = "" if blind else comparison_report(project, analysis)
    notes = [] if blind else fusion_notes(analysis.runs)
    if not blind and ctx is not None:
        notes += [md_text(n) for n in baseline_notes(analysis.runs, ctx.k)]
    fused = "  \n".join(notes)
    tags = "" if blind else _by_tag(analysis)
    since = history_report(analysis)
    parts = [read_as if means is None else f"{read_as}  \n{means}", fused, compared, tags, since]
    return "\n\n".join(p for p in parts if p)


def _query_hover(
    project: Project, analysis: Analysis, qid: str, judging: Judging | None
) -> str | None:
    """A question: its numbers in every run, what BM25 says of it, the pair being judged."""
    ctx = analysis.context
    query = ctx.qrels.queries.get(qid) if ctx is not None else None
    if query is None or ctx is None:
        return not_in_golden(qid, ctx.path.name if ctx is not None else None)
    runs = analysis.runs
    if isinstance(analysis.model, Run):  # every run of the golden set, this one in its place
        runs = project.derived.golden_runs(ctx, analysis.runs[0] if analysis.runs else None)
    scored = [r for r in runs if not r.error]
    rankings = [(r.name, r.rankings.get(qid)) for r in scored]
    baseline = next((r.rankings.get(qid) for r in scored if r.baseline), None)
    known = ctx.corpus if isinstance(ctx.corpus, Corpus) else None
    notes = quality_notes(query.question, query.grades(), baseline, ctx.k, ctx.level, known)
    base = analysis.base.name if analysis.base is not None else None
    judge = _judging(analysis, ctx, query, judging)
    if ctx.blind_judging:  # nothing a compared system says: no table, ranks, BM25 hints
        return "\n\n".join([*judge, query_hover(ctx, query, [], None)])
    return "\n\n".join([*judge, query_hover(ctx, query, rankings, base), *notes])


def _document_hover(analysis: Analysis, target: Target) -> str:
    """A document id: its text, who judged it, and where this run (or every run) ranks it."""
    assert target.doc_id is not None and target.qid is not None
    ctx, doc_id, qid = analysis.context, target.doc_id, target.qid
    if ctx is None:
        return document_hover(None, doc_id, [], missing="no golden set, so no corpus to look in")
    place = None
    if target.kind == "retrieved" and ctx.chunks is not None and isinstance(analysis.model, Run):
        ranking = analysis.model.rankings.get(qid)
        if ranking is not None and target.rank is not None:
            place = places(ranking.doc_ids(), mapper(ctx.chunks))[target.rank - 1]
            doc_id = place.doc_id  # the document the chunk is part of: what the golden set judges
    corpus = ctx.corpus
    doc = corpus.get(doc_id) if isinstance(corpus, Corpus) else None
    if doc is not None and doc.line is None and not doc.path.is_file():
        doc = None  # deleted since the corpus was listed; the watcher's reload is on its way
    text = document_hover(doc, doc_id, judged_by(ctx.qrels, doc_id), missing=_missing(ctx))
    if target.kind == "retrieved" and target.rank is not None:
        text += _retrieved_note(ctx, qid, doc_id, target.rank, place)
    elif target.kind == "judged" and not ctx.blind_judging:
        ranks = [(r.name, rank_in(r.rankings, qid, doc_id)) for r in analysis.runs if not r.error]
        text += "\n\n" + ranks_note(qid, ranks)
    return text


def _missing(ctx: QrelsContext) -> str:
    """Why a document's text cannot be shown, when it cannot."""
    corpus = ctx.corpus
    if isinstance(corpus, CorpusError):
        return f"the corpus could not be read ({corpus.message})"
    if ctx.outside:
        return "the corpus is outside the workspace, so it is not read"
    return "the golden set names no corpus" if corpus is None else "not in the corpus"


def _retrieved_note(
    ctx: QrelsContext, qid: str, doc_id: str, rank: int, place: ChunkPlace | None
) -> str:
    """Where the run ranks a document it retrieved (through its chunk, for a run of chunks)."""
    text = ""
    if place is not None and place.chunk_id != place.doc_id and ctx.chunks is not None:
        text += "\n\n" + chunk_note(qid, place, ctx.chunks)
    query = ctx.qrels.queries.get(qid)
    if query is not None:
        grade = query.grades().get(doc_id)
        if place is None or place.counted:
            counted = place.doc_rank if place is not None else rank
            text += "\n\n" + retrieval_note(qid, counted, grade, ctx.level)
        else:
            text += "\n\n" + dropped_note(qid, grade, ctx.level)
    return text
