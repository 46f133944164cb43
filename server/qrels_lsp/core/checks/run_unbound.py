"""QR207: a run that cannot be tied to a golden set (nothing scores it)."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..base.text import Span
from .check import RunCheck, RunInputs

QR207 = declare(
    "QR207", "run-unbound", Severity.WARNING, "run", "The run cannot be tied to a golden set."
)


def unbound(x: RunInputs) -> Iterable[Finding]:
    if x.qrels is not None:
        return
    span = x.run.qrels.span if x.run.qrels is not None else Span(0, 0)
    reason = x.unbound_reason or (
        "This run is not tied to a golden set: add `qrels: path/to/golden.qrels.yaml`, "
        "list it in a golden set's `runs:`, or name it in qrels-lsp.toml."
    )
    yield finding(QR207, span, reason)


CHECK = RunCheck(codes=(QR207,), run=unbound)
