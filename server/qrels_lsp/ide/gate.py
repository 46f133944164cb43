"""The CI gate's verdict in words: the Markdown summary a pull request shows (GitHub's step
summary), verdict first, then the comparison, the questions that flipped, coverage and what to
do. Every name and id is quoted (core/base/escape.py): a summary must not carry HTML, or a link
that looks like the tool's own verdict, written by whoever wrote the files."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.base.escape import md_block, md_cell, md_code, md_text
from ..core.project.gating import Flip, Verdict
from .compare import comparison_table, p_text, verdict

FLIPS_SHOWN = 20  # per direction
HEADLINE = {"pass": "✅ pass", "fail": "❌ fail", "cannot tell": "⚠️ cannot tell: judge first"}


def verdict_line(v: Verdict) -> str:
    return f"{HEADLINE[v.status]}: {v.head} against {v.base}"


def summary_markdown(
    v: Verdict, golden: str, lines: Mapping[str, int], pool_command: str, max_drop: float
) -> str:
    """The whole summary; ``lines``: each question's line in the golden set (1-based)."""
    out = [
        f"## qrels-lsp gate: {HEADLINE[v.status]}",
        "",
        f"**{md_text(v.head)}** (head) against **{md_text(v.base)}** (base) on "
        f"{md_code(golden)}, {v.n_queries} question{'s' * (v.n_queries != 1)}.",
        "",
    ]
    if v.reasons:
        out += ["**Why:**", "", *(f"- {md_text(r)}" for r in v.reasons), ""]
    else:
        out += [
            f"No metric is significantly worse or down by more than {max_drop:g}, and no "
            "critical question got worse.",
            "",
        ]
    out += [
        "### Comparison",
        "",
        *comparison_table(v.comparisons.for_run(v.head), v.comparisons.alpha),
        "",
    ]
    out += _tags(v)
    out += _flips(v, lines)
    out += ["### Coverage", ""]
    if v.judgments is not None:
        out += [md_text(v.judgments.describe()[0].upper() + v.judgments.describe()[1:]) + ".", ""]
    out += [f"| run | judged@{v.k} |", "| --- | ---: |"]
    out += [f"| {md_cell(run)} | {value:.4f} |" for run, value in v.judged.items()]
    out += ["", "### What to do", "", *_todo(v, pool_command), ""]
    return "\n".join(out)


def _tags(v: Verdict) -> list[str]:
    """Each tag's questions alone (`--per-tag-max-drop`): its n and the head's verdict there."""
    if not v.tags:
        return []
    out = [
        "### By tag",
        "",
        "Each tag's questions alone, a family of its own; too few to decide where a tag has "
        "fewer questions than the power analysis needs.",
        "",
        "| tag | questions | metric | verdict | delta | p (Holm) | questions needed |",
        "| --- | ---: | --- | --- | ---: | ---: | ---: |",
    ]
    for tag, family in v.tags.items():
        for c in family.for_run(v.head):
            needed = "n/a" if c.questions_needed is None else f"{c.questions_needed:,}"
            out.append(
                f"| {md_cell(tag)} | {family.n_queries} | {md_cell(c.metric)} "
                f"| {md_cell(verdict(c))} | {c.delta:+.4f} | {p_text(c.p_adjusted, family.alpha)} "
                f"| {needed} |"
            )
    return [*out, ""]


def _flips(v: Verdict, lines: Mapping[str, int]) -> list[str]:
    worse = [f for f in v.flips if f.worse]
    better = [f for f in v.flips if not f.worse]
    if not v.flips:
        return [
            "### Questions that flipped",
            "",
            "None: the two runs score every question alike.",
            "",
        ]
    metrics = list(v.flips[0].deltas)
    out = ["### Questions that flipped", ""]
    better.sort(key=lambda f: (-max(f.deltas.values()), f.qid))  # the largest gain first
    for title, flips in (("Worse", worse), ("Better", better)):
        if not flips:
            continue
        shown = flips[:FLIPS_SHOWN]
        more = f" (the {len(shown)} largest)" if len(flips) > len(shown) else ""
        out += [f"**{title}: {len(flips)}**{more}", ""]
        out += ["| question | line | " + " | ".join(map(md_cell, metrics)) + " |"]
        out += ["| --- | ---: |" + " ---: |" * len(metrics)]
        out += [_flip_row(f, lines, metrics) for f in shown]
        out.append("")
    return out


def _flip_row(f: Flip, lines: Mapping[str, int], metrics: list[str]) -> str:
    mark = " (critical)" if f.critical else ""
    line = lines.get(f.qid)
    cells = " | ".join(f"{f.deltas[m]:+.4f}" for m in metrics)
    return f"| {md_cell(f.qid, code=True)}{mark} | {line if line else ''} | {cells} |"


def _todo(v: Verdict, pool_command: str) -> list[str]:
    if v.status == "cannot tell":
        return [
            "Judge the documents the head retrieves that the golden set has not judged (a "
            "negative grade counts as not judged), then run the gate again. The pairs, "
            "most-shared first:",
            "",
            md_block(pool_command, "sh"),
        ]
    if v.status == "fail":
        out = ["Look at the worse questions above: each is a line of the golden set."]
        if v.critical:
            out.append("A critical question got worse: fix the retriever before merging.")
        return [f"- {line}" for line in out]
    return ["Nothing: merge when the rest of the review agrees."]
