"""QR205: a ranking with fewer than k results."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from .check import RunCheck, RunInputs

QR205 = declare(
    "QR205", "run-short-ranking", Severity.INFO, "run", "Fewer than k results for a query."
)


def short_rankings(x: RunInputs) -> Iterable[Finding]:
    for qid, ranking in x.run.rankings.items():
        if len(ranking.docs) < x.k:
            yield finding(
                QR205,
                ranking.span,
                f"`{qid}` has {len(ranking.docs)} result(s), fewer than k = {x.k}.",
            )


CHECK = RunCheck(codes=(QR205,), run=short_rankings)
