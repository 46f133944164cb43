"""Words and tables for people: lens titles, hover markdown, inlay labels.

Plain strings built from core results, shared by the language server (lenses, hover, inlay
hints) and the CLI, so that the editor and the terminal say the same thing the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType

from ..core.base.escape import for_log, md_block, md_cell, md_code, md_text
from ..core.chunks import ChunkPlace, ChunkRule
from ..core.compare import Comparisons
from ..core.formats import get
from ..core.formats.corpus import Document
from ..core.metrics import MEASURES, Metric, format_value, ndcg_explain, query_scores
from ..core.metrics.lens import lens_metrics
from ..core.model import Qrels, Query, rank_in_list
from ..core.project.judging import mean_judged
from ..core.project.results import QrelsContext, RunResult
from .compare import delta_mark, header_lens_titles, headline, lens_title

HOVER_CUTOFFS = (1, 3, 5, 10, 20, 100)


def short(x: float) -> str:
    """Two decimals, for lenses; tables and hovers use trec_eval's four."""
    return f"{x:.2f}"


_TITLES: dict[tuple[int, int, int], tuple[Mapping[str, float], object, str]] = {}
_NO_VALUES: Mapping[str, float] = MappingProxyType({})  # one object, so its title is cached too
UNANSWERABLE_TITLE = "unanswerable · excluded from the means"


def lens_values(
    values: Mapping[str, float], k: int, base: Mapping[str, float] | None = None
) -> str:
    """`recall@k 0.50 · MRR 0.50`, with `▲`/`▼` after a value above or below the ``base`` run's
    on the same question; remembered per values mapping: per-query scores are cached objects
    (metrics.ScoreCache), so after an edit only the edited query's title is formatted."""
    key = (id(values), id(base), k)
    hit = _TITLES.get(key)
    if hit is not None and hit[0] is values and hit[1] is base:
        return hit[2]
    title = _lens_values(values, k, base)
    if len(_TITLES) > 200_000:
        _TITLES.clear()
    _TITLES[key] = (values, base, title)
    return title


def _lens_values(values: Mapping[str, float], k: int, base: Mapping[str, float] | None) -> str:
    parts = []
    for _metric, key, label in lens_metrics(k):
        value = values.get(key)
        if value is not None:
            mark = delta_mark(value, base.get(key)) if base is not None else ""
            parts.append(f"{label} {short(value)}{mark}")
    return " · ".join(parts)


def query_lens_titles(
    ctx: QrelsContext,
    queries: Iterable[Query],
    runs: Sequence[RunResult],
    base: RunResult | None = None,
) -> Iterator[tuple[Query, list[str]]]:
    """Each question with one title per run, each named: a number with no run beside it reads
    as "your run", and the BM25 baseline is not the user's run. Each other run's values are
    marked where they beat (`▲`) or trail (`▼`) the ``base`` run's on that question, so the
    curator can find where the systems differ.

        One pass with each run's tables looked up once: the editor asks for every question's lenses
        after every keystroke, and a golden set can hold tens of thousands of questions.
    """
    if ctx.blind_judging:  # no system's numbers while judging
        for query in queries:
            yield query, []
        return
    k = ctx.k
    against = base.evaluation.per_query if base is not None else None
    tables = [
        (f"{for_log(r.name)}: ", r.evaluation.per_query, r.evaluation.missing_ids(), r is not base)
        for r in runs
    ]
    for query in queries:
        if query.unanswerable:
            yield query, [UNANSWERABLE_TITLE]
            continue
        titles = []
        qid = query.qid
        base_values = against.get(qid) if against is not None else None
        for prefix, per_query, missing, marked in tables:
            if qid in missing:
                titles.append(f"{prefix}not in the run · scores 0")
            else:
                shown = base_values if marked else None
                titles.append(prefix + lens_values(per_query.get(qid, _NO_VALUES), k, shown))
        yield query, titles


def counts(ctx: QrelsContext) -> str:
    n = len(ctx.qrels.queries)
    unanswerable = len(ctx.unanswerable)  # (kept by the context: no pass over the questions)
    text = f"{n} question{'s' if n != 1 else ''}"
    if unanswerable:
        text += f" · {unanswerable} unanswerable"
    return text


