"""What the report shows, in numbers: computed from the core's results once, then drawn by
``charts.py`` and laid out by ``page.py``. The score and comparison documents are the command
line's own (``ide/documents.py``), so every number on the page is one `score` and `compare`
print."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.compare import Comparisons
from ...core.formats.corpus import Corpus
from ...core.metrics import Metric, evaluate
from ...core.project.analysis import QrelsContext, RunResult
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
    deltas: dict[str, list[tuple[str, float]]]  # run -> (qid, headline delta), sorted
    histograms: dict[str, list[int]]  # run -> questions per bin of the headline metric
    judged: dict[str, float]  # run -> mean judged@k
    causes: dict[str, dict[str, int]] | None  # run -> cause -> relevant documents missed
    min_judged: float = 0.9
    questions: list[Question] = field(default_factory=list)


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
    return ReportData(
        golden=ctx.path.name,
        golden_uri=ctx.path.as_uri(),
        k=k,
        headline=headline,
        runs=[r.name for r in runs],
        base=base.name if base is not None else None,
        scores=scores,
        comparisons=comparisons_document(comparisons) if comparisons is not None else None,
        curves={r.name: _curves(ctx, r) for r in runs},
        deltas=_deltas(comparisons, headline),
        histograms={r.name: _histogram(r, headline) for r in runs},
        judged={r.name: _judged(ctx, r) for r in runs},
        causes={r.name: _causes(ctx, r, corpus) for r in runs} if corpus is not None else None,
        min_judged=ctx.min_judged,
        questions=questions,
    )


def _curves(ctx: QrelsContext, r: RunResult) -> dict[str, list[float]]:
    """Mean recall@i and precision@i for i = 1..100, computed as `score` computes them."""
    cutoffs = range(1, CURVE_DEPTH + 1)
    metrics = [Metric(name, i) for name in ("recall", "precision") for i in cutoffs]
    ev = evaluate(ctx.grades, r.rankings, metrics, ctx.level, ctx.unanswerable)
    return {name: [ev.mean[f"{name}@{i}"] for i in cutoffs] for name in ("recall", "precision")}


def _deltas(comparisons: Comparisons | None, metric: str) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    if comparisons is None:
        return out
    for c in comparisons.items:
        if c.metric == metric:
            out[c.run] = sorted(c.deltas.items(), key=lambda item: (item[1], item[0]))
    return out


def _histogram(r: RunResult, metric: str) -> list[int]:
    """Questions per tenth of [0, 1] (1.0 in the last bin), over the questions the means are."""
    counts = [0] * BINS
    ev = r.evaluation
    for qid, values in ev.per_query.items():
        if qid in ev.unanswerable:
            continue
        value = values.get(metric)
        if value is not None:
            counts[min(int(value * BINS), BINS - 1)] += 1
    return counts


def _judged(ctx: QrelsContext, r: RunResult) -> float:
    key = f"judged@{ctx.k}"
    if key in r.evaluation.mean:
        return r.evaluation.mean[key]
    ev = evaluate(ctx.grades, r.rankings, [Metric("judged", ctx.k)], ctx.level, ctx.unanswerable)
    return ev.mean[key]


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
