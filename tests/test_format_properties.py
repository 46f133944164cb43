"""The formatter's properties, on drawn golden sets and run YAML files (``format_gen.py``):

- formatting twice is formatting once;
- every comment is still there, byte for byte, and so is every blank line (in their order
  between questions when questions keep theirs);
- what the project parses is the same, question by question, and so is what PyYAML loads
  (another reader of the same file), and every score of a run against the golden set;
- two files that differ only in the order of their keys (and of their questions, when they are
  sorted) are formatted to the same bytes;
- the edits it gives, applied as an editor applies them, make the formatted text; and on any
  text at all it never raises.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml
from conftest import examples
from format_gen import DOCS, Doc, golden_sets, run_files, shuffled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.reorder import applied
from qrels_lsp.core.formats.golden import FORMAT as GOLDEN
from qrels_lsp.core.formats.run_yaml import FORMAT as RUN
from qrels_lsp.core.formats.style import RELEVANT_STYLES, FormatSettings
from qrels_lsp.core.metrics import Metric, default_metrics
from qrels_lsp.core.metrics.evaluate import evaluate
from qrels_lsp.core.model import Qrels, Run

STYLES = st.builds(FormatSettings, st.booleans(), st.sampled_from(sorted(RELEVANT_STYLES)))
SLOW_DRAW = [HealthCheck.too_slow, HealthCheck.data_too_large]
METRICS = [
    *default_metrics(3),
    Metric("ndcg"),
    Metric("bpref"),
    Metric("rprec"),
    Metric("rbp"),
    Metric("recall", 10),
]


def formatted(fmt: Any, text: str, style: FormatSettings) -> str:
    """The formatted text, checked on the way: no refusal, edits that make it, nothing left."""
    done = fmt.reformat(text, style, None)
    assert done.problem is None, (done.problem, text)
    assert applied(text, done.edits) == done.text
    again = fmt.reformat(done.text, style, None)
    assert again.problem is None and again.edits == () and again.text == done.text
    return str(done.text)


def comments_kept(doc: Doc, before: str, after: str) -> None:
    for comment in doc.comments:  # (one in the blank lines of a first entry is not shown)
        assert after.count("#" + comment) == before.count("#" + comment) <= 1, comment
    blank = lambda t: sum(1 for line in t.splitlines() if not line.strip(" \t\ufeff"))  # noqa: E731
    assert blank(after) == blank(before)


def gaps_between_questions(text: str, model: Qrels | Run) -> list[list[str]]:
    """The blank and comment lines between one question and the next that belong to neither
    (no deeper than the questions' keys)."""
    blocks = (
        [q.block for q in model.queries.values()]
        if isinstance(model, Qrels)
        else [r.block for r in model.rankings.values()]
    )
    lines = text.splitlines()
    starts = [text.count("\n", 0, b.start) for b in blocks]
    ends = [text.count("\n", 0, b.end) for b in blocks]
    out = []
    for end, start, block in zip(ends, starts[1:], blocks[1:], strict=False):
        column = block.start - (text.rfind("\n", 0, block.start) + 1)
        between = [lines[i] for i in range(end + 1, start)]
        out.append([x for x in between if len(x) - len(x.lstrip(" ")) <= column or not x.strip()])
    return out


def golden_view(model: Qrels, ordered: bool) -> Any:
    queries = [
        (q.qid, q.question, q.unanswerable, q.tags, [(j.doc_id, j.grade) for j in q.judgments])
        for q in model.queries.values()
    ]
    head = (
        model.corpus and model.corpus.value,
        model.k,
        model.relevance_level,
        [r.value for r in model.runs],
        model.compare_to and model.compare_to.value,
        model.judgments and model.judgments.value,
        model.chunks,
        [(f.name, f.method, [r.value for r in f.runs]) for f in model.fusions or []],
    )
    return head, queries if ordered else sorted(queries), sorted(f.code for f in model.findings)


def loaded(text: str) -> Any:
    """What PyYAML loads, each question's `relevant:` as the mapping it means (a list: grade 1)."""
    data = yaml.safe_load(text.lstrip("\ufeff"))
    for query in (data.get("queries") or {}).values():
        if isinstance(query, dict) and isinstance(query.get("relevant"), list):
            query["relevant"] = {doc: 1 for doc in query["relevant"]}
        if isinstance(query, dict) and query.get("relevant") == []:
            query["relevant"] = {}
    return data


def scores(qrels: Qrels, seed: int) -> Any:
    """Every metric of a drawn run (the golden set's documents and others, shuffled) per
    question and on average, as the project scores it."""
    run = {}
    for qid in qrels.queries:
        rng = random.Random(f"{seed}/{qid}")
        docs = list(DOCS)
        rng.shuffle(docs)
        run[qid] = docs[: rng.randint(0, len(docs))]
    grades = qrels.grades()
    level = qrels.relevance_level if qrels.relevance_level is not None else 1
    ev = evaluate(grades, run, METRICS, level, unanswerable=qrels.unanswerable())
    return ev.per_query, ev.mean, ev.n_queries, sorted(ev.missing), sorted(ev.unanswerable)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=SLOW_DRAW)
