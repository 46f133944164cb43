"""A golden set's history in words (docs/history.md): what changed since the base version and
why each number moved, as ``qrels-lsp diff`` prints it (text, Markdown for a pull request,
JSON) and as the editor shows it (the first line's lens, its hover table, each changed
question's lens). Every id and name quoted goes through ``core/base/escape.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..core.base.escape import for_log, md_cell, md_text
from ..core.history.attribution import Change, Part
from ..core.history.changes import GoldenChanges
from ..core.history.diff import History
from ..core.metrics import format_value

SHOWN_IDS = 10
"""Ids listed per kind of change in text and Markdown (JSON lists them all)."""
SHOWN_QUESTIONS = 20
"""Questions listed per run in text and Markdown, those that moved most first."""


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def what_changed(c: GoldenChanges) -> str:
    """``+3 questions, 5 regraded, k 5 → 10``: each kind of change counted; "no change"."""
    reworded, flipped, added, removed, regraded = c.counts()
    parts = [
        f"+{plural(len(c.added), 'question')}" if c.added else "",
        f"-{plural(len(c.removed), 'question')}" if c.removed else "",
        f"{len(c.renamed):,} renamed" if c.renamed else "",
        f"{reworded:,} reworded" if reworded else "",
        f"{flipped:,} (un)answerable" if flipped else "",
        f"+{plural(added, 'judgment')}" if added else "",
        f"-{plural(removed, 'judgment')}" if removed else "",
        f"{regraded:,} regraded" if regraded else "",
    ]
    for key, (old, new) in c.settings.items():
        scalar = isinstance(old, (int, type(None))) and isinstance(new, (int, type(None)))
        parts.append(f"{key} {old} → {new}" if scalar else f"{key} changed")
    return ", ".join(p for p in parts if p) or "no change"


def signed(x: float, digits: int = 4) -> str:
    """A change with its sign (``+0.0400``, ``-0.0100``; ``0`` exactly for nothing)."""
    return f"{x:+.{digits}f}" if x else "0"


def parts_text(part: Part, digits: int = 2) -> str:
    """``judgments -0.03, run -0.01``: the parts that are not 0."""
    named = (("judgments", part.judgments), ("run", part.run_change), ("both", part.interaction))
    shown = [f"{name} {signed(v, digits)}" for name, v in named if v]
    return ", ".join(shown)


def head_metric(history: History, k: int) -> str | None:
    """The metric the lenses lead with: recall@k when it is computed, else the first."""
    names = [c.metric for r in history.runs for c in r.changes]
    wanted = f"recall@{k}"
    return wanted if wanted in names else (names[0] if names else None)


def change_text(change: Change, digits: int = 2) -> str:
    """``recall@5 -0.04 (judgments -0.03, run -0.01)``."""
    parts = parts_text(change.mean, digits)
    return f"{change.metric} {signed(change.mean.total, digits)}" + (f" ({parts})" if parts else "")


def worth_a_lens(history: History) -> bool:
    """Whether the first line says anything of the history: not when the golden set, its
    settings and every run's numbers are as the base has them (no lens for no news)."""
    moved = any(
        c.mean.total or c.mean.judgments or c.mean.run_change
        for r in history.runs
        for c in r.changes
    )
    return history.problem is not None or bool(history.changes) or moved


def header_title(history: History, k: int, *, blind: bool = False) -> str:
    """The first line's lens: ``since main: +3 questions, 5 regraded · dense: recall@5 -0.04
    (judgments -0.03, run -0.01)`` (each run whose head metric moved; judging blind, none)."""
    label = for_log(history.base)
    if history.problem is not None:
        return f"since {label}: {for_log(history.problem)}"
    title = f"since {label}: {what_changed(history.changes)}"
    metric = head_metric(history, k)
    moved = [
        f"{for_log(r.name)}: {change_text(c)}"
        for r in history.runs
        for c in r.changes
        if c.metric == metric and (c.mean.total or c.mean.judgments or c.mean.run_change)
    ]
    return " · ".join([title, *([] if blind else moved)])


