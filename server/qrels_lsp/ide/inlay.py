"""Inlay hints, in editor terms: after each retrieved id its judgment (``✓2``, ``✗0``, ``?``),
and for a chunk (a golden set's `chunks:` rule) the document it maps to (``→ kb/x.md ✓2``, ``·
dropped`` after a later chunk of a document already ranked); after each judged id its rank in
every run compared (``#3 dense``, ``– bm25``; not while judging blind); after the id of the
question being judged (judge next), the document to judge. Editors without code lenses (Helix,
eglot) show these."""

from __future__ import annotations

from ..core.base.escape import for_log
from ..core.base.text import Span
from ..core.chunks import mapper, places
from ..core.model import Qrels, Run
from ..core.project.analysis import Analysis
from .judging import Judging, judging_hint
from .locate import in_range, queries_in, rank_in
from .present import chunk_label, judgment_label, rank_label


def hint_items(
    analysis: Analysis, window: Span, judging: Judging | None = None
) -> list[tuple[int, str]]:
    """(offset, label) of every hint whose id overlaps ``window``, in core terms; ``judging``:
    the pair the editor is judging (its question's id is hinted with the document)."""
    ctx = analysis.context
    if ctx is None:
        return []
    out: list[tuple[int, str]] = []
    model = analysis.model
    if isinstance(model, Run):
        doc_of = mapper(ctx.chunks) if ctx.chunks is not None else None
        for qid, ranking in model.rankings.items():
            query = ctx.qrels.queries.get(qid)
            if query is None or not in_range(ranking.block, window):
                continue
            grades = query.grades()
            where = places(ranking.doc_ids(), doc_of) if doc_of is not None else None
            for i, doc in enumerate(ranking.docs):
                if not in_range(doc.span, window):
                    continue
                place = where[i] if where is not None else None
                if place is not None and (place.doc_id != doc.doc_id or not place.counted):
                    label = chunk_label(place, grades.get(place.doc_id), ctx.level)
                else:
                    label = judgment_label(grades.get(doc.doc_id), ctx.level)
                out.append((doc.span.end, label))
        return sorted(out)
    assert isinstance(model, Qrels)
    head = judging_hint(analysis, judging)
    if head is not None and window.start <= head[0] <= window.end:
        out.append(head)
    scored = [r for r in analysis.runs if r.error is None and not ctx.blind_judging]
    for query in queries_in(model, window):
        for j in query.judgments:
            if not in_range(j.span, window):
                continue
            for r in scored:
                label = rank_label(rank_in(r.rankings, query.qid, j.doc_id), for_log(r.name))
                out.append((j.span.end, label))
    return sorted(out, key=lambda hint: hint[0])  # stable: the runs' order at one id