@given(golden_sets(), STYLES, st.integers(0, 2**32))
def test_golden_sets_keep_what_they_say(doc: Doc, style: FormatSettings, seed: int) -> None:
    before = doc.render()
    after = formatted(GOLDEN, before, style)
    comments_kept(doc, before, after)
    old, new = GOLDEN.parse(before), GOLDEN.parse(after)
    keep_order = not style.sort_queries
    assert golden_view(new, keep_order) == golden_view(old, keep_order)
    assert loaded(after) == loaded(before)
    assert isinstance(old, Qrels) and isinstance(new, Qrels)
    assert scores(new, seed) == scores(old, seed)
    if keep_order:
        assert gaps_between_questions(after, new) == gaps_between_questions(before, old)
        assert list(new.queries) == list(old.queries)
    else:
        assert list(new.queries) == sorted(old.queries, key=_natural)


def _natural(qid: str) -> tuple[object, ...]:
    import re

    parts = re.split(r"([0-9]+)", qid)
    return tuple(
        (len(p.lstrip("0")), p.lstrip("0")) if i % 2 else p for i, p in enumerate(parts)
    ), qid


@settings(max_examples=examples(200), deadline=None, suppress_health_check=SLOW_DRAW)
@given(golden_sets(), STYLES, st.integers(0, 2**32))
def test_golden_sets_differing_in_key_order_format_alike(
    doc: Doc, style: FormatSettings, seed: int
) -> None:
    first = formatted(GOLDEN, doc.render(), style)
    other = formatted(GOLDEN, shuffled(doc, seed, queries_too=style.sort_queries), style)
    assert other == first


@settings(max_examples=examples(200), deadline=None, suppress_health_check=SLOW_DRAW)
@given(run_files(), st.booleans(), st.integers(0, 2**32))
def test_runs_keep_what_they_say(doc: Doc, sort: bool, seed: int) -> None:
    style = FormatSettings(sort_queries=sort)
    before = doc.render()
    after = formatted(RUN, before, style)
    comments_kept(doc, before, after)
    old, new = RUN.parse(before), RUN.parse(after)
    assert isinstance(old, Run) and isinstance(new, Run)
    rankings = lambda r: [(q, [(d.doc_id, d.score) for d in x.docs]) for q, x in r.rankings.items()]  # noqa: E731
    assert (new.name, new.qrels and new.qrels.value) == (old.name, old.qrels and old.qrels.value)
    if sort:
        assert sorted(rankings(new)) == sorted(rankings(old))
    else:
        assert rankings(new) == rankings(old)
        assert gaps_between_questions(after, new) == gaps_between_questions(before, old)
    assert yaml.safe_load(after.lstrip("\ufeff")) == yaml.safe_load(before.lstrip("\ufeff"))
    other = formatted(RUN, shuffled(doc, seed, queries_too=sort), style)
    assert other == after


ALPHABET = st.sampled_from(
    [*" \t\r\n:-?[]{},#&*!|>'\"%@`~.0123456789abqkz", "😀", "\u2028", "\ufeff"]
)


@settings(max_examples=examples(500), deadline=None)
@given(st.text(ALPHABET, max_size=120), STYLES)
def test_any_text_is_formatted_or_refused_without_raising(text: str, style: FormatSettings) -> None:
    for fmt in (GOLDEN, RUN):
        done = fmt.reformat(text, style, None)
        assert applied(text, done.edits) == done.text
        assert done.problem is None or done.text == text


@settings(max_examples=examples(300), deadline=None, suppress_health_check=SLOW_DRAW)
@given(golden_sets(), STYLES, st.data())
def test_range_formatting_changes_only_the_questions_it_touches(
    doc: Doc, style: FormatSettings, data: st.DataObject
) -> None:
    from qrels_lsp.core.base.text import Span

    text = doc.render()
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    done = GOLDEN.reformat(text, style, Span(start, end))
    assert done.problem is None
    assert applied(text, done.edits) == done.text
    old, new = GOLDEN.parse(text), GOLDEN.parse(done.text)
    assert isinstance(old, Qrels) and isinstance(new, Qrels)
    assert golden_view(new, True) == golden_view(old, True)
    touched = {q.qid for q in old.queries.values() if q.span.start <= end and q.block.end >= start}
    for qid, query in old.queries.items():  # every other question is as it was, to the byte
        if qid not in touched:
            moved = new.queries[qid]
            assert (
                done.text[moved.block.start : moved.block.end]
                == text[query.block.start : query.block.end]
            )


@pytest.mark.parametrize("style", sorted(RELEVANT_STYLES))
def test_a_doc_drawn_once_formats_in_every_style(style: str) -> None:
    """A smoke test of each style on one fixed file, so a failure names the style."""
    text = "queries:\n  q1:\n    relevant: [kb/a.md, '0x10', 12]\n    question: x\n"
    out = formatted(GOLDEN, text, FormatSettings(relevant=style))  # type: ignore[arg-type]
    assert loaded(out) == loaded(text)
