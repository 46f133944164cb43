"""Printing findings and scores: the text, JSON, GitHub, Markdown and trec_eval formats, with
every id, name and message quoted for where it goes (core/base/escape.py)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .common import log_text

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.project.analysis import Project, QrelsContext, RunResult


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
            print(
                f"{log_text(path)}:{line}:{col}: {f.severity.label} {f.code} {log_text(f.message)}"
            )
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


def render_scores(results: list[RunResult], k: int, fmt: str, project: Project) -> str:
    from ..core.base.escape import json_text, md_text
    from ..core.metrics import format_value

    cell = md_text if fmt == "markdown" else log_text  # ids and names were written by anyone

    if fmt == "json":
        doc = {
            "runs": [
                {
                    "name": r.name,
                    "path": str(r.path),
                    "k": k,
                    "queries": r.evaluation.per_query,
                    "mean": r.evaluation.mean,
                    "n_queries": r.evaluation.n_queries,
                    "missing": r.evaluation.missing,
                    "unknown": r.evaluation.unknown,
                    "unanswerable": r.evaluation.unanswerable,
                }
                for r in results
            ]
        }
        return json_text(doc) + "\n"
    lines: list[str] = []
    for r in results:
        ev = r.evaluation
        names = list(ev.mean) or []
        if fmt == "trec":
            lines.append(f"{'runid':<22}\tall\t{cell(r.name)}")
            for qid, values in ev.per_query.items():
                for name in names:
                    lines.append(f"{name:<22}\t{cell(qid)}\t{format_value(values[name])}")
            lines.append(f"{'num_q':<22}\tall\t{ev.n_queries}")
            for name in names:
                lines.append(f"{name:<22}\tall\t{format_value(ev.mean[name])}")
            continue
        header = ["query", *names]
        body = [
            [cell(qid), *(format_value(v[n]) for n in names)] for qid, v in ev.per_query.items()
        ]
        mean = [f"mean ({ev.n_queries})", *(format_value(ev.mean[n]) for n in names)]
        if fmt == "markdown":
            lines.append(f"### {cell(r.name)}\n")
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|" + "|".join(" --- " for _ in header) + "|")
            lines.extend("| " + " | ".join(row) + " |" for row in body)
            lines.append(
                "| **" + mean[0] + "** | " + " | ".join(f"**{v}**" for v in mean[1:]) + " |"
            )
            lines.append("")  # a line right under a table would render as one more row
        else:
            lines.append(f"{cell(r.name)}  ({cell(str(r.path))})")
            widths = [max(len(row[i]) for row in [header, *body, mean]) for i in range(len(header))]
            lines.extend(aligned(row, widths) for row in [header, *body, mean])
        lines.extend(cell(note) if fmt == "markdown" else note for note in notes_of(r))
        lines.append("")
    return "\n".join(lines) + ("\n" if lines and fmt == "trec" else "")


def aligned(row: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w)
        for i, (c, w) in enumerate(zip(row, widths, strict=True))
    )


def notes_of(r: RunResult) -> list[str]:
    ev = r.evaluation
    out = [f"means over {ev.n_queries} quer{'y' if ev.n_queries == 1 else 'ies'}"]
    if ev.missing:
        out.append(f"missing from the run (scored 0): {log_text(', '.join(ev.missing))}")
    if ev.unknown:
        out.append(f"not in the golden set (ignored): {log_text(', '.join(ev.unknown))}")
    if ev.unanswerable:
        out.append(f"unanswerable (excluded): {log_text(', '.join(ev.unanswerable))}")
    return out


def corpus_problem(ctx: QrelsContext) -> str:
    from ..core.formats.corpus import CorpusError

    if ctx.corpus_path is None:
        return "the golden set names none (`corpus:`)"
    if isinstance(ctx.corpus, CorpusError):
        return f"{ctx.corpus_path}: {ctx.corpus.message}"
    return f"{ctx.corpus_path} could not be indexed"
