"""QR201: a run's query that the golden set does not have (left out of the means)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from .check import RunCheck, RunInputs

QR201 = declare(
    "QR201", "run-unknown-query", Severity.WARNING, "run", "A query that is not in the golden set."
)


def unknown_queries(x: RunInputs) -> Iterable[Finding]:
    if x.qrels is None:
        return
    for qid, ranking in x.run.rankings.items():
        if qid not in x.qrels.queries:
            yield finding(
                QR201,
                ranking.span,
                f"`{qid}` is not a query of the golden set; it is left out of the means.",
            )


CHECK = RunCheck(codes=(QR201,), run=unknown_queries)
