"""Code lenses, in editor terms: above each question one title per run (``dense: recall@5 0.50
· MRR 0.50``), and on the first line the counts and means, the comparisons and the judging lens
(``14 unjudged in the top 10 · judge next``); in a run file, each query's numbers and the run's
means. Each group says what its lenses do when run (:data:`Action`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal, NamedTuple

from ..core.base.escape import md_text
from ..core.base.text import Span
from ..core.model import Qrels, Query, Run
from ..core.project.analysis import Analysis
from ..core.project.project import Project
from .compare import Place, comparison_markdown
from .history import (
    header_title,
    markdown_report,
    question_title,
    what_changed,
    worth_a_lens,
)
from .judging import judge_title
from .present import (
    UNANSWERABLE_TITLE,
    header_titles,
    lens_values,
    query_hover,
    query_lens_titles,
    run_comparison_title,
    run_header_title,
)

Action = Literal["explain", "compare", "judge", "report", "history"]
"""What a lens does when run: explain a question's numbers, show the whole comparison, go to the
next pair to judge, open the report, or show what changed since the base revision."""
REPORT_TITLE = "report: curves, deltas, coverage"


class LensGroup(NamedTuple):
    """The lenses at one place: where, their titles (one per run), the query they explain (if
    any), and what they do."""

    span: Span
    titles: tuple[str, ...]
    qid: str | None
    action: Action = "compare"


TOP = Span(0, 0)


def top_groups(analysis: Analysis) -> list[LensGroup]:
    """A golden set's first-line lenses: the header, the judging lens when the queue has been
    made (``Decisions.pool``) and is not empty, and the report's when there are runs."""
    ctx = analysis.context
    assert ctx is not None
    header = header_titles(
        ctx,
        analysis.runs,
        analysis.comparisons,
        analysis.loading,
        comparing(analysis),
        None if analysis.compared else analysis.previous,
        analysis.waiting,
    )
    out = [LensGroup(TOP, tuple(header), None)]
    if analysis.history is not None and worth_a_lens(analysis.history):
        since = header_title(analysis.history, ctx.k, blind=ctx.blind_judging)
        out.append(LensGroup(TOP, (since,), None, "history"))
    judge = judge_title(ctx, analysis.pool, analysis.runs)
    if judge is not None:
        out.append(LensGroup(TOP, (judge,), None, "judge"))
    if analysis.runs and not ctx.blind_judging:  # the report is what the runs say
        out.append(LensGroup(TOP, (REPORT_TITLE,), None, "report"))
    return out


def lens_groups(analysis: Analysis) -> list[LensGroup]:
    """Every lens of a file, grouped by place, in core terms."""
    ctx = analysis.context
    if ctx is None:
        return []
    top = TOP
    if isinstance(analysis.model, Qrels):
        out = top_groups(analysis)
        for query, titles in question_titles(analysis, analysis.model.queries.values()):
            out.append(LensGroup(query.span, tuple(titles), query.qid, "explain"))
        return out
    if isinstance(analysis.model, Run) and analysis.runs:
        result = analysis.runs[0]
        previous = None if analysis.compared else analysis.previous
        compared = run_comparison_title(
            ctx, result, analysis.comparisons, previous, compared=analysis.compared
        )
        header = (run_header_title(ctx, result), *([compared] if compared else []))
        out = [LensGroup(top, header, None)]
        for qid, ranking in analysis.model.rankings.items():
            if qid not in ctx.qrels.queries:
                title = "not in the golden set · ignored"
            elif qid in ctx.unanswerable:
                title = UNANSWERABLE_TITLE
            else:
                title = lens_values(result.evaluation.per_query.get(qid, {}), ctx.k)
            out.append(LensGroup(ranking.span, (title,), qid, "explain"))
        return out
    return []


def question_titles(
    analysis: Analysis, queries: Iterable[Query]
) -> Iterator[tuple[Query, list[str]]]:
    """Each question's lens titles: a run each, then what changed it since the base revision
    when something did (``Project.history``)."""
    ctx = analysis.context
    assert ctx is not None
    history = analysis.history
    for query, titles in query_lens_titles(ctx, queries, analysis.runs, analysis.base):
        if history is not None:
            since = question_title(history, query.qid, ctx.k, blind=ctx.blind_judging)
            if since is not None:
                titles = [*titles, since]
        yield query, titles


def comparing(analysis: Analysis) -> str | None:
    """The base's name while a golden set's comparison with it is still being made."""
    base = analysis.base
    if analysis.compared or base is None or not isinstance(analysis.model, Qrels):
        return None
    others = [r for r in analysis.runs if r is not base and not r.error]
    return base.name if others else None


def explanation(analysis: Analysis, qid: str) -> str:
    """What a query's lens numbers are made of: the hover's table for it ("" if not a query)."""
    ctx = analysis.context
    query = ctx.qrels.queries.get(qid) if ctx is not None else None
    if query is None or ctx is None:
        return ""
    runs = [(r.name, r.rankings.get(qid)) for r in analysis.runs]
    return query_hover(ctx, query, runs)


def comparison_place(project: Project, analysis: Analysis) -> Place | None:
    """The golden set's text and where each question starts, for links to entries."""
    ctx = analysis.context
    if ctx is None:
        return None
    text = analysis.text if ctx.path == analysis.path else project.read(ctx.path)[0]
    if text is None:
        return None
    return ctx.path, text, {qid: q.span.start for qid, q in ctx.qrels.queries.items()}


def history_report(analysis: Analysis) -> str:
    """What changed since the base revision and why each number moved, in a table (the first
    line's hover, the history lens's message), from an analysis whose history is made
    (``Histories.history``); "" with none."""
    ctx, history = analysis.context, analysis.history
    if ctx is None or history is None or history.problem is not None:
        return ""
    if not worth_a_lens(history):
        return ""  # (nothing changed: no lens, and nothing to add to the hover)
    if ctx.blind_judging:  # what changed, not what the systems say of it
        return f"*Since {md_text(history.base)}: {md_text(what_changed(history.changes))}.*"
    return markdown_report(history, ctx.k)


def comparison_report(project: Project, analysis: Analysis) -> str:
    """The whole comparison a golden set's first-line lenses (or a run file's) summarise: every
    metric, the questions needed, the questions that flipped, from an analysis whose comparison
    is made (``Decisions.compare``). Call it on the analysis thread (it reads the golden set)."""
    ctx = analysis.context
    if analysis.waiting is not None:
        return (
            f"*The runs are compared with {md_text(analysis.waiting)} once its BM25 index is "
            "built (its progress is shown as it goes); until then, with no other run.*"
        )
    comparisons = analysis.comparisons
    if ctx is None or comparisons is None:
        return ""
    runs = [analysis.runs[0].name] if isinstance(analysis.model, Run) and analysis.runs else None
    if runs is not None and runs[0] == comparisons.base:
        runs = None  # the base itself: every run against it
    place = comparison_place(project, analysis)
    return comparison_markdown(comparisons, runs, f"recall@{ctx.k}", place)
