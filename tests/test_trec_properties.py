"""Property tests: the parsers never raise, every span lies in the text, fast paths agree.

Inputs are arbitrary text and real lines from the test data (tests/data), mutated the way hand editing
mutates them (a character typed or deleted, a field lost, a line break changed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from conftest import TEST_DATA, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.findings import Finding
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.formats.beir_qrels import parse_beir_qrels
from qrels_lsp.core.formats.topics import (
    Topics,
    parse_queries_jsonl,
    parse_queries_tsv,
    parse_trec_topics,
)
from qrels_lsp.core.formats.trec_lines import sniff_trec_kind
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels, read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import (
    _read_strict_run,
    parse_trec_run,
    read_trec_run_ids,
    trec_run_tag,
)
from qrels_lsp.core.metrics import order_by_score
from qrels_lsp.core.model import Qrels, Run

SETTINGS = settings(max_examples=examples(200), deadline=None)

SOURCES = [
    "trec_eval/qrels.test.with-comments",
    "trec_eval/qrels.rel_level",
    "trec_eval/qrels.comment.test",
    "trec_eval/results.trunc",
    "trec_eval/results.comment.test",
    "ir_measures/cwl.qrels",
    "ir_measures/cwl.run",
    "pyterrier/two_queries_result",
    "vaswani/query-text.trec",
]

# Characters that matter to these formats, plus some that break naive code.
SPECIAL = ' \t\r\n\v\f#<>/"{}:,._-0123456789eE+Q\x00\x1c\x85\xa0\u2028\u3000\ufeff😀文xpRn١\udcff'


@cache
def real_lines() -> list[str]:
    lines: list[str] = []
    for name in SOURCES:
        text = (TEST_DATA / name).read_text(encoding="utf-8")
        lines += text.splitlines()[:400]
    return lines


def _mutate(data: st.DataObject, line: str) -> str:
    kind = data.draw(st.sampled_from(["insert", "delete", "replace", "drop-field", "keep"]))
    if kind == "keep" or not line:
        return line
    i = data.draw(st.integers(0, len(line)))
    ch = data.draw(st.sampled_from(SPECIAL) | st.characters())
    if kind == "insert":
        return line[:i] + ch + line[i:]
    if kind == "delete":
        return line[:i] + line[i + 1 :]
    if kind == "replace":
        return line[:i] + ch + line[i + 1 :]
    fields = line.split()
    if fields:
        del fields[data.draw(st.integers(0, len(fields) - 1))]
    return data.draw(st.sampled_from([" ", "\t", "  "])).join(fields)


@st.composite
def mutated_text(draw: Any) -> str:
    data = draw(st.data())
    lines = draw(st.lists(st.sampled_from(real_lines()), min_size=1, max_size=12))
    lines = [_mutate(data, line) for line in lines]
    breaks = draw(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=len(lines)))
    return "".join(line + brk for line, brk in zip(lines, breaks, strict=False))


ANY_TEXT = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(), max_size=300)
TEXTS = ANY_TEXT | mutated_text()


def _check_spans(text: str, spans: Iterable[Span | None]) -> None:
    for span in spans:
        if span is not None:
            assert 0 <= span.start <= span.end <= len(text), (span, len(text))


def _finding_spans(findings: list[Finding]) -> Iterable[Span]:
    for f in findings:
        yield f.span
        yield from (r.span for r in f.related)
        yield from (e.span for fix in f.fixes for e in fix.edits)


def _qrels_spans(q: Qrels) -> Iterable[Span | None]:
    yield from _finding_spans(q.findings)
    for query in q.queries.values():
        yield query.span
        yield query.block
        for j in query.judgments:
            yield j.span
            yield j.grade_span


def _run_spans(r: Run) -> Iterable[Span | None]:
    yield from _finding_spans(r.findings)
    yield r.name_span
    for ranking in r.rankings.values():
        yield ranking.span
        yield ranking.block
        yield from (d.span for d in ranking.docs)


def _topic_spans(t: Topics) -> Iterable[Span | None]:
    yield from _finding_spans(t.findings)
    for topic in t.values():
        yield topic.span
        yield topic.qid_span


@SETTINGS
@given(TEXTS)
def test_qrels_parsers_never_raise_and_spans_fit(text: str) -> None:
    for parse in (parse_trec_qrels, parse_beir_qrels):
        q = parse(text)
        _check_spans(text, _qrels_spans(q))
        for query in q.queries.values():
            for j in query.judgments:
                assert text[j.span.start : j.span.end] == j.doc_id


@SETTINGS
@given(TEXTS)
def test_run_parser_never_raises_and_spans_fit(text: str) -> None:
    r = parse_trec_run(text)
    _check_spans(text, _run_spans(r))
    for ranking in r.rankings.values():
        ids = ranking.doc_ids()
        assert len(ids) == len(set(ids))
        for d in ranking.docs:
            assert text[d.span.start : d.span.end] == d.doc_id


@SETTINGS
@given(TEXTS)
def test_fast_paths_agree_with_parsers(text: str) -> None:
    assert read_trec_run_ids(text) == parse_trec_run(text).ranked_ids()
    assert read_trec_qrels_grades(text) == parse_trec_qrels(text).grades()
    assert trec_run_tag(text) == parse_trec_run(text).name  # the runid: the last line's tag


# Runs as retrievers write them: six plain fields, queries grouped or interleaved, tied and
# repeated scores, and now and then what must send the reader off its strict path.
SCORES = ["1", "1.0", "2.5", "-3", ".5", "5.", "1e3", "inf", "-inf", "nan", "0x10", "1_0", "7"]
SCORES += ["0x1p1", "NaN(x)", "1e", "٣", "1e400", "-0", "0"]


@st.composite
def plain_run(draw: Any) -> str:
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["q1", "q2", "10", "Q0"]),
                st.sampled_from(["d1", "d2", "D10", "D9", "Q0", "x"]),
                st.sampled_from(SCORES),
            ),
            min_size=1,
            max_size=30,
        )
    )
    if draw(st.booleans()):
        rows.sort(key=lambda r: r[0])
    blank = draw(st.sampled_from([" ", "\t", "\t\t", " \t"]))  # trec_eval: tabs are spaces
    lines = [
        blank.join([q, "Q0", d, str(i), s, "tag"]) for i, (q, d, s) in enumerate(rows, start=1)
    ]
    if draw(st.booleans()):  # one line off the strict path: a seventh field, a comment, a gap
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = draw(st.sampled_from([lines[i] + " extra", "#" + lines[i], ""]))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


@SETTINGS
@given(plain_run())
def test_strict_run_path_agrees_with_the_parser(text: str) -> None:
    assert read_trec_run_ids(text) == parse_trec_run(text).ranked_ids()


@SETTINGS
@given(plain_run())
def test_tabs_never_make_a_trec_run_beir(text: str) -> None:
    if parse_trec_run(text).rankings:
        assert sniff_trec_kind(text) in ("trec-run", None)  # None: a first line trec_eval refuses


def test_plain_runs_take_the_strict_path() -> None:
    text = (TEST_DATA / "vaswani/bm25_top100.run").read_text(encoding="utf-8")
    strict = _read_strict_run(text)  # raises if the real run were sent to the slow path
    assert {q: order_by_score(d) for q, d in strict.items()} == parse_trec_run(text).ranked_ids()


@SETTINGS
@given(TEXTS)
def test_query_parsers_never_raise_and_spans_fit(text: str) -> None:
    parsers: list[Callable[[str], Topics]] = [
        parse_trec_topics,
        parse_queries_jsonl,
        parse_queries_tsv,
    ]
    for parse in parsers:
        _check_spans(text, _topic_spans(parse(text)))
    assert sniff_trec_kind(text) in (None, "trec-qrels", "trec-run", "beir-qrels")


@st.composite
def jsonl_text(draw: Any) -> str:
    """Query files with arbitrary ids and texts, then mutated."""
    import json

    rows = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    draw(st.sampled_from(["_id", "id", "query_id", "qid"])): st.text(max_size=8),
                    draw(st.sampled_from(["text", "query", "title"])): st.text(max_size=20),
                }
            ),
            max_size=6,
        )
    )
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in rows]
    data = draw(st.data())
    return "\n".join(_mutate(data, line) for line in lines)


@SETTINGS
@given(jsonl_text())
def test_jsonl_queries_never_raise_and_spans_fit(text: str) -> None:
    _check_spans(text, _topic_spans(parse_queries_jsonl(text)))
