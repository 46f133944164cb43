"""QR202: golden-set queries a run does not answer (each scores 0 in every mean); a run that
answers none, holding no ranking at all, is not scored (an error: never a table of zeros)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..base.text import Span
from .check import RunCheck, RunInputs

QR202 = declare(
    "QR202",
    "run-missing-query",
    Severity.WARNING,
    "run",
    "A golden-set query the run does not answer (scored 0); an error when the run holds no "
    "ranking at all (empty): it is not scored.",
)


def missing_queries(x: RunInputs) -> Iterable[Finding]:
    if x.qrels is None:
        return
    run = x.run
    missing = [
        qid for qid, q in x.qrels.queries.items() if qid not in run.rankings and not q.unanswerable
    ]
    if not missing:
        return
    shown = ", ".join(f"`{q}`" for q in missing[:10]) + (" ..." if len(missing) > 10 else "")
    span = run.results_span or (run.qrels.span if run.qrels is not None else Span(0, 0))
    if not run.rankings:
        yield finding(
            QR202,
            span,
            "This run holds no ranking (the file is empty, or no line of it is one): it is not "
            "scored, as trec_eval refuses it, rather than scored 0 on every golden-set query "
            f"({shown}).",
            severity=Severity.ERROR,
        )
        return
    yield finding(
        QR202,
        span,
        f"{len(missing)} golden-set quer{'y is' if len(missing) == 1 else 'ies are'} "
        f"missing from this run and score 0 in every mean: {shown}.",
    )


CHECK = RunCheck(codes=(QR202,), run=missing_queries)
