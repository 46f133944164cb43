"""QR207: a run that cannot be tied to a golden set (nothing scores it), with a fix that adds
`qrels:` naming a golden set in the run's own folder, the likely one."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.edits import newline_of
from ..base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from ..base.text import Span, line_start_at
from ..formats.yaml.scalar import yaml_scalar
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
    yield finding(QR207, span, reason, fixes=bind_fixes(x))


def bind_fixes(x: RunInputs) -> tuple[Fix, ...]:
    """ "Add `qrels: NAME`" for each golden set beside a run YAML that names none: one line
    inserted before `results:` (a block mapping's key at the start of its line), in the file's
    own line break; nothing else of the file changes."""
    run = x.run
    if run.format != "run-yaml" or run.qrels is not None or run.results_span is None:
        return ()
    at = run.results_span.start
    if line_start_at(x.text, at) != at:
        return ()  # a flow mapping or an indented key: no safe place for a line of its own
    newline = newline_of(x.text)
    return tuple(
        Fix(
            f"Add `qrels: {name}`",
            (TextEdit(Span(at, at), f"qrels: {yaml_scalar(name)}{newline}"),),
            preferred=len(x.beside) == 1,
        )
        for name in x.beside
    )


CHECK = RunCheck(codes=(QR207,), run=unbound)
