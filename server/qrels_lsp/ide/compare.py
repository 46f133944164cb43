"""Comparisons in words and tables: the golden set's header lens per run, the whole comparison
as markdown (its hover, the lens's command, `qrels-lsp compare --format markdown`), and the
per-question marks. Shared by the editor and the CLI, so both say a comparison the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..core.base.escape import for_log, md_cell, md_code, md_text
from ..core.base.text import line_index
from ..core.compare import Comparison, Comparisons
from ..core.metrics import format_value

UP, DOWN = "▲", "▼"
FLIPPED_SHOWN = 20
"""Questions listed per direction under a comparison: the largest differences first."""


def signed(x: float) -> str:
    return f"{x:+.2f}"


def p_text(p: float) -> str:
    """A p-value as people read it: two significant digits, never a bare 0."""
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def verdict(c: Comparison) -> str:
    """`▲ significant` / `▼ significant` / `not significant`, at the comparison's alpha."""
    if not c.significant:
        return "not significant"
    return f"{UP if c.delta > 0 else DOWN} significant"


def lens_title(c: Comparison, base: str) -> str:
    """`dense vs bm25 (baseline) · recall@5 +0.08 [-0.01, +0.17] · p 0.09 · 9W 3L 24T`: the
    headline metric's difference, its 95% interval, the Holm-adjusted p of the randomization
    test, and the questions each run wins, loses and ties."""
    lo, hi = c.ci95
    title = (
        f"{for_log(c.run)} vs {for_log(base)} · {c.metric} {signed(c.delta)} [{signed(lo)}, {signed(hi)}]"
        f" · p {p_text(c.p_adjusted)} · {c.wins}W {c.losses}L {c.ties}T"
    )
    return title + (f" · {verdict(c)}" if c.significant else "")


def headline(comparisons: Comparisons, run: str, metric: str) -> Comparison | None:
    """The comparison a lens shows: ``metric`` (the golden set's recall@k), else the first."""
    mine = comparisons.for_run(run)
    return next((c for c in mine if c.metric == metric), mine[0] if mine else None)


def header_lens_titles(comparisons: Comparisons | None, metric: str) -> list[str]:
    """One lens per run compared with the base."""
    if comparisons is None:
        return []
    runs = list(dict.fromkeys(c.run for c in comparisons.items))
    out = []
    for run in runs:
        c = headline(comparisons, run, metric)
        if c is not None:
            out.append(lens_title(c, comparisons.base))
    return out


def _needed(c: Comparison) -> str:
    return "–" if c.questions_needed is None else f"{c.questions_needed:,}"


def _detectable(c: Comparison) -> str:
    return "–" if c.detectable_difference is None else f"{c.detectable_difference:.3f}"


def comparison_table(rows: Sequence[Comparison]) -> list[str]:
    """A Markdown table of comparisons, a row each: every statistic and the verdict."""
    out = [
        "| metric | base | run | delta | 95% interval | p (rand.) | p (t) | p (Holm) | W / L / T "
        "| verdict | questions needed | detectable now |",
        "| --- |" + " ---: |" * 8 + " --- | ---: | ---: |",
    ]
    for c in rows:
        lo, hi = c.ci95
        p_t = "n/a" if c.p_ttest is None else p_text(c.p_ttest)
        out.append(
            f"| {md_cell(c.metric)} | {format_value(c.base_mean)} | {format_value(c.run_mean)} "
            f"| {c.delta:+.4f} | [{lo:+.4f}, {hi:+.4f}] | {p_text(c.p_randomization)} | {p_t} "
            f"| {p_text(c.p_adjusted)} | {c.wins} / {c.losses} / {c.ties} | {verdict(c)} "
            f"| {_needed(c)} | {_detectable(c)} |"
        )
    return out


Place = tuple[Path, str, Mapping[str, int]]
"""A golden set's path, its text and where each question's entry starts: what links point at."""


def question_links(place: Place | None, qids: Sequence[str]) -> dict[str, str]:
    """Each question as a link to its entry (``file://...#L12``), or as code without a place."""
    if place is None:
        return {q: md_code(q) for q in qids}
    path, text, starts = place
    lines = line_index(text)
    out = {}
    for qid in qids:
        at = starts.get(qid)
        line = lines.position(at)[0] + 1 if at is not None else 1
        out[qid] = f"[{md_text(qid)}]({path.as_uri()}#L{line})"
    return out


def flipped(c: Comparison, place: Place | None = None, shown: int = FLIPPED_SHOWN) -> list[str]:
    """The questions the run wins and loses on ``c``'s metric, largest difference first."""
    wins = sorted((q for q, d in c.deltas.items() if d > 0), key=lambda q: -c.deltas[q])
    losses = sorted((q for q, d in c.deltas.items() if d < 0), key=lambda q: c.deltas[q])
    links = question_links(place, [*wins[:shown], *losses[:shown]])
    out = []
    for mark, what, qids in ((UP, "better", wins), (DOWN, "worse", losses)):
        if not qids:
            continue
        items = ", ".join(f"{links[q]} {c.deltas[q]:+.2f}" for q in qids[:shown])
        more = f" and {len(qids) - shown} more" if len(qids) > shown else ""
        out.append(f"{mark} {len(qids)} {what} on {md_text(c.metric)}: {items}{more}.")
    return out


def comparison_markdown(
    comparisons: Comparisons,
    runs: Sequence[str] | None = None,
    metric: str | None = None,
    place: Place | None = None,
) -> str:
    """Every metric of each run (``runs``: all) against the base, how to read it, and the
    questions that flipped on ``metric`` (the headline), each a link to its entry."""
    n = comparisons.n_queries
    names = list(dict.fromkeys(c.run for c in comparisons.items))
    shown = [r for r in names if runs is None or r in runs]
    family = len(comparisons.items)
    out = [
        f"**Compared with {md_text(comparisons.base)}** over {n} question{'s' if n != 1 else ''} "
        f"(paired; two-sided tests; p (Holm) adjusts the randomization test's p over the "
        f"{family} comparison{'s' if family != 1 else ''} shown; significant when it is below "
        f"alpha = {comparisons.alpha:g})."
    ]
    for run in shown:
        rows = comparisons.for_run(run)
        out += [
            "",
            f"**{md_text(run)}** vs {md_text(comparisons.base)}",
            "",
            *comparison_table(rows),
            "",
        ]
        top = next((c for c in rows if c.metric == metric), rows[0] if rows else None)
        if top is not None:
            out += flipped(top, place)
    d = comparisons.min_difference
    size = "the observed difference" if d is None else f"a true difference of {d:g}"
    out.append(
        f"\n*Questions needed*: how many questions a paired t-test needs to detect {size} "
        "with power 0.8 at alpha 0.05; *detectable now*: the smallest true difference today's "
        "questions detect so."
    )
    return "\n".join(out)


def delta_mark(value: float, base: float | None) -> str:
    """`▲`/`▼` after a question's value where a run beats or trails the base on it."""
    if base is None or value == base:
        return ""
    return UP if value > base else DOWN
