"""Inlay hints, in editor terms: after each retrieved id its judgment (``✓2``, ``✗0``, ``?``);
after each judged id its rank in every run compared (``#3 dense``, ``– bm25``). Editors without
code lenses (Helix, eglot) show these."""

from __future__ import annotations

from ..core.base.text import Span
from ..core.model import Qrels, Run
from ..core.project.analysis import Analysis
from .locate import in_range, queries_in, rank_in
from .present import judgment_label, rank_label


def hint_items(analysis: Analysis, window: Span) -> list[tuple[int, str]]:
    """(offset, label) of every hint whose id overlaps ``window``, in core terms."""
    ctx = analysis.context
    if ctx is None:
        return []
    out: list[tuple[int, str]] = []
    model = analysis.model
    if isinstance(model, Run):
        for qid, ranking in model.rankings.items():
            query = ctx.qrels.queries.get(qid)
            if query is None or not in_range(ranking.block, window):
                continue
            grades = query.grades()
            for doc in ranking.docs:
                if in_range(doc.span, window):
                    out.append((doc.span.end, judgment_label(grades.get(doc.doc_id), ctx.level)))
        return sorted(out)
    assert isinstance(model, Qrels)
    scored = [r for r in analysis.runs if r.error is None]
    for query in queries_in(model, window):
        for j in query.judgments:
            if not in_range(j.span, window):
                continue
            for r in scored:
                label = rank_label(rank_in(r.rankings, query.qid, j.doc_id), r.name)
                out.append((j.span.end, label))
    return out
