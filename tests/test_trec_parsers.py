"""TREC/BEIR parsers: findings with exact places, on text with emoji, CJK, CRLF and tabs."""

from __future__ import annotations

from itertools import pairwise

import pytest
from conftest import TEST_DATA
from qrels_lsp.core.base.findings import Finding, Severity
from qrels_lsp.core.base.text import LineIndex, Span
from qrels_lsp.core.formats.beir_qrels import parse_beir_qrels
from qrels_lsp.core.formats.topics import parse_queries_jsonl, parse_queries_tsv, parse_trec_topics
from qrels_lsp.core.formats.trec_lines import sniff_trec_kind
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels, read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids


def where(text: str, span: Span) -> tuple[int, int, int, int]:
    """(line, column, end line, end column), columns in code points."""
    index = LineIndex(text)
    return (*index.position(span.start), *index.position(span.end))


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


QRELS = (
    "# 评测 😀 a comment, with fields that would be malformed\r\n"
    "q1 0 文档😀1 1\r\n"
    "q1\t0\tdoc#2\t2.7\r\n"
    "q1 0 文档😀1 0\r\n"
    "q2 0 😀only\r\n"
    "q2 0 d3 1 extra\r\n"
    "q2 0 d4 x\r\n"
    "\r\n"
    "q1 0 late 1"
)


def test_trec_qrels_findings_and_spans() -> None:
    q = parse_trec_qrels(QRELS)
    assert codes(q.findings) == ["QR302", "QR303", "QR301", "QR301", "QR306", "QR310"]
    grade, dup, short, extra, bad, blank = q.findings
    assert where(QRELS, grade.span) == (2, 11, 2, 14)
    assert "trec_eval reads it as 2" in grade.message
    assert where(QRELS, dup.span) == (3, 5, 3, 9)
    assert where(QRELS, dup.related[0].span) == (1, 5, 1, 9)
    # The missing grade goes at the end of the line; its column differs in UTF-16.
    assert where(QRELS, short.span) == (4, 10, 4, 10)
    assert LineIndex(QRELS).position(short.span.start, "utf-16") == (4, 11)
    assert "found 3" in short.message and "grade" in short.message
    assert where(QRELS, extra.span) == (5, 10, 5, 15)
    assert "trec_eval refuses the file" in extra.message and "leaves the line out" in extra.message
    assert where(QRELS, bad.span) == (6, 8, 6, 9)
    assert "grade" in bad.message and "reads it as 0" in bad.message  # atol('x'): judged, 0
    assert where(QRELS, blank.span) == (7, 0, 7, 0)  # trec_eval refuses a blank qrels line


def test_trec_qrels_model() -> None:
    q = parse_trec_qrels(QRELS)
    assert list(q.queries) == ["q1", "q2"]
    q1 = q.queries["q1"]
    assert q1.grades() == {"文档😀1": 1, "doc#2": 2, "late": 1}
    assert [j.grade for j in q1.judgments] == [1, 2, 0, 1]  # the repeat is kept, grades() skips it
    assert where(QRELS, q1.span) == (1, 0, 1, 2)
    assert where(QRELS, q1.block) == (1, 0, 8, 11)
    assert QRELS[q1.judgments[1].span.start : q1.judgments[1].span.end] == "doc#2"
    # d3's line has a fifth field: trec_eval refuses the file, and the line is left out
    assert q.queries["q2"].grades() == {"d4": 0}
    assert read_trec_qrels_grades(QRELS) == q.grades()


def test_qrels_docids_may_contain_hash() -> None:
    text = (TEST_DATA / "trec_eval/qrels.test.with-comments").read_text(encoding="utf-8")
    q = parse_trec_qrels(text)
    assert q.findings == []
    assert "CR#93E-1860" in q.queries["301"].grades()
    plain = parse_trec_qrels((TEST_DATA / "trec_eval/qrels.test").read_text(encoding="utf-8"))
    assert len(q.queries["301"].judgments) == len(plain.queries["301"].judgments)


RUN = (
    "q1 Q0 文档A 1 2.0 tag😀\r\n"
    "q1\tQ0\tB\t2\t3.0\ttag\r\n"
    "q1 Q0 文档A 3 1.0 tag\r\n"
    "q1 Q0 C 4 abc tag\r\n"
    "q2 Q0 D 1\r\n"
    "# q2 Q0 E 1 1.0 tag\r\n"
    "q2 Q0 E 1 nan tag\r\n"
    "q2 Q0 F 1 5 tag and fields trec_eval ignores"
)


