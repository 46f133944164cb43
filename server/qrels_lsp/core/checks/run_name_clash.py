"""QR210: another run of the same golden set has this run's name (core/project/naming.py), so
both are shown by name and file; a run YAML gets a fix that gives it a name of its own."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.edits import newline_of
from ..base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from ..base.text import Span, line_start_at
from ..formats.yaml.scalar import yaml_scalar
from .check import RunCheck, RunInputs

QR210 = declare(
    "QR210",
    "run-name-taken",
    Severity.WARNING,
    "run",
    "Another run of the golden set has this run's name: both are shown by name and file.",
)


def name_taken(x: RunInputs) -> Iterable[Finding]:
    if not x.namesakes:
        return
    others = " and ".join(f"`{p}`" for p in x.namesakes)
    span = x.run.name_span if x.run.name_span is not None else Span(0, 0)
    yield finding(
        QR210,
        span,
        f"{others} of the same golden set {'is' if len(x.namesakes) == 1 else 'are'} also "
        f"named `{x.name}`: each is shown by its name and file (`{x.shown}`), and fusions and "
        "`compare_to` cannot name it alone. Give this run a name of its own.",
        fixes=_rename(x),
    )


def _rename(x: RunInputs) -> tuple[Fix, ...]:
    """`name: dense-yaml` in place of the name, or a line of its own before `results:`."""
    run = x.run
    if run.format != "run-yaml":
        return ()
    wanted = f"{x.name}-yaml"
    if run.name_span is not None:
        edit = TextEdit(run.name_span, yaml_scalar(wanted))
    elif run.results_span is not None and line_start_at(x.text, run.results_span.start) == (
        at := run.results_span.start
    ):
        edit = TextEdit(Span(at, at), f"name: {yaml_scalar(wanted)}{newline_of(x.text)}")
    else:
        return ()
    return (Fix(f"Name this run `{wanted}`", (edit,), preferred=True),)


CHECK = RunCheck(codes=(QR210,), run=name_taken)
