"""The JSON documents `score --format json` and `compare --format json` print (README, "Command
line"), built in one place: the HTML report embeds the very same documents, so the numbers on
the page are the command line's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.compare import Comparison, Comparisons
from ..core.metrics import Evaluation
from ..core.project.results import RunResult


def scores_document(
    results: Sequence[RunResult],
    k: int,
    *,
    summary: bool = False,
    upper: Sequence[Evaluation] | None = None,
    tags: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """``{"runs": [{"name", "path", "k", "queries", "mean", "n_queries", "missing", "unknown",
    "unanswerable"}]}``; ``summary`` leaves out the queries, ``upper`` adds the bounds, ``tags``
    (each tag's questions) adds ``"tags": {TAG: {"n", "mean"}}`` to each run."""
    from ..core.metrics import restricted

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
        if tags is not None:
            doc["tags"] = {}
            for tag, qids in tags.items():
                part = restricted(ev, qids)
                doc["tags"][tag] = {"n": part.n_queries, "mean": part.mean}
        runs.append(doc)
    return {"runs": runs}


def comparisons_document(
    comparisons: Comparisons, tags: Mapping[str, Comparisons] | None = None
) -> dict[str, Any]:
    """The base, n, alpha, then one object per (run, metric); with ``tags`` (`--by tag`), each
    object also says its ``tag`` (null: the whole golden set) and its ``n_queries``, and each
    tag's comparisons follow the whole set's."""
    families = [comparisons, *(tags or {}).values()]
    items = []
    for family in families:
        for c in family.items:
            item = _comparison(c)
            if tags is not None:
                item = {"tag": family.tag, "n_queries": family.n_queries, **item}
            items.append(item)
    return {
        "base": comparisons.base,
        "n_queries": comparisons.n_queries,
        "alpha": comparisons.alpha,
        "comparisons": items,
    }


def _comparison(c: Comparison) -> dict[str, Any]:
    return {
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