def test_trec_run_findings_and_spans() -> None:
    r = parse_trec_run(RUN)
    assert codes(r.findings) == ["QR203", "QR301", "QR301", "QR311", "QR204"]
    dup, score, short, nan, order = r.findings
    assert where(RUN, dup.span) == (2, 6, 2, 9)
    assert where(RUN, dup.related[0].span) == (0, 6, 0, 9)
    assert where(RUN, score.span) == (3, 10, 3, 13)
    assert "trec_eval reads it as 0.0" in score.message
    assert where(RUN, short.span) == (4, 9, 4, 9)
    assert "found 4" in short.message and "score" in short.message
    assert where(RUN, nan.span) == (6, 10, 6, 13)
    # 文档A (rank 1) is evaluated after B (rank 2, higher score).
    assert where(RUN, order.span) == (0, 10, 0, 11)
    assert where(RUN, order.related[0].span) == (1, 8, 1, 9)
    assert "ignores the rank column" in order.message


def test_trec_run_model() -> None:
    r = parse_trec_run(RUN)
    assert r.name == "tag"  # the last line's tag, trec_eval's runid (not the first's, tag😀)
    assert r.name_span is not None and where(RUN, r.name_span) == (7, 12, 7, 15)
    assert r.ranked_ids() == {"q1": ["B", "文档A", "C"], "q2": ["F", "E"]}  # E: NaN, kept
    q1 = r.rankings["q1"]
    assert [d.score for d in q1.docs] == [3.0, 2.0, 0.0]
    assert [d.rank for d in q1.docs] == [2, 1, 4]
    assert where(RUN, q1.block) == (0, 0, 3, 17)
    assert read_trec_run_ids(RUN) == r.ranked_ids()


def test_ties_break_by_docid_descending_bytewise() -> None:
    text = "q Q0 D10 1 1.0 t\nq Q0 D9 2 1.0 t\nq Q0 d1 3 1.0 t\nq Q0 d2 4 1.0 t\nq Q0 é 5 1.0 t\n"
    order = ["é", "d2", "d1", "D9", "D10"]  # 'é' is 0xC3 0xA9 in UTF-8, above every ASCII byte
    assert parse_trec_run(text).ranked_ids()["q"] == order
    assert read_trec_run_ids(text)["q"] == order


@pytest.mark.parametrize(
    "name",
    [
        "trec_eval/results.test",
        "trec_eval/results.comment.test",
        "vaswani/bm25_top100.run",
        "pyterrier/two_queries_result",
    ],
)
def test_real_runs_are_in_score_then_docid_order(name: str) -> None:
    r = parse_trec_run((TEST_DATA / name).read_text(encoding="utf-8"))
    assert not [f for f in r.findings if f.code != "QR204"]
    for ranking in r.rankings.values():
        keys = [(d.score, d.doc_id) for d in ranking.docs]
        assert all(a > b for a, b in pairwise(keys))


def test_rank_column_disagreement_on_real_ties() -> None:
    """pyterrier's run numbers tied scores by another rule: one QR204 for the whole run, an
    info (only ties), counting the queries, at the first one's rank column."""
    text = (TEST_DATA / "pyterrier/two_queries_result").read_text(encoding="utf-8")
    r = parse_trec_run(text)
    [flagged] = [f for f in r.findings if f.code == "QR204"]
    assert flagged.severity == Severity.INFO
    assert "breaks score ties otherwise" in flagged.message and "in 2 queries" in flagged.message
    index = LineIndex(text)
    line = index.line_text(index.line_of(flagged.span.start)).split()
    assert text[flagged.span.start : flagged.span.end] == line[3]


def test_rank_order_is_one_warning_and_one_info_per_run() -> None:
    """A warning only where the rank column contradicts the scores; ties numbered otherwise
    are an info; each said once for the run with the number of queries."""
    lines = []
    for q in range(6):  # ties numbered in ascending id order: trec_eval takes descending
        lines += [f"t{q} Q0 a 1 1.0 x", f"t{q} Q0 b 2 1.0 x"]
    for q in range(3):  # the rank column puts the lower score first
        lines += [f"c{q} Q0 a 1 1.0 x", f"c{q} Q0 b 2 2.0 x"]
    lines += ["ok Q0 a 1 2.0 x", "ok Q0 b 2 1.0 x"]
    r = parse_trec_run("\n".join(lines) + "\n")
    found = [(f.severity, f.message.split(", in ")[1].split(" of")[0]) for f in r.findings]
    assert found == [(Severity.WARNING, "3 queries"), (Severity.INFO, "6 queries")]
    warning, info = r.findings
    assert "query c0" in warning.message and "query t0" in info.message
    assert [rel.message for rel in info.related][1:] == [f"query t{q}: a" for q in range(1, 5)]


BEIR = "query-id\tcorpus-id\tscore\r\nq1\t文档 😀\t1\r\nq1\t\t1\r\nq2\td\t1.5\r\nq3\td\r\nq3\td\t1\tx\r\n"


