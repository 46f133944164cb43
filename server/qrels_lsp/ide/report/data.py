"""What the report shows, in numbers: computed from the core's results once, then drawn by
``charts.py`` and laid out by ``page.py``. The score and comparison documents are the command
line's own (``ide/documents.py``), so every number on the page is one `score` and `compare`
print."""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.compare import Comparisons
from ...core.formats.corpus import Corpus
from ...core.metrics import evaluate, parse_metric
from ...core.project.comparing import compare_by_tag, restricted_runs, tagged
from ...core.project.judging import mean_judged
from ...core.project.results import QrelsContext, RunResult
from ...core.search.quality import CAUSES, miss_causes
from ..documents import comparisons_document, scores_document

CURVE_DEPTH = 100  # the curves' cutoffs: 1..100
BINS = 10  # the distribution's bins over [0, 1]


@dataclass(frozen=True, slots=True)
class Question:
    qid: str
    text: str
    line: int  # 1-based, in the golden set


@dataclass(slots=True)
class ReportData:
    golden: str  # the golden set's file name
    golden_uri: str
    k: int
    headline: str  # recall@k: the metric the strip and the distribution show
    runs: list[str]
    base: str | None
    scores: dict[str, Any]  # `score --format json`'s document
    comparisons: dict[str, Any] | None  # `compare --format json`'s
    curves: dict[str, dict[str, list[float]]]  # run -> "recall" / "precision" -> means at 1..100
    values: dict[str, dict[str, float]]  # run -> qid -> the headline metric (questions counted)
    deltas: dict[str, list[tuple[str, float]]]  # run -> (qid, headline delta), sorted
    histograms: dict[str, list[int]]  # run -> questions per bin of the headline metric
    judged: dict[str, float]  # run -> mean judged@k
    causes: dict[str, dict[str, int]] | None  # run -> cause -> relevant documents missed
    min_judged: float = 0.9
    questions: list[Question] = field(default_factory=list)
    scored: int = 0  # questions in the means
    unanswerable: int = 0  # left out of them on purpose
    judgments: str = ""  # how complete the judgments are, in words (coverage/judgments.py)
    gates: bool = True  # whether coverage may block a decision (pooled judgments)
    tags: dict[str, Comparisons] = field(default_factory=dict)  # each tag's comparison
    tag_means: dict[str, dict[str, float]] = field(default_factory=dict)  # tag -> run -> headline
    tag_sizes: dict[str, int] = field(default_factory=dict)  # tag -> its questions
    decisions: Comparisons | None = None  # the comparison the verdicts are read from


def report_data(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    base: RunResult | None,
    comparisons: Comparisons | None,
    golden_text: str,
) -> ReportData:
    from ...core.base.text import line_index

    k = ctx.k
    headline = f"recall@{k}"
    scores = scores_document(runs, k)
    lines = line_index(golden_text)
    questions = [
        Question(qid, q.question or "", lines.position(q.span.start)[0] + 1)
        for qid, q in ctx.qrels.queries.items()
    ]
    corpus = ctx.corpus if isinstance(ctx.corpus, Corpus) else None
    values = {r.name: _values(ctx, r, headline) for r in runs}
    tagged_questions = tagged(ctx)
    tags = compare_by_tag(ctx, runs, base, [headline]) if base is not None and len(runs) > 1 else {}
    tag_means = {
        tag: {r.name: r.evaluation.mean.get(headline, 0.0) for r in restricted_runs(runs, qids)}
        for tag, qids in tagged_questions.items()
    }
    return ReportData(
        golden=ctx.path.name,
        golden_uri=ctx.path.as_uri(),
        k=k,
        headline=headline,
        runs=[r.name for r in runs],
        base=base.name if base is not None else None,
        scores=scores,
        comparisons=comparisons_document(comparisons) if comparisons is not None else None,
        curves={r.name: curves(ctx, r) for r in runs},
        values=values,
        deltas=_deltas(values, base.name if base is not None else None),
        histograms={name: _histogram(v) for name, v in values.items()},
        judged={r.name: mean_judged(ctx, r) for r in runs},
        causes={r.name: _causes(ctx, r, corpus) for r in runs} if corpus is not None else None,
        min_judged=ctx.min_judged,
        questions=questions,
        scored=len([q for q in ctx.grades if q not in ctx.unanswerable]),
        unanswerable=len(ctx.unanswerable),
        judgments=ctx.judgments.describe(),
        gates=ctx.judgments.gates,
        tags=dict(tags),
        tag_means=tag_means,
        tag_sizes={tag: len(qids) for tag, qids in tagged_questions.items()},
        decisions=comparisons,
    )


