"""The TREC corpus and topics readers match in linear time what their old regexes matched.

The old patterns (``<DOCNO>\\s*(.*?)\\s*</DOCNO>``, ``<(TITLE|..)>(.*?)</\\1>``, ``</?[A-Za-z][^>]*>``
and the topics' ``<title>\\s*..\\s*(.*?)\\s*(?:</title>|(?=<[a-z/])|\\Z)``) backtracked on hostile
files: 6 KB of spaces after ``<DOCNO>`` froze the server. The old readers are kept here, verbatim,
as the oracle: on generated ``<DOC>`` corpora and ``<top>`` topics (well-formed, and broken the ways
hand editing breaks them) and on the real Vaswani files, the new readers give exactly the same
documents, topics, spans and problems. The timing tests show each hostile shape is now linear.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from conftest import TEST_DATA, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.findings import finding
from qrels_lsp.core.base.text import LineIndex, Span
from qrels_lsp.core.formats import corpus as corpus_module
from qrels_lsp.core.formats.corpus import Corpus, Document, _first_line_title
from qrels_lsp.core.formats.topics import Topic, Topics, parse_trec_topics
from qrels_lsp.core.formats.trec_lines import sniff_trec_kind

SETTINGS = settings(max_examples=examples(150), deadline=None)
VASWANI = TEST_DATA / "vaswani"

# -- the oracles: the readers as they were ----------------------------------------------------

_OLD_DOC = re.compile(r"<DOC>(.*?)(?:</DOC>|(?=<DOC>)|\Z)", re.S | re.I)
_OLD_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_OLD_TITLE = re.compile(r"<(TITLE|HEADLINE|HEAD)>(.*?)</\1>", re.S | re.I)
_OLD_TAG = re.compile(r"</?[A-Za-z][^>]*>")


def old_parse_trec(corpus: Corpus, text: str, path: Path, where: str) -> None:
    index = LineIndex(text)
    for m in _OLD_DOC.finditer(text):
        body = m.group(1)
        line = index.line_of(m.start())
        if not m.group(0).upper().endswith("</DOC>"):
            corpus.problems.append(f"{where}:{line + 1}: <DOC> without </DOC>")
        no = _OLD_DOCNO.search(body)
        if no is None or not no.group(1):
            corpus.problems.append(f"{where}:{line + 1}: <DOC> without <DOCNO>")
            continue
        doc_id = no.group(1)
        id_offset = m.start(1) + no.start(1)
        id_line, id_col = index.position(id_offset)
        rest = body[: no.start()] + body[no.end() :]
        title_m = _OLD_TITLE.search(rest)
        title = _OLD_TAG.sub(" ", title_m.group(2)).strip() if title_m else ""
        content = _OLD_TAG.sub(" ", rest).strip()
        doc = Document(
            doc_id,
            title or _first_line_title(content),
            content,
            path,
            id_line,
            Span(id_col, id_col + len(doc_id)),
            title_in_text=True,
        )
        corpus._add(doc_id, doc, f"{where}:{id_line + 1}")


_OLD_TOP = re.compile(r"<top>(.*?)(?:</top>|(?=<top>)|\Z)", re.S | re.I)
_OLD_NUM = re.compile(r"<num>\s*(?:Number\s*:\s*)?([^\s<]*)", re.I)
_OLD_SECTION = r"<{0}>\s*(?:{1}\s*:)?\s*(.*?)\s*(?:</{0}>|(?=<[a-z/])|\Z)"
_OLD_TITLE_SECTION = re.compile(_OLD_SECTION.format("title", "Topic"), re.S | re.I)
_OLD_DESC_SECTION = re.compile(_OLD_SECTION.format("desc", "Description"), re.S | re.I)


def old_parse_trec_topics(text: str) -> Topics:
    out = Topics()
    for top in _OLD_TOP.finditer(text):
        body, base = top.group(1), top.start(1)
        top_span = Span(top.start(), top.start() + len("<top>"))
        if not top.group(0).lower().endswith("</top>"):
            out.findings.append(finding("QR301", top_span, "<top> is not closed by </top>"))
        num = _OLD_NUM.search(body)
        if num is None or not num.group(1):
            out.findings.append(finding("QR301", top_span, "topic without a <num>: add one"))
            continue
        qid_span = Span(base + num.start(1), base + num.end(1))
        section = None
        for rx in (_OLD_TITLE_SECTION, _OLD_DESC_SECTION):
            m = rx.search(body)
            if m is not None and m.group(1):
                section = m
                break
        if section is None:
            out.findings.append(
                finding("QR301", qid_span, f"topic {num.group(1)} has no <title> or <desc> text")
            )
            continue
        words = " ".join(section.group(1).split())
        span = Span(base + section.start(1), base + section.end(1))
        out.add(Topic(num.group(1), words, span, qid_span))
    return out


# -- comparing ----------------------------------------------------------------------------------


def read_corpus(parse: Callable[[Corpus, str], None], text: str) -> tuple[object, ...]:
    corpus = Corpus(Path("c.trec"), "trec", "")
    parse(corpus, text)
    docs = [
        (d.doc_id, d.title, d.text, d.line, d.id_span, d.title_in_text) for d in corpus.documents()
    ]
    return docs, corpus.problems


def new_reader(corpus: Corpus, text: str) -> None:
    corpus_module._parse_trec(corpus, text, Path("c.trec"), "c.trec", None, None)


def old_reader(corpus: Corpus, text: str) -> None:
    old_parse_trec(corpus, text, Path("c.trec"), "c.trec")


def same_corpus(text: str) -> None:
    assert read_corpus(new_reader, text) == read_corpus(old_reader, text)


def same_topics(text: str) -> None:
    new, old = parse_trec_topics(text), old_parse_trec_topics(text)
    assert list(new.values()) == list(old.values())
    assert new.findings == old.findings


# -- generated files ----------------------------------------------------------------------------

SPACE = st.sampled_from([" ", "  ", "\n", "\r\n", "\r", "\t", "\u00a0", "\u2003", "\x0b", "\x1c"])
WORD = st.sampled_from(["x", "ab", "42", "Café", "日本", "a.b", "ſ", "ı", "İ", "K", "-"])
STRAY = st.sampled_from(["<", ">", "</", "<a", "<a href='x'>", "</p>", "<b>", "<1>", "< b>", "/>"])


def padded(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``inner`` with whitespace of every kind around it: where stripping can go wrong."""
    spaces = st.lists(SPACE, max_size=3).map("".join)
    return st.tuples(spaces, inner, spaces).map("".join)