def run_summary(r: RunResult, k: int, coverage: bool = False) -> str:
    """A run's means as a lens says them; ``coverage``: with its judged@k too (shown when the
    golden set's judgments cover some run poorly)."""
    ev = r.evaluation
    text = lens_values(ev.mean, k)
    judged = ev.mean.get(f"judged@{k}")
    if coverage and judged is not None:
        text += f" · judged@{k} {short(judged)}"
    text += f" (mean of {ev.n_queries})"
    if ev.missing:
        text += f" · {len(ev.missing)} missing"
    if ev.unknown:
        text += f" · {len(ev.unknown)} not in the golden set"
    return text


def runs_hint(ctx: QrelsContext) -> str:
    """Where this file's runs are named: in a golden set YAML itself or in a run's `qrels:`;
    for TREC/BEIR qrels (no keys of their own) in the configuration."""
    if get(ctx.kind).yaml:
        return "list them under `runs:`, or name this file with `qrels:` in a run"
    return "list them as `runs` of this file's `[[qrels]]` table in qrels-lsp.toml"


def corpus_hint(ctx: QrelsContext) -> str:
    """Where this file's corpus is named."""
    if get(ctx.kind).yaml:
        return "the golden set names none (`corpus:`)"
    return "none is named (`corpus` of this file's `[[qrels]]` table in qrels-lsp.toml)"


def header_titles(
    ctx: QrelsContext,
    runs: Sequence[RunResult],
    comparisons: Comparisons | None = None,
    loading: Sequence[str] = (),
    comparing: str | None = None,
    previous: Comparisons | None = None,
    awaited: str | None = None,
) -> list[str]:
    """The first line's lenses: the counts, each run by name with its means (and judged@k when
    some run's is below ``min_judged``), then each run compared with the base (when the
    comparison has been made, else that it is being made with ``comparing``); a run still
    being read says so (``loading``: their file names), rather than showing nothing or zeros.
    While it is being made after an edit, the last comparison (``previous``) is shown, each
    lens marked as being updated. ``awaited``: the base, not ready yet (its BM25 index is being
    built): the comparison waits for it, and so do the fusions of it, rather than compare with
    another run and switch. Judging blind: the counts alone, no system's numbers."""
    if ctx.blind_judging:
        return [f"{counts(ctx)} · blind judging: the runs' numbers are hidden"]
    waiting = [f"{for_log(name)}: {LOADING}" for name in loading]
    if awaited is not None:
        shown = {r.name for r in runs}
        waiting += [
            f"{for_log(f.name)}: waiting for {for_log(awaited)}, which it fuses…"
            for f in ctx.fusions
            if f.name not in shown
        ]
        waiting.append(f"comparing with {for_log(awaited)} once its BM25 index is built…")
    if comparing is not None and comparisons is None and previous is None:
        waiting.append(f"comparing with {for_log(comparing)}…")
    if not runs:
        if waiting:
            return [counts(ctx), *waiting]
        return [f"{counts(ctx)} · no runs: {runs_hint(ctx)}"]
    compared = header_lens_titles(comparisons, f"recall@{ctx.k}")
    if comparisons is None and previous is not None:
        compared = [t + UPDATING for t in header_lens_titles(previous, f"recall@{ctx.k}")]
    coverage = low_coverage(ctx, runs)
    if len(runs) == 1 and not waiting:
        summary = run_summary(runs[0], ctx.k, coverage)
        return [f"{counts(ctx)} · {for_log(runs[0].name)}: {summary}", *compared]
    summaries = [f"{for_log(r.name)}: {run_summary(r, ctx.k, coverage)}" for r in runs]
    return [counts(ctx), *summaries, *waiting, *compared]


LOADING = "loading… (its numbers follow when it is read)"
UPDATING = " · updating…"
"""Marks a comparison made before the last edit, shown while it is brought up to date."""


def low_coverage(ctx: QrelsContext, runs: Sequence[RunResult]) -> bool:
    """Whether the judgments are pooled (a document not judged is unknown) and any run the
    golden set pools (not the BM25 baseline) has a mean judged@k below ``min_judged``: then its
    numbers say as much about the judgments as about the run. Exhaustive judgments never warn:
    a document they do not list is not relevant, so coverage is the listing's, not a doubt."""
    if not ctx.judgments.gates:
        return False
    return any(mean_judged(ctx, r) < ctx.min_judged for r in runs if not r.baseline and not r.error)


