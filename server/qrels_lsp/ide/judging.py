"""Judging, in editor terms: the first line's `14 unjudged in the top 10 · judge next`, the pair
to judge next with the document to read, and the actions that write its grade (docs/compare.md,
"Which documents to judge next").

The queue is the core's (``core/coverage/pool.py``, made on demand by ``Project.pool``). The
judge-next command picks its head and the editor keeps that pair as the one being judged
(``Judging``): the inlay hint, the hover's document and the grade actions are about it, while it
is still unjudged. With ``blind_judging`` no run and no rank is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..core.base.escape import for_log, md_block, md_code, md_text
from ..core.base.findings import Fix
from ..core.coverage.pool import Pair, Pool
from ..core.formats.corpus import Corpus
from ..core.model import Qrels
from ..core.project.analysis import Analysis
from ..core.project.results import QrelsContext, RunResult
from ..core.search.tokens import snippet, tokenize
from .actions import judgment_fixes
from .present import low_coverage

NEXT_GRADES = (0, 1, 2, 3)  # the judge-next actions, in the order a judge reads a scale


def judge_title(ctx: QrelsContext, pool: Pool | None, runs: Sequence[RunResult]) -> str | None:
    """The first line's judging lens: how many pairs of the runs' tops are unjudged (and that
    the numbers are low on coverage, when they are); None with nothing to judge."""
    if pool is None or not len(pool):
        return None
    title = f"{len(pool) - pool.stale:,} unjudged in the top {pool.depth} · judge next"
    if pool.stale:  # first in the queue: judged on documents that changed since
        stale = f"{pool.stale:,} stale judgment{'s' if pool.stale != 1 else ''}"
        title = f"{stale} · " + (title if len(pool) > pool.stale else "judge again")
    if low_coverage(ctx, runs):
        title = f"judged@{ctx.k} below {ctx.min_judged:g} · " + title
    return title


def next_pair(
    analysis: Analysis,
    skip: tuple[str, str] | None = None,
    wanted: tuple[str, str] | None = None,
) -> Pair | None:
    """The queue's head (``Project.pool`` made the queue), past ``skip`` (the pair just judged,
    when the edit that judged it has not reached this analysis yet); ``wanted``: that pair, when
    the queue holds it (a stale judgment to judge again), else the head."""
    pool = analysis.pool
    if pool is None:
        return None
    if wanted is not None:
        found = next((p for p in pool.of_query(wanted[0]) if p.doc == wanted[1]), None)
        if found is not None:
            return found
    return pool.next(skip)


Judging = tuple[str, str]
"""The (question, document) pair the editor is judging: the one judge-next went to."""


def pending(analysis: Analysis, judging: Judging | None) -> Pair | None:
    """The pair being judged, while the queue still holds it (judged by hand: no longer)."""
    pool = analysis.pool
    if judging is None or pool is None:
        return None
    qid, doc = judging
    return next((p for p in pool.of_query(qid) if p.doc == doc), None)


def pair_markdown(ctx: QrelsContext, pair: Pair, question: str | None) -> str:
    """What a judge reads: the document's title, first lines and the lines that best match the
    question (BM25's terms), and, unless judging blind, which runs retrieved it how high."""
    lines = [f"**Judge next** for {md_code(pair.query)}: {md_code(pair.doc)}"]
    corpus = ctx.corpus
    doc = corpus.get(pair.doc) if isinstance(corpus, Corpus) else None
    if doc is None:
        lines.append("\n*Not in the corpus: judge it from the runs' own data.*")
    else:
        if doc.title:
            lines.append(f"\n**{md_text(doc.title)}**")
        body = [line for line in doc.text.splitlines() if line.strip()][:6]
        if body:
            lines.append("\n" + md_block("\n".join(body)))
        best = snippet(doc, tokenize(question)) if question else ""
        if best:
            lines.append("\nBest-matching lines:\n")
            lines += [f"> {md_text(line)}" for line in best.splitlines()]
    if not ctx.blind_judging:
        n = len(pair.runs)
        runs = md_text(", ".join(pair.runs))
        lines.append(
            f"\nIn the top {ctx.pool_depth} of {n} run{'s' * (n != 1)} ({runs}), best #{pair.best_rank}."
        )
    lines.append("\nCode actions here write its grade: 0 not relevant; 1, 2 or 3 relevant.")
    return "\n".join(lines)


def next_fixes(
    analysis: Analysis, offset: int, golden_text: str, judging: Judging | None
) -> list[tuple[Pair, Fix]]:
    """At the id of the question being judged: the actions that write the grade, 0 to 3."""
    ctx, model = analysis.context, analysis.model
    pair = pending(analysis, judging)
    if ctx is None or pair is None or not isinstance(model, Qrels):
        return []
    query = model.queries.get(pair.query)
    if query is None or not query.span.start <= offset <= query.span.end:
        return []
    # the analysis's model was parsed from golden_text: its entry is parsed alone
    fixes = judgment_fixes(ctx, pair.query, pair.doc, golden_text, NEXT_GRADES, query.block)
    if pair.stale is not None and ctx.lock is not None:  # judged again: the lock takes it now
        accept = ctx.lock.accept(pair.doc)
        fixes = [replace(f, edits=(*f.edits, accept)) for f in fixes]
    return [(pair, fix) for fix in fixes]


def judging_hint(analysis: Analysis, judging: Judging | None) -> tuple[int, str] | None:
    """(offset, label) of the hint after the id of the question being judged."""
    model, pair = analysis.model, pending(analysis, judging)
    if pair is None or not isinstance(model, Qrels):
        return None
    query = model.queries.get(pair.query)
    if query is None:
        return None
    return query.span.end, f"judge: {for_log(pair.doc)}"