def pieces(tags: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(SPACE, WORD, STRAY, st.sampled_from(tags)), max_size=40).map("".join)


DOC_TAGS = [
    "<DOC>",
    "</DOC>",
    "<doc>",
    "</Doc>",
    "<DOCNO>",
    "</DOCNO>",
    "<docno>",
    "</docNO>",
    "<TITLE>",
    "</TITLE>",
    "<title>",
    "</Title>",
    "<HEAD>",
    "</HEAD>",
    "<head>",
    "<HEADLINE>",
    "</HEADLINE>",
    "</headline>",
    "<TEXT>",
    "</TEXT>",
    "<TİTLE>",
    "</TıTLE>",
]


@st.composite
def trec_corpus(draw: st.DrawFn) -> str:
    """Well-formed documents with broken ones and noise between them."""
    out = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            doc_id = draw(padded(st.sampled_from(["d1", "FT911-3", "", "a b", "1", "<b>x"])))
            title = draw(padded(pieces(DOC_TAGS))) if draw(st.booleans()) else ""
            out.append(
                f"<DOC>\n<DOCNO>{doc_id}</DOCNO>\n<TITLE>{title}</TITLE>\n"
                f"<TEXT>{draw(pieces(DOC_TAGS))}</TEXT>\n</DOC>\n"
            )
        else:
            out.append(draw(pieces(DOC_TAGS)))
    return "".join(out)


