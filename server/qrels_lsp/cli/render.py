"""Printing findings and scores: the text, JSON, GitHub, Markdown and trec_eval formats, with
every id, name and message quoted for where it goes (core/base/escape.py)."""

from __future__ import annotations

import functools
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .common import log_text

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.metrics import Evaluation
    from ..core.project.project import Project
    from ..core.project.results import QrelsContext, RunResult


def finding_line(path: object, line: int, col: int, f: Finding) -> str:
    """A finding as `check` prints it (1-based line and column): ``path:line:col: severity CODE
    message``, quoted for a terminal or CI log."""
    return f"{log_text(path)}:{line}:{col}: {f.severity.label} {f.code} {log_text(f.message)}"


def located(path: object, text: str, f: Finding) -> str:
    """:func:`finding_line` of a finding in ``text``."""
    from ..core.base.text import line_index

    line, col = line_index(text).position(f.span.start)
    return finding_line(path, line + 1, col + 1, f)


def print_findings(
    reports: list[tuple[str, str, list[Finding]]],
    fmt: str,
    read_as: dict[str, str | None] | None = None,
) -> None:
    """Findings as text, JSON or GitHub annotations. JSON also lists each file looked at with
    the format it was read as (``read_as``: a format's name; for a file skipped, what it was
    recognised as, such as ``trec-topics``; null when nothing)."""
    from ..core.base.escape import github_data, github_property, json_text
    from ..core.base.text import line_index

    rows = []
    for path, text, findings in reports:
        lines = line_index(text)
        for f in findings:
            line, col = lines.position(f.span.start)
            end_line, end_col = lines.position(f.span.end)
            rows.append((path, line + 1, col + 1, end_line + 1, end_col + 1, f))
    if fmt == "json":
        out = [
            {
                "path": path,
                "line": line,
                "column": col,
                "end_line": end_line,
                "end_column": end_col,
                "severity": f.severity.label,
                "code": f.code,
                "message": f.message,
                "fixes": [fix.title for fix in f.fixes],
            }
            for path, line, col, end_line, end_col, f in rows
        ]
        looked_at = [{"path": path, "format": kind} for path, kind in (read_as or {}).items()]
        print(json_text({"findings": out, "files": looked_at}))
        return

    for path, line, col, end_line, end_col, f in rows:
        if fmt == "github":
            level = {1: "error", 2: "warning"}.get(int(f.severity), "notice")
            print(
                f"::{level} file={github_property(path)},line={line},col={col},"
                f"endLine={end_line},endColumn={end_col},title={github_property(f.code)}"
                f"::{github_data(f.message)}"
            )
        else:
            print(finding_line(path, line, col, f))
    if fmt == "text":
        counts: dict[str, int] = {}
        for *_, f in rows:
            counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
        files = len(reports)
        summary = ", ".join(f"{n} {label}{'s' if n != 1 else ''}" for label, n in counts.items())
        print(
            f"{files} file{'s' if files != 1 else ''} checked: {summary or 'no problems'}.",
            file=sys.stderr,
        )


