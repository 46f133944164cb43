"""Code lenses, in editor terms: above each question one title per run (``dense: recall@5 0.50
· MRR 0.50``), and on the first line the counts and means; in a run file, each query's numbers
and the run's means."""

from __future__ import annotations

from ..core.base.text import Span
from ..core.model import Qrels, Run
from ..core.project.analysis import Analysis
from .present import (
    UNANSWERABLE_TITLE,
    header_titles,
    lens_values,
    query_hover,
    query_lens_titles,
    run_header_title,
)

LensGroup = tuple[Span, tuple[str, ...], str | None]
"""The lenses at one place: where, their titles (one per run), the query they explain (if any)."""


def lens_groups(analysis: Analysis) -> list[LensGroup]:
    """Every lens of a file, grouped by place, in core terms."""
    ctx = analysis.context
    if ctx is None:
        return []
    top = Span(0, 0)
    if isinstance(analysis.model, Qrels):
        out: list[LensGroup] = [(top, tuple(header_titles(ctx, analysis.runs)), None)]
        queries = analysis.model.queries.values()
        for query, titles in query_lens_titles(ctx, queries, analysis.runs):
            out.append((query.span, tuple(titles), query.qid))
        return out
    if isinstance(analysis.model, Run) and analysis.runs:
        result = analysis.runs[0]
        out = [(top, (run_header_title(ctx, result),), None)]
        for qid, ranking in analysis.model.rankings.items():
            if qid not in ctx.qrels.queries:
                title = "not in the golden set · ignored"
            elif qid in ctx.unanswerable:
                title = UNANSWERABLE_TITLE
            else:
                title = lens_values(result.evaluation.per_query.get(qid, {}), ctx.k)
            out.append((ranking.span, (title,), qid))
        return out
    return []


def explanation(analysis: Analysis, qid: str) -> str:
    """What a query's lens numbers are made of: the hover's table for it ("" if not a query)."""
    ctx = analysis.context
    query = ctx.qrels.queries.get(qid) if ctx is not None else None
    if query is None or ctx is None:
        return ""
    runs = [(r.name, r.rankings.get(qid)) for r in analysis.runs]
    return query_hover(ctx, query, runs)