@given(trec_corpus())
@SETTINGS
def test_corpus_reader_matches_the_regex_reader(text: str) -> None:
    same_corpus(text)


@given(pieces(DOC_TAGS))
@SETTINGS
def test_corpus_reader_matches_on_tag_soup(text: str) -> None:
    same_corpus(text)


TOPIC_TAGS = [
    "<top>",
    "</top>",
    "<TOP>",
    "<num>",
    "</num>",
    "Number:",
    "Number :",
    "<title>",
    "</title>",
    "<TITLE>",
    "Topic:",
    "topic :",
    "<desc>",
    "</desc>",
    "Description:",
    "<narr>",
    "Narrative:",
    "301",
    "<num> Number: 302",
]


@st.composite
def trec_topics(draw: st.DrawFn) -> str:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            out.append(
                f"<top>\n<num> Number: {draw(st.sampled_from(['301', '', ' 7 ', 'a<']))}\n"
                f"<title>{draw(padded(pieces(TOPIC_TAGS)))}\n<desc> Description:\n"
                f"{draw(padded(pieces(TOPIC_TAGS)))}\n</top>\n"
            )
        else:
            out.append(draw(pieces(TOPIC_TAGS)))
    return "".join(out)


@given(trec_topics())
@SETTINGS
def test_topics_reader_matches_the_regex_reader(text: str) -> None:
    same_topics(text)


@given(pieces(TOPIC_TAGS))
@SETTINGS
def test_topics_reader_matches_on_tag_soup(text: str) -> None:
    same_topics(text)


# -- the real files -----------------------------------------------------------------------------


def test_vaswani_corpus_reads_as_before() -> None:
    text = (VASWANI / "corpus" / "doc-text.trec").read_text(encoding="utf-8")
    docs, problems = read_corpus(new_reader, text)
    assert (docs, problems) == read_corpus(old_reader, text)
    assert len(docs) == 11429 and problems == []


def test_vaswani_topics_read_as_before() -> None:
    text = (VASWANI / "query-text.trec").read_text(encoding="utf-8")
    same_topics(text)
    assert len(parse_trec_topics(text)) == 93


# -- hostile shapes, each linear now ------------------------------------------------------------


def linear(fn: Callable[[str], object], text: str) -> None:
    """``fn`` reads ``text`` in time linear in its length: measured against a sixteenth of it in
    the same run (a ratio, so a busy machine slows both), it takes less than 64 times as long
    (linear: about 16; quadratic: about 256). Each size is chosen so that the old pattern took
    5 s or more on it, so each of these tests fails on the old code."""
    part = text[: len(text) // 16]
    small = min(_seconds(fn, part) for _ in range(3))
    big = _seconds(fn, text)
    assert big < max(small, 0.001) * 64, (big, small)


def _seconds(fn: Callable[[str], object], text: str) -> float:
    began = time.perf_counter()
    fn(text)
    return time.perf_counter() - began


def corpus_of(text: str) -> object:
    return read_corpus(new_reader, text)


def test_docno_without_closing_tag() -> None:
    linear(corpus_of, "<DOC><DOCNO>" + " " * 2_500 + "x</DOC>")  # old: ~8 s (cubic)


def test_unclosed_titles_and_tags() -> None:
    linear(corpus_of, "<DOC><DOCNO>1</DOCNO>" + "<TITLE>" * 16_000)  # old: ~12 s
    linear(corpus_of, "<DOC><DOCNO>1</DOCNO>" + "<a" * 100_000)  # old: ~12 s


def test_topic_section_with_spaces_inside() -> None:
    linear(parse_trec_topics, "<top><num>1<title>x" + " " * 20_000 + "y</top>")  # old: ~6 s
    linear(parse_trec_topics, "<top><num>1<desc>x" + " \n" * 10_000 + "y")  # old: ~6 s


def test_long_number_field_is_sniffed_linearly() -> None:
    linear(sniff_trec_kind, "q Q0 d 1 " + "1" * 20_000 + "x tag\n")  # old: ~11 s
