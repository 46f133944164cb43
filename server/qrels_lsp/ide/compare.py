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


def p_text(p: float | None, alpha: float = 0.05) -> str:
    """A p-value as people read it: three decimals (0.046 and 0.055 read apart), more where three
    would round it across ``alpha`` (0.0499 is not shown as 0.050 beside "better"), never a bare
    0; `n/a` where the comparison cannot give one (``Comparison.undefined`` says why)."""
    if p is None:
        return "n/a"
    if p < 0.001:
        return "< 0.001"
    for digits in range(3, 8):
        shown = f"{p:.{digits}f}"
        if (float(shown) < alpha) == (p < alpha):
            return shown
    return shown


def interval_text(ci: tuple[float, float] | None, digits: int = 2) -> str:
    """`[-0.01, +0.17]`, or `[n/a]` where no interval can be drawn."""
    if ci is None:
        return "[n/a]"
    lo, hi = ci
    return f"[{lo:+.{digits}f}, {hi:+.{digits}f}]"


def verdict(c: Comparison) -> str:
    """The comparison's one word (docs/compare.md, "One verdict"), with how many questions would
    tell where there are too few: `better`, `worse`, `no difference detected`, `too few
    questions to tell (120 needed)`."""
    if c.verdict != "too few questions to tell":
        return c.verdict
    if c.verdict_needed is None:
        return c.verdict
    return f"{c.verdict} ({c.verdict_needed:,} needed)"


def verdict_mark(c: Comparison) -> str:
    """`▲` better, `▼` worse, else nothing: the mark a value gets beside its verdict."""
    return {"better": UP, "worse": DOWN}.get(c.verdict, "")


def lens_title(c: Comparison, base: str, alpha: float = 0.05) -> str:
    """`dense vs bm25: better · recall@5 +0.08 · p 0.012 (Holm) · 9W 3L 24T`: the verdict first,
    then the headline metric's difference, the Holm-adjusted p the verdict rests on, and the
    questions each run wins, loses and ties (the intervals, unadjusted, are in the hover). A
    lens title is plain text: the names are quoted for it (``for_log``)."""
    mark = verdict_mark(c)
    return (
        f"{for_log(c.run)} vs {for_log(base)}: {mark + ' ' if mark else ''}{verdict(c)} · "
        f"{c.metric} {signed(c.delta)} · p {p_text(c.p_adjusted, alpha)} (Holm) · "
        f"{c.wins}W {c.losses}L {c.ties}T"
    )


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
            out.append(lens_title(c, comparisons.base, comparisons.alpha))
    return out


def _needed(c: Comparison) -> str:
    return "n/a" if c.questions_needed is None else f"{c.questions_needed:,}"


def _detectable(c: Comparison) -> str:
    return "n/a" if c.detectable_difference is None else f"{c.detectable_difference:.3f}"


_SHOWN_AS = {
    "ci95": "interval",
    "p_randomization": "p (rand.)",
    "p_ttest": "p (t)",
    "p_adjusted": "p (Holm)",
    "questions_needed": "questions needed",
    "detectable_difference": "detectable",
}


def undefined_notes(rows: Sequence[Comparison]) -> list[str]:
    """Why each `n/a` is one: `n/a (p (t), questions needed) on recall@5: every question's delta
    is the same (up to rounding): ...`, one line per metric and reason."""
    out = []
    for c in rows:
        by_reason: dict[str, list[str]] = {}
        for name, reason in c.undefined.items():
            by_reason.setdefault(reason, []).append(_SHOWN_AS.get(name, name))
        for reason, names in by_reason.items():
            out.append(f"n/a ({', '.join(names)}) on {c.metric}: {reason}")
    return out


def comparison_table(
    rows: Sequence[Comparison], alpha: float = 0.05, *, with_run: bool = False
) -> list[str]:
    """A Markdown table of comparisons, a row each: the verdict, then every statistic, each
    labelled with whether it is adjusted for the family (only p (Holm) is); ``with_run``: a
    first column names each row's run."""
    first = "| run " if with_run else ""
    out = [
        f"{first}| metric | verdict | base | run | delta | 95% interval (unadjusted) | p (Holm) "
        "| p (unadjusted) | p (t, unadjusted) | W / L / T | questions needed | detectable now |",
        ("| --- " if with_run else "") + "| --- | --- |" + " ---: |" * 10,
    ]
    for c in rows:
        lead = f"| {md_cell(c.run)} " if with_run else ""
        out.append(
            f"{lead}| {md_cell(c.metric)} | {md_cell(verdict(c))} | {format_value(c.base_mean)} "
            f"| {format_value(c.run_mean)} | {c.delta:+.4f} | {interval_text(c.ci95, 4)} "
            f"| {p_text(c.p_adjusted, alpha)} | {p_text(c.p_randomization, alpha)} "
            f"| {p_text(c.p_ttest, alpha)} | {c.wins} / {c.losses} / {c.ties} "
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
        f"(paired; two-sided tests). The verdict: better or worse when p (Holm), the "
        f"randomization test's p adjusted over the {family} comparison"
        f"{'s' if family != 1 else ''} shown, is below alpha = {comparisons.alpha:g}; else no "
        "difference detected when the questions are enough to detect the difference that "
        "matters, or too few questions to tell. The other p-values and the interval are "
        "unadjusted."
    ]
    for run in shown:
        rows = comparisons.for_run(run)
        out += [
            "",
            f"**{md_text(run)}** vs {md_text(comparisons.base)}",
            "",
            *comparison_table(rows, comparisons.alpha),
            "",
            *(f"*{md_text(note)}*" for note in undefined_notes(rows)),
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


def tags_markdown(tags: Mapping[str, Comparisons]) -> str:
    """Each tag's comparison, a table per tag: its questions alone, Holm over its own runs x
    metrics (each tag is its own question), "too few to decide" where it has fewer questions
    than the power analysis needs."""
    out = ["**By tag**: each tag's questions alone; each tag is a family of its own."]
    for tag, family in tags.items():
        n = family.n_queries
        out += ["", f"**{md_text(tag)}** ({n} question{'s' * (n != 1)})", ""]
        out += comparison_table(family.items, family.alpha, with_run=True)
    return "\n".join(out)


def tag_summary(tags: Mapping[str, Comparisons]) -> str:
    """The first line's hover, per tag: a row per tag and run, the verdict first (the tag's own
    family; too few to decide where it has fewer questions than needed)."""
    if not tags:
        return ""
    metric = next((c.metric for family in tags.values() for c in family.items), "")
    out = [
        f"**By tag** ({md_text(metric)}; each tag's questions alone, a family of its own)",
        "",
        "| tag | questions | run | verdict | delta | p (Holm) |",
        "| --- | ---: | --- | --- | ---: | ---: |",
    ]
    for tag, family in tags.items():
        for c in family.items:
            out.append(
                f"| {md_cell(tag)} | {family.n_queries} | {md_cell(c.run)} | {md_cell(verdict(c))} "
                f"| {c.delta:+.4f} | {p_text(c.p_adjusted, family.alpha)} |"
            )
    return "\n".join(out)