def run_header_title(ctx: QrelsContext, r: RunResult) -> str:
    return f"{for_log(r.name)} vs {for_log(ctx.path.name)} · {run_summary(r, ctx.k)}"


def run_comparison_title(
    ctx: QrelsContext,
    r: RunResult,
    comparisons: Comparisons | None,
    previous: Comparisons | None = None,
    *,
    compared: bool = True,
) -> str | None:
    """A run file's second lens: the run against the golden set's base run (the last one,
    marked, while it is brought up to date after an edit; while the first is being made, that
    it is)."""
    if comparisons is None and previous is not None:
        title = run_comparison_title(ctx, r, previous)
        return None if title is None else title + UPDATING
    if comparisons is None:
        return None if compared else "comparing with the golden set's base…"
    if r.name == comparisons.base:
        return "the base the golden set's other runs are compared with"
    c = headline(comparisons, r.name, f"recall@{ctx.k}")
    return lens_title(c, comparisons.base) if c is not None else None


def judgment_label(grade: int | None, level: int) -> str:
    """Inlay label of a retrieved id: ✓grade relevant, ✗grade judged not relevant, ? unjudged."""
    if grade is None:
        return "?"
    return f"✓{grade}" if grade >= level else f"✗{grade}"


def chunk_label(place: ChunkPlace, grade: int | None, level: int) -> str:
    """Inlay label of a retrieved chunk: its document and the document's judgment, and
    ``· dropped`` when an earlier chunk of the document already stands for it."""
    label = f"→ {for_log(place.doc_id)} {judgment_label(grade, level)}"
    return label if place.counted else label + " · dropped"


def chunk_note(qid: str, place: ChunkPlace, rule: ChunkRule) -> str:
    """What a chunk's inlay hint says, in words: its document and its place among the
    document's chunks in this ranking."""
    first = (
        "its first here, so it stands for the document"
        if place.counted
        else f"the first, at #{place.first_rank}, stands for the document, so this one is dropped"
    )
    return (
        f"Chunk {md_code(place.chunk_id)} of {md_code(place.doc_id)} (by the "
        f"{md_text(rule.describe())}): chunk #{place.chunk_rank} for {md_code(qid)}, the "
        f"document's chunk {place.sibling} of {place.siblings} in this ranking ({first}); the "
        f"document ranks #{place.doc_rank} among the documents."
    )


def fusion_notes(runs: Sequence[RunResult]) -> list[str]:
    """How each fused run was made (the first line's hover)."""
    return [
        f"{md_text(r.name)}: fused, {md_text(r.fusion.describe())}"
        for r in runs
        if r.fusion is not None
    ]


def rank_label(rank: int | None, run: str) -> str:
    return f"#{rank} {run}" if rank is not None else f"– {run}"


def _metrics_at(k_values: Sequence[int]) -> list[Metric]:
    """Every registered measure: those that need no cutoff once, the others at each cutoff, in
    the order of the hover's table (a new measure appears there by being registered)."""
    out = [Metric(m.name) for m in MEASURES if m.cutoff != "required"]
    for m in MEASURES:
        if m.cutoff == "required" or m.hover_cutoffs:
            out += [Metric(m.name, k) for k in k_values]
    return out