def question_title(history: History, qid: str, k: int, *, blind: bool = False) -> str | None:
    """A changed question's lens (None when nothing changed it): what changed and, for each
    run whose head metric moved on it, by how much and why."""
    said = _question_said(history.changes, qid)
    metric = head_metric(history, k)
    moved = []
    for r in () if blind else history.runs:
        change = next((x for x in r.changes if x.metric == metric), None)
        part = change.questions.get(qid) if change is not None else None
        if part is not None and (part.total or part.judgments or part.run_change):
            parts = parts_text(part)
            moved.append(
                f"{for_log(r.name)} {signed(part.total, 2)}" + (f" ({parts})" if parts else "")
            )
    if not said and not moved:
        return None
    what = f"{metric} " + ", ".join(moved) if moved else ""
    return f"since {for_log(history.base)}: " + " · ".join(x for x in (said, what) if x)


def _question_said(c: GoldenChanges, qid: str) -> str:
    if qid in c.added:
        return "new question"
    renamed = next((old for old, new in c.renamed if new == qid), None)
    if renamed is not None:
        return f"renamed from {for_log(renamed)}"
    change = c.changed.get(qid)
    if change is None:
        return ""
    words = [
        "reworded" if change.reworded else "",
        "(un)answerable" if change.unanswerable else "",
        f"+{plural(len(change.added), 'judgment')}" if change.added else "",
        f"-{plural(len(change.removed), 'judgment')}" if change.removed else "",
        f"{len(change.regraded)} regraded" if change.regraded else "",
    ]
    return ", ".join(w for w in words if w)


# -- JSON -----------------------------------------------------------------------------------


def _part_json(part: Part) -> dict[str, Any]:
    return {
        "before": part.before,
        "after": part.after,
        "total": part.total,
        "judgments": part.judgments,
        "run_change": part.run_change,
        "interaction": part.interaction,
    }


def history_json(history: History) -> dict[str, Any]:
    """``diff --format json`` (docs/history.md, "JSON"): lists of ids in file order, every run
    and metric with its parts, every question that moved with its own."""
    c = history.changes
    added, removed, regraded = c.judgments()
    out_changes = []
    for run in history.runs:
        for change in run.changes:
            doc: dict[str, Any] = {"run": run.name, "metric": change.metric}
            if change.before_metric != change.metric:
                doc["before_metric"] = change.before_metric
            doc.update(_part_json(change.mean))
            doc["n"] = {"before": change.n_before, "after": change.n_after}
            doc["questions"] = {q: _part_json(p) for q, p in change.questions.items()}
            if run.note:
                doc["note"] = run.note
            out_changes.append(doc)
    return {
        "old": history.base,
        "new": history.head,
        "questions": {
            "added": list(c.added),
            "removed": list(c.removed),
            "renamed": [list(pair) for pair in c.renamed],
            "reworded": c.reworded,
            "unanswerable": c.unanswerable,
        },
        "judgments": {
            "added": [list(j) for j in added],
            "removed": [list(j) for j in removed],
            "regraded": [list(j) for j in regraded],
        },
        "settings": {key: [_plain(old), _plain(new)] for key, (old, new) in c.settings.items()},
        "n": {"before": history.n_before, "after": history.n_after},
        "changes": out_changes,
    }


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


# -- text and Markdown ----------------------------------------------------------------------


def _listed(items: list[str], quote: Callable[[str], str]) -> str:
    shown = ", ".join(quote(x) for x in items[:SHOWN_IDS])
    return shown + (f", … {len(items) - SHOWN_IDS:,} more" if len(items) > SHOWN_IDS else "")


def _change_lines(history: History, quote: Callable[[str], str]) -> list[str]:
    """One line per kind of change, its ids listed (the first few)."""
    c = history.changes
    added, removed, regraded = c.judgments()
    kinds: list[tuple[str, list[str]]] = [
        ("questions added", list(c.added)),
        ("questions removed", list(c.removed)),
        ("renamed", [f"{o} → {n}" for o, n in c.renamed]),
        ("reworded", c.reworded),
        ("(un)answerable", c.unanswerable),
        ("judgments added", [f"{q} {d} ({g})" for q, d, g in added]),
        ("judgments removed", [f"{q} {d} ({g})" for q, d, g in removed]),
        ("regraded", [f"{q} {d} {a} → {b}" for q, d, a, b in regraded]),
    ]
    lines = [f"{kind}: {_listed(ids, quote)}" for kind, ids in kinds if ids]
    lines += [
        f"{key}: {quote(str(_plain(o)))} → {quote(str(_plain(n)))}"
        for key, (o, n) in c.settings.items()
    ]
    return lines