def test_beir_qrels() -> None:
    q = parse_beir_qrels(BEIR)
    assert codes(q.findings) == ["QR301", "QR302", "QR301", "QR301"]
    empty, grade, short, extra = q.findings
    assert where(BEIR, empty.span) == (2, 3, 2, 3)
    assert "corpus-id" in empty.message
    assert where(BEIR, grade.span) == (3, 5, 3, 8)
    assert where(BEIR, short.span) == (4, 4, 4, 4)
    assert where(BEIR, extra.span) == (5, 7, 5, 8)
    assert q.grades() == {"q1": {"文档 😀": 1}, "q2": {"d": 1}, "q3": {"d": 1}}
    assert q.format == "beir-qrels"


TOPICS = (
    "<top>\r\n<num> Number: 301\r\n<title> Topic: 国際 😀 crime\r\n"
    "<desc> Description:\r\nWhat is known?\r\n</top>\r\n"
    "<top>\n<num> Number: 302\n<desc> Description:\nonly a\n  description\n</top>\n"
    "<top><title>no number</title></top>\n"
    "<top><num>301</num><title>again</title></top>\n"
)


def test_trec_topics_old_style() -> None:
    t = parse_trec_topics(TOPICS)
    assert list(t) == ["301", "302"]
    assert t["301"].text == "国際 😀 crime"
    assert TOPICS[t["301"].span.start : t["301"].span.end] == "国際 😀 crime"
    assert where(TOPICS, t["301"].span) == (2, 15, 2, 25)
    assert t["302"].text == "only a description"
    assert codes(t.findings) == ["QR301", "QR301"]
    assert "<num>" in t.findings[0].message
    assert "twice" in t.findings[1].message


def test_trec_topics_vaswani() -> None:
    text = (TEST_DATA / "vaswani/query-text.trec").read_text(encoding="utf-8")
    t = parse_trec_topics(text)
    assert len(t) == 93 and t.findings == []
    for topic in t.values():
        assert (
            topic.text and " ".join(text[topic.span.start : topic.span.end].split()) == topic.text
        )


JSONL = (
    '{"_id": "q1", "text": "什么 😀 \\"quoted\\""}\r\n'
    "{not json\r\n"
    '{"id": 5, "query": "five"}\r\n'
    '{"title": "no id"}\r\n'
    '{"qid": "q9"}\r\n'
    "[1, 2]\r\n"
)


def test_queries_jsonl() -> None:
    t = parse_queries_jsonl(JSONL)
    assert list(t) == ["q1", "5"]
    assert t["q1"].text == '什么 😀 "quoted"'
    assert where(JSONL, t["q1"].span) == (0, 22, 0, 39)
    assert t["q1"].qid_span is not None and where(JSONL, t["q1"].qid_span) == (0, 8, 0, 12)
    assert codes(t.findings) == ["QR301"] * 4
    assert [where(JSONL, f.span)[0] for f in t.findings] == [1, 3, 4, 5]
    assert where(JSONL, t.findings[2].span) == (4, 8, 4, 12)


TSV = "id\ttext\r\nq1\t你好 😀  \r\nbad line\r\nq2\t\r\nq1\tagain\r\n"


def test_queries_tsv() -> None:
    t = parse_queries_tsv(TSV)
    assert list(t) == ["q1"]
    assert t["q1"].text == "你好 😀"
    assert where(TSV, t["q1"].span) == (1, 3, 1, 7)
    assert codes(t.findings) == ["QR301"] * 3
    assert [where(TSV, f.span)[:2] for f in t.findings] == [(2, 8), (3, 3), (4, 0)]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("trec_eval/qrels.test", "trec-qrels"),
        ("trec_eval/qrels.test.with-comments", "trec-qrels"),
        ("ir_measures/compat.qrels", "trec-qrels"),
        ("ir_measures/cwl.qrels", "trec-qrels"),
        ("vaswani/qrels", "trec-qrels"),
        ("trec_eval/results.test", "trec-run"),
        ("trec_eval/results.trunc", "trec-run"),
        ("ir_measures/cwl.run", "trec-run"),
        ("pyterrier/two_queries_result", "trec-run"),
    ],
)
def test_sniff_real_files(name: str, kind: str) -> None:
    assert sniff_trec_kind((TEST_DATA / name).read_text(encoding="utf-8")) == kind


def test_sniff_beir_and_unknown() -> None:
    assert sniff_trec_kind(BEIR) == "beir-qrels"
    assert sniff_trec_kind("q1\td1\t1\n") == "beir-qrels"
    assert sniff_trec_kind("# only a comment\n\n") is None
    assert sniff_trec_kind("<top>\n") is None