def query_hover(
    ctx: QrelsContext,
    query: Query,
    runs: Sequence[tuple[str, list[str] | None]],
    base: str | None = None,
) -> str:
    """Markdown: the query, every metric at several cutoffs per run (each other run's with its
    difference from the ``base`` run's), ranks, nDCG@k terms."""
    grades = query.grades()
    lines = [
        f"**{md_text(query.qid)}**" + (f": {md_text(query.question)}" if query.question else "")
    ]
    if query.unanswerable:
        lines.append("\n*Unanswerable: excluded from the means.*")
    relevant = [d for d, g in grades.items() if g >= ctx.level]
    lines.append(
        f"\n{len(relevant)} relevant of {len(grades)} judged (relevance level {ctx.level})."
    )
    scored = [(name, ranking) for name, ranking in runs if ranking is not None]
    if not scored:
        return "\n".join(lines)
    cutoffs = sorted({*HOVER_CUTOFFS, ctx.k})
    values = {
        name: query_scores(grades, ranking, _metrics_at(cutoffs), ctx.level)
        for name, ranking in scored
    }
    names = [name for name, _ in scored]
    lines.append("")
    lines.append("| metric | " + " | ".join(md_cell(n) for n in names) + " |")
    lines.append("| --- |" + " ---: |" * len(names))
    for metric in _metrics_at(cutoffs):
        key = str(metric)
        mark = f"**{key}**" if metric.k == ctx.k else key
        lines.append(
            f"| {mark} | " + " | ".join(format_value(values[n][key]) for n in names) + " |"
        )
    if base is not None and base in values and len(names) > 1:
        lines += ["", *_against_base(ctx, values, names, base)]
    lines += ["", *coverage_lines(ctx, grades, scored, values)]
    lines.append("")
    lines.append("| relevant document | grade | " + " | ".join(md_cell(n) for n in names) + " |")
    lines.append("| --- | ---: |" + " ---: |" * len(names))
    for doc in relevant:
        ranks = []
        for _name, ranking in scored:
            rank = rank_in_list(ranking, doc)
            ranks.append(f"#{rank}" if rank is not None else "–")
        lines.append(f"| {md_cell(doc, code=True)} | {grades[doc]} | " + " | ".join(ranks) + " |")
    for name, ranking in scored:
        lines.append("")
        lines.extend(ndcg_lines(name, grades, ranking, ctx.k))
    missing = [name for name, ranking in runs if ranking is None]
    if missing:
        lines.append(f"\nNot answered by: {md_text(', '.join(missing))} (scores 0).")
    return "\n".join(lines)


def _against_base(
    ctx: QrelsContext, values: Mapping[str, Mapping[str, float]], names: Sequence[str], base: str
) -> list[str]:
    """Each other run's difference from the base run on this question, for the metrics the
    golden set reports (`▲ +0.25`): where the systems differ, question by question."""
    keys = [str(m) for m in ctx.metrics if m.measure.compared]  # not judged@k: coverage
    out = [
        f"| vs {md_cell(base)} (base) | " + " | ".join(keys) + " |",
        "| --- |" + " ---: |" * len(keys),
    ]
    for name in names:
        if name == base:
            continue
        cells = []
        for key in keys:
            mine, theirs = values[name].get(key), values[base].get(key)
            if mine is None or theirs is None:
                cells.append("–")
            else:
                cells.append(f"{delta_mark(mine, theirs) or '='} {mine - theirs:+.4f}")
        out.append(f"| {md_cell(name)} | " + " | ".join(cells) + " |")
    return out


def coverage_lines(
    ctx: QrelsContext,
    grades: Mapping[str, int],
    scored: Sequence[tuple[str, list[str]]],
    values: Mapping[str, Mapping[str, float]],
) -> list[str]:
    """How far this question's judgments cover each run's top, and each metric's value if the
    unjudged documents there were relevant: ``recall@5 0.50 (up to 1.00 if the 2 unjudged are
    relevant)`` (core/coverage/bounds.py)."""
    from ..core.coverage.bounds import bounded, unjudged_top, upper_bounds

    metrics = bounded(ctx.metrics)
    out = ["**If the unjudged were relevant** (the metrics count them as not relevant):", ""]
    for name, ranking in scored:
        upper = upper_bounds({"q": grades}, {"q": ranking}, metrics, ctx.k, ctx.level)
        bound = upper.per_query["q"]
        parts = []
        for m in metrics:
            key = str(m)
            if key in values[name]:
                mine = values[name][key]
            else:  # a metric the hover's table does not list (rbp@0.9, map@5)
                mine = query_scores(grades, ranking, [m], ctx.level)[key]
            n = len(unjudged_top(grades, ranking, m.k or ctx.k))
            part = f"{key} {short(mine)}"
            if n and bound[key] != mine:
                word = "up to " if bound[key] > mine else ""
                are = "is" if n == 1 else "are"
                part += f" ({word}{short(bound[key])} if the {n} unjudged {are} relevant)"
            parts.append(part)
        unjudged = len(unjudged_top(grades, ranking, ctx.k))
        top = (
            f"{unjudged} unjudged in its top {ctx.k}" if unjudged else f"its top {ctx.k} all judged"
        )
        out.append(f"- {md_text(name)} ({top}): " + " · ".join(parts))
    return out


