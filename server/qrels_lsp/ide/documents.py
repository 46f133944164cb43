"""The JSON documents `score --format json` and `compare --format json` print (README, "Command
line"), built in one place: the HTML report embeds the very same documents, so the numbers on
the page are the command line's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.compare import Comparisons
from ..core.metrics import Evaluation
from ..core.project.analysis import RunResult


def scores_document(
    results: Sequence[RunResult],
    k: int,
    *,
    summary: bool = False,
    upper: Sequence[Evaluation] | None = None,
) -> dict[str, Any]:
    """``{"runs": [{"name", "path", "k", "queries", "mean", "n_queries", "missing", "unknown",
    "unanswerable"}]}``; ``summary`` leaves out the queries, ``upper`` adds the bounds."""
    runs = []
    for i, r in enumerate(results):
        ev = r.evaluation
        bounds = upper[i] if upper is not None else None
        doc: dict[str, Any] = {"name": r.name, "path": str(r.path), "k": k}
        if not summary:
            doc["queries"] = (
                ev.per_query
                if bounds is None
                else {
                    q: {**v, "upper": bounds.per_query.get(q, {})} for q, v in ev.per_query.items()
                }
            )
        doc["mean"] = ev.mean
        if bounds is not None:
            doc["upper"] = bounds.mean
        doc |= {
            "n_queries": ev.n_queries,
            "missing": ev.missing,
            "unknown": ev.unknown,
            "unanswerable": ev.unanswerable,
        }
        runs.append(doc)
    return {"runs": runs}


def comparisons_document(comparisons: Comparisons) -> dict[str, Any]:
    """The base, n, alpha, then one object per (run, metric)."""
    items = [
        {
            "run": c.run,
            "metric": c.metric,
            "base_mean": c.base_mean,
            "run_mean": c.run_mean,
            "delta": c.delta,
            "ci95": None if c.ci95 is None else list(c.ci95),
            "p_randomization": c.p_randomization,
            "p_ttest": c.p_ttest,
            "p_adjusted": c.p_adjusted,
            "significant": c.significant,
            "verdict": c.verdict,
            "verdict_needed": c.verdict_needed,
            "wins": c.wins,
            "ties": c.ties,
            "losses": c.losses,
            "questions_needed": c.questions_needed,
            "detectable_difference": c.detectable_difference,
            "undefined": dict(c.undefined),
        }
        for c in comparisons.items
    ]
    return {
        "base": comparisons.base,
        "n_queries": comparisons.n_queries,
        "alpha": comparisons.alpha,
        "comparisons": items,
    }