COLUMNS = ("before", "after", "total", "judgments", "run", "interaction")


def _cells(part: Part) -> list[str]:
    value = [format_value(v) if v is not None else "absent" for v in (part.before, part.after)]
    return [
        *value,
        *(signed(v) for v in (part.total, part.judgments, part.run_change, part.interaction)),
    ]


def _rows(history: History) -> list[tuple[str, str, Part, str | None]]:
    return [(r.name, c.metric, c.mean, r.note) for r in history.runs for c in r.changes]


def _moved_most(change: Change) -> list[tuple[str, Part]]:
    return sorted(change.questions.items(), key=lambda item: (-abs(item[1].total), item[0]))


def _denominator(history: History) -> str:
    before, after = history.n_before, history.n_after
    if before == after:
        return f"means over {plural(after, 'question')} in both versions"
    return (
        f"means over {plural(before, 'question')} before and {after:,} after: a question added "
        "or removed changes each mean's denominator as well as its sum"
    )


def text_report(history: History, k: int) -> str:
    """``diff``'s text: what changed, then a table of every run and metric, then the questions
    that moved most on the head metric."""
    lines = [
        f"{for_log(history.head)} since {for_log(history.base)}: {what_changed(history.changes)}"
    ]
    lines += ["  " + line for line in _change_lines(history, for_log)]
    lines.append(_denominator(history))
    rows = [["run", "metric", *COLUMNS]]
    rows += [[for_log(run), metric, *_cells(part)] for run, metric, part, _ in _rows(history)]
    lines += ["", *_aligned(rows)]
    lines += [f"note: {for_log(r.name)}: {for_log(r.note)}" for r in history.runs if r.note]
    for run, change in _head_changes(history, k):
        moved = _moved_most(change)
        if not moved:
            continue
        lines += ["", f"{for_log(run)}, {change.metric}: {plural(len(moved), 'question')} moved"]
        table = [["question", *COLUMNS]]
        table += [[for_log(q), *_cells(p)] for q, p in moved[:SHOWN_QUESTIONS]]
        lines += _aligned(table)
        if len(moved) > SHOWN_QUESTIONS:
            lines.append(f"… {len(moved) - SHOWN_QUESTIONS:,} more (--format json lists each)")
    return "\n".join(lines) + "\n"


def _head_changes(history: History, k: int) -> Iterable[tuple[str, Change]]:
    metric = head_metric(history, k)
    for r in history.runs:
        for c in r.changes:
            if c.metric == metric:
                yield r.name, c


def _aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def markdown_report(history: History, k: int, *, questions: bool = True) -> str:
    """The same in Markdown: a pull request's comment (``diff --format markdown``) and the
    hover of the golden set's first line (``questions``: with the questions that moved)."""
    c = history.changes
    lines = [
        f"**{md_text(history.head)}** since **{md_text(history.base)}**: {md_text(what_changed(c))}",
        "",
    ]
    lines += [f"- {md_text(line)}" for line in _change_lines(history, str)]
    lines += ["", f"*{md_text(_denominator(history))}; judgments + run + interaction = total.*", ""]
    header = ["run", "metric", *COLUMNS]
    rows = [
        [md_cell(run), md_cell(metric), *_cells(part)] for run, metric, part, _ in _rows(history)
    ]
    lines += _md_table(header, rows)
    lines += [f"\n*{md_text(r.name)}: {md_text(r.note)}*" for r in history.runs if r.note]
    if questions:
        for run, change in _head_changes(history, k):
            moved = _moved_most(change)
            if moved:
                lines += [
                    "",
                    f"**{md_text(run)}**, {md_text(change.metric)}: {plural(len(moved), 'question')} moved",
                    "",
                ]
                table = [[md_cell(q, code=True), *_cells(p)] for q, p in moved[:SHOWN_QUESTIONS]]
                lines += _md_table(["question", *COLUMNS], table)
                if len(moved) > SHOWN_QUESTIONS:
                    lines.append(f"\n… {len(moved) - SHOWN_QUESTIONS:,} more")
    return "\n".join(lines) + "\n"