def ndcg_lines(name: str, grades: Mapping[str, int], ranking: Sequence[str], k: int) -> list[str]:
    """nDCG@k for one run, term by term: the number people quote most and inspect least."""
    ex = ndcg_explain(grades, ranking, k)
    out = [
        f"**{md_text(name)}: ndcg@{k} = DCG / IDCG = {ex.dcg:.4f} / {ex.idcg:.4f} = {format_value(ex.ndcg)}**  ",
        "gain = the grade (linear); discount = log2(rank + 1); the ideal ranking sorts all "
        "positive judgments by grade.",
        "",
        "| rank | document | grade | gain / discount |",
        "| ---: | --- | ---: | ---: |",
    ]
    for row in ex.rows:
        grade = "?" if row.grade is None else str(row.grade)
        out.append(
            f"| {row.rank} | {md_cell(row.doc_id, code=True)} | {grade} | {row.gain:g} / {row.discount:.4f} = {row.contribution:.4f} |"
        )
    return out


def document_hover(
    doc: Document | None,
    doc_id: str,
    judged_by: Sequence[tuple[str, int]],
    lines_shown: int = 6,
    missing: str = "not in the corpus",
) -> str:
    """Markdown: the document's title and first lines, and the queries that judge it.

    ``missing`` says why there is no document (not in the corpus, no corpus, unreadable corpus).
    """
    out = []
    if doc is None:
        out.append(f"**{md_code(doc_id)}**: {md_text(missing)}.")
    else:
        out.append(f"**{md_text(doc.title or doc_id)}**  \n{md_code(doc_id)}")
        body = [line for line in doc.text.splitlines() if line.strip()]
        if body and doc.title and body[0].lstrip("# ").strip() == doc.title.strip():
            body = body[1:]
        if body:
            excerpt = "\n".join(body[:lines_shown]) + ("\n…" if len(body) > lines_shown else "")
            out.append("\n" + md_block(excerpt))
    if judged_by:
        shown = ", ".join(f"{md_code(qid)} ({grade})" for qid, grade in judged_by[:20])
        more = f" and {len(judged_by) - 20} more" if len(judged_by) > 20 else ""
        out.append(
            f"\nJudged by {len(judged_by)} quer{'y' if len(judged_by) == 1 else 'ies'}: {shown}{more}."
        )
    else:
        out.append("\nNo query judges it.")
    return "\n".join(out)


def judged_by(qrels: Qrels, doc_id: str) -> list[tuple[str, int]]:
    return [
        (qid, g) for qid, q in qrels.queries.items() for d, g in q.grades().items() if d == doc_id
    ]


def _verdict(grade: int | None, level: int) -> str:
    if grade is None:
        return "not judged"
    if grade >= level:
        return f"judged relevant (grade {grade})"
    return f"judged not relevant (grade {grade})"


def retrieval_note(qid: str, rank: int, grade: int | None, level: int) -> str:
    """What a retrieved id's inlay hint says, in words: its rank and its judgment."""
    verdict = _verdict(grade, level)
    return f"Retrieved at #{rank} for {md_code(qid)}: {verdict} · `{judgment_label(grade, level)}`."


def dropped_note(qid: str, grade: int | None, level: int) -> str:
    """A later chunk of a document already ranked: what it counts for (nothing)."""
    return (
        f"For {md_code(qid)} the document is {_verdict(grade, level)}; it is scored once, at its "
        "first chunk, and this chunk adds nothing to the scores."
    )


def ranks_note(qid: str, ranks: Sequence[tuple[str, int | None]]) -> str:
    """What a judged id's inlay hints say: its rank for ``qid`` in each run compared."""
    if not ranks:
        return f"For {md_code(qid)}: no runs compared."
    labels = (rank_label(rank, md_text(name)) for name, rank in ranks)
    return f"For {md_code(qid)}: " + " · ".join(labels) + "."


def not_in_golden(qid: str, golden: str | None) -> str:
    """Hover of a run's query id that no golden set judges."""
    if golden is None:
        return f"**{md_text(qid)}**: this run is not tied to a golden set, so nothing scores it."
    return f"**{md_text(qid)}**: not in the golden set {md_code(golden)}; ignored by the metrics."