def curves(ctx: QrelsContext, r: RunResult) -> dict[str, list[float]]:
    """Mean recall@i and precision@i for i = 1..100: the very numbers `score --metrics recall@i`
    prints (the same divisions per question, summed in the same order), from one walk down each
    ranking and a running count, not two hundred metrics scored one by one (a test compares the
    two on real runs)."""
    depth, level = CURVE_DEPTH, ctx.level
    counted = sorted(q for q in ctx.grades if q not in ctx.unanswerable)
    recall = [[0.0] * len(counted) for _ in range(depth)]
    precision = [[0.0] * len(counted) for _ in range(depth)]
    for n, qid in enumerate(counted):
        grades = ctx.grades[qid]
        ranking = r.rankings.get(qid)
        if not ranking:
            continue  # missing from the run, or nothing retrieved: 0 at every cutoff
        num_rel = sum(1 for g in grades.values() if g >= level and g >= 0)
        found = 0
        for i in range(depth):
            if i < len(ranking):
                g = grades.get(ranking[i])
                found += g is not None and g >= level and g >= 0
            recall[i][n] = found / num_rel if num_rel else 0.0
            precision[i][n] = found / (i + 1)

    def means(columns: list[list[float]]) -> list[float]:
        total = len(counted)
        return [functools.reduce(operator.add, c, 0.0) / total if total else 0.0 for c in columns]

    return {"recall": means(recall), "precision": means(precision)}


def _values(ctx: QrelsContext, r: RunResult, metric: str) -> dict[str, float]:
    """Each counted question's ``metric``: the run's own, or scored when the metrics shown
    leave it out (the report always draws recall@k)."""
    ev = r.evaluation
    if ev.per_query and all(metric in v for v in ev.per_query.values()):
        return {q: v[metric] for q, v in ev.per_query.items()}
    scored = evaluate(ctx.grades, r.rankings, [parse_metric(metric)], ctx.level, ctx.unanswerable)
    return {q: v[metric] for q, v in scored.per_query.items()}


def _deltas(
    values: dict[str, dict[str, float]], base: str | None
) -> dict[str, list[tuple[str, float]]]:
    """Each other run minus the base, question by question, sorted (then by question)."""
    if base is None:
        return {}
    against = values[base]
    return {
        run: sorted(
            ((q, v.get(q, 0.0) - b) for q, b in against.items()), key=lambda i: (i[1], i[0])
        )
        for run, v in values.items()
        if run != base
    }


def _histogram(values: dict[str, float]) -> list[int]:
    """Questions per tenth of [0, 1] (1.0 in the last bin)."""
    counts = [0] * BINS
    for value in values.values():
        counts[min(int(value * BINS), BINS - 1)] += 1
    return counts


def _causes(ctx: QrelsContext, r: RunResult, corpus: Corpus) -> dict[str, int]:
    total = dict.fromkeys(CAUSES, 0)
    for qid, query in ctx.qrels.queries.items():
        if qid in ctx.unanswerable:
            continue
        grades = ctx.grades.get(qid, {})
        ranking = r.rankings.get(qid, [])
        for cause, n in miss_causes(
            query.question, grades, ranking, ctx.k, ctx.level, corpus
        ).items():
            total[cause] += n
    return {str(c): n for c, n in total.items()}