def render_scores(
    results: list[RunResult],
    k: int,
    fmt: str,
    project: Project,
    *,
    summary: bool = False,
    upper: list[Evaluation] | None = None,
    tags: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """Each run's per-query table and means, then (for several runs) their means side by side;
    ``summary``: the means alone; ``upper``: each run's optimistic bounds too; ``tags``: each
    tag's questions, whose means follow, a table per tag."""
    if fmt == "json":
        return _json_scores(results, k, summary, upper, tags)
    if fmt == "trec":
        return "".join(_trec_eval_lines(r, project, summary) for r in results)
    bounds: list[Evaluation | None] = list(upper) if upper else [None] * len(results)
    parts = [] if summary else [_run_table(r, fmt, b) for r, b in zip(results, bounds, strict=True)]
    if summary or len(results) > 1:
        parts.append(_means_table(results, fmt, upper))
    for tag, qids in (tags or {}).items():
        parts.append(_tag_table(tag, qids, results, fmt))
    return "\n".join(parts)


def _tag_table(tag: str, qids: Sequence[str], results: list[RunResult], fmt: str) -> str:
    """One tag's means, the runs side by side, as the whole set's are."""
    from ..core.project.comparing import restricted_runs

    cell = _cell(fmt)
    n = len(qids)
    title = f"tag {cell(tag)}: {n} question{'s' * (n != 1)}"
    table = _means_table(restricted_runs(results, qids), fmt, None)
    return table.replace(
        "### Means" if fmt == "markdown" else "Means",
        f"### {title}" if fmt == "markdown" else title,
        1,
    )


def _json_scores(
    results: list[RunResult],
    k: int,
    summary: bool,
    upper: list[Evaluation] | None,
    tags: Mapping[str, Sequence[str]] | None,
) -> str:
    from ..core.base.escape import json_text
    from ..ide.documents import scores_document

    doc = scores_document(results, k, summary=summary, upper=upper, tags=tags)
    return json_text(doc) + "\n"


def _cell(fmt: str) -> Callable[[str], str]:
    """How an id or name someone else wrote is quoted in ``fmt``."""
    from ..core.base.escape import md_cell

    return md_cell if fmt == "markdown" else log_text


def _run_table(r: RunResult, fmt: str, upper: Evaluation | None = None) -> str:
    """One run: a row per query, the means, and what the means are over; with ``upper``, the
    bound of each mean (the value if the unjudged top documents were relevant) under it."""
    from ..core.metrics import format_value

    cell = _cell(fmt)
    ev = r.evaluation
    names = list(ev.mean)
    header = ["query", *names]
    body = [[cell(qid), *(format_value(v[n]) for n in names)] for qid, v in ev.per_query.items()]
    mean = [f"mean ({ev.n_queries})", *(format_value(ev.mean[n]) for n in names)]
    totals = [mean]
    if upper is not None:
        totals.append(["up to", *_bound_cells(upper, names)])
    title = (
        f"### {cell(r.name)}\n" if fmt == "markdown" else f"{cell(r.name)}  ({cell(str(r.path))})"
    )
    notes = notes_of(r, cell) + ([BOUNDS_NOTE] if upper is not None else [])
    return "\n".join([title, _table(header, body, totals, fmt), "", *notes, ""])


BOUNDS_NOTE = "up to: the mean if every unjudged document in the run's top k were relevant"


def _bound_cells(upper: Evaluation, names: list[str]) -> list[str]:
    from ..core.metrics import format_value

    return [format_value(upper.mean[n]) if n in upper.mean else "-" for n in names]


def _means_table(results: list[RunResult], fmt: str, upper: list[Evaluation] | None) -> str:
    """The runs' means side by side: the row a decision is made on (with ``upper``, each run's
    bounds in the row under its means)."""
    from ..core.metrics import format_value

    cell = _cell(fmt)
    names = list(dict.fromkeys(n for r in results for n in r.evaluation.mean))
    header = ["run", *names, "queries"]
    body = []
    for i, r in enumerate(results):
        means = r.evaluation.mean
        body.append(
            [
                cell(r.name),
                *(format_value(means[n]) if n in means else "-" for n in names),
                str(r.evaluation.n_queries),
            ]
        )
        if upper is not None:
            body.append(["  up to", *_bound_cells(upper[i], names), ""])
    title = "### Means\n" if fmt == "markdown" else "Means"
    notes = [BOUNDS_NOTE, ""] if upper is not None else []
    return "\n".join([title, _table(header, body, None, fmt), "", *notes])


def _table(
    header: list[str], body: list[list[str]], totals: list[list[str]] | None, fmt: str
) -> str:
    """Aligned columns, or a Markdown table (a blank line must follow it: a line right under a
    table renders as one more row)."""
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        for total in totals or ():
            lines.append("| " + " | ".join(f"**{c}**" for c in total) + " |")
        return "\n".join(lines) + "\n"
    rows = [header, *body, *(totals or ())]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(aligned(row, widths) for row in rows)


def _trec_eval_lines(r: RunResult, project: Project, summary: bool) -> str:
    """What `trec_eval -c -q -m ...` prints for the same measures: its names, the run's own
    tag as runid, queries in trec_eval's order, values to four decimals; a measure trec_eval
    does not have keeps qrels-lsp's name."""
    from ..core.metrics import format_value, parse_metric, trec_eval_name, trec_eval_rank

    ev = r.evaluation
    metrics = {n: parse_metric(n) for n in ev.mean}
    order = sorted(ev.mean, key=lambda n: trec_eval_rank(metrics[n]))
    names = {n: trec_eval_name(metrics[n]) or n for n in order}
    per_query: dict[str, dict[str, float]] = {q: dict(v) for q, v in ev.per_query.items()}
    means = dict(ev.mean)
    # judged@k is printed as trec_eval prints it: unj_k, its complement, computed as trec_eval
    # computes it (unjudged / k, then their mean) so that its last digit is trec_eval's too
    for n in order:
        if metrics[n].measure.complement and trec_eval_name(metrics[n]):
            k = metrics[n].k or 1
            for values in per_query.values():
                values[n] = round((1.0 - values[n]) * k) / k
            column = [per_query[q][n] for q in sorted(per_query)]
            means[n] = functools.reduce(operator.add, column, 0.0) / len(column) if column else 0.0
    lines: list[str] = []
    if not summary:
        for qid in sorted(per_query, key=lambda q: q.encode("utf-8", "surrogateescape")):
            values = per_query[qid]
            lines += [f"{names[n]:<22}\t{log_text(qid)}\t{format_value(values[n])}" for n in order]
    lines.append(f"{'runid':<22}\tall\t{log_text(project.runs.runid(r))}")
    lines.append(f"{'num_q':<22}\tall\t{ev.n_queries}")
    lines += [f"{names[n]:<22}\tall\t{format_value(means[n])}" for n in order]
    return "\n".join(lines) + "\n"


def aligned(row: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w)
        for i, (c, w) in enumerate(zip(row, widths, strict=True))
    )


def notes_of(r: RunResult, cell: Callable[[str], str] = log_text) -> list[str]:
    ev = r.evaluation
    out = [f"means over {ev.n_queries} quer{'y' if ev.n_queries == 1 else 'ies'}"]
    if ev.missing:
        out.append(f"missing from the run (scored 0): {cell(', '.join(ev.missing))}")
    if ev.unknown:
        out.append(f"not in the golden set (ignored): {cell(', '.join(ev.unknown))}")
    if ev.unanswerable:
        out.append(f"unanswerable (excluded): {cell(', '.join(ev.unanswerable))}")
    return out


def corpus_problem(ctx: QrelsContext) -> str:
    from ..core.formats.corpus import CorpusError
    from ..ide.present import corpus_hint

    if ctx.corpus_path is None:
        return corpus_hint(ctx)
    if isinstance(ctx.corpus, CorpusError):
        return f"{ctx.corpus_path}: {ctx.corpus.message}"
    return f"{ctx.corpus_path} could not be indexed"
