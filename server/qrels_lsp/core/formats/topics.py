"""Question texts for TREC/BEIR qrels: TREC ``<top>`` topics, and JSONL or TSV query files."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..base.findings import Finding, Related, finding
from ..base.patterns import (
    JSON_BARE_VALUE,
    QUERY_KEY,
    SECTION_END,
    TOPIC_BLOCK,
    TOPIC_DESC,
    TOPIC_NUM,
    TOPIC_TITLE,
    Pattern,
)
from ..base.text import Span
from .sgml import blocks
from .trec_lines import text_lines

# --- topics and queries -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Topic:
    """A query's text; ``span`` covers the text, ``qid_span`` the id where it was given."""

    qid: str
    text: str
    span: Span
    qid_span: Span | None = None


class Topics(dict[str, Topic]):
    """qid -> :class:`Topic` in file order, with what was wrong in the file."""

    def __init__(self) -> None:
        super().__init__()
        self.findings: list[Finding] = []

    def add(self, topic: Topic) -> None:
        """Keep the first definition of a query id and report the others."""
        first = self.get(topic.qid)
        if first is None:
            self[topic.qid] = topic
            return
        self.findings.append(
            finding(
                "QR301",
                topic.qid_span or topic.span,
                f"query {topic.qid} is defined twice; the first definition is used",
                related=(Related(first.qid_span or first.span, "first definition"),),
            )
        )


# A section is what ``<title>\s*(?:Topic\s*:)?\s*(.*?)\s*(?:</title>|(?=<[a-z/])|\Z)`` would
# capture; but that pattern retries ``\s*`` from every position of a run of spaces that is not
# followed by a tag (quadratic: 16 KB of spaces took 10 s), so only its head is matched by a regex
# and the end is the first tag after it, found by a linear search, with the spaces before it cut.


def _section_in(body: str, head: Pattern[str]) -> tuple[int, int] | None:
    r"""Where the text of the first section ``head`` opens lies in ``body``: (start, end).

    The lazy text of the old pattern ends at the first tag (``</title>`` is one) or at the end,
    less the whitespace before it; ``\s`` and ``str.rstrip`` agree on what whitespace is.
    """
    m = head.search(body)
    if m is None:
        return None
    start = m.end()
    end = SECTION_END.search(body, start)
    stop = end.start() if end is not None else len(body)
    return start, start + len(body[start:stop].rstrip())


def _section(body: str) -> tuple[int, int] | None:
    """The title, or the description when there is no non-empty title."""
    for rx in (TOPIC_TITLE, TOPIC_DESC):
        found = _section_in(body, rx)
        if found is not None and found[0] < found[1]:
            return found
    return None


def parse_trec_topics(text: str) -> Topics:
    """``<top><num>..</num><title>..</title></top>`` topics; old-style ``<num> Number: 301`` and
    ``<desc>`` sections are understood. The text is the title, or the description without one."""
    out = Topics()
    for top in blocks(text, TOPIC_BLOCK):
        body, base = text[top.body : top.body_end], top.body
        top_span = Span(top.start, top.start + len("<top>"))
        if not top.closed:
            out.findings.append(finding("QR301", top_span, "<top> is not closed by </top>"))
        num = TOPIC_NUM.search(body)
        if num is None or not num.group(1):
            out.findings.append(finding("QR301", top_span, "topic without a <num>: add one"))
            continue
        qid_span = Span(base + num.start(1), base + num.end(1))
        section = _section(body)
        if section is None:
            out.findings.append(
                finding("QR301", qid_span, f"topic {num.group(1)} has no <title> or <desc> text")
            )
            continue
        start, end = section
        words = " ".join(body[start:end].split())
        out.add(Topic(num.group(1), words, Span(base + start, base + end), qid_span))
    return out


_ID_KEYS = ("_id", "id", "query_id", "qid")
_TEXT_KEYS = ("text", "query", "title")
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _value_spans(line: str, offset: int) -> dict[str, Span]:
    """Where each known key's value is written on a JSON line (best effort: spans help editors,
    they are not needed to read the value)."""
    spans: dict[str, Span] = {}
    for m in QUERY_KEY.finditer(line):
        start = m.end()
        end = start
        try:
            if line.startswith('"', start):
                _, end = _scanstring(line, start + 1)
            else:
                bare = JSON_BARE_VALUE.match(line, start)
                end = bare.end() if bare else start
        except (ValueError, IndexError):
            continue
        spans.setdefault(m.group(1), Span(offset + start, offset + end))
    return spans


def _pick(obj: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any] | None:
    for k in keys:
        if k in obj and obj[k] is not None:
            return k, obj[k]
    return None


def parse_queries_jsonl(text: str) -> Topics:
    """One JSON object per line with an id (``_id``/``id``/``query_id``/``qid``) and a text
    (``text``/``query``/``title``), as BEIR and ir_datasets export queries."""
    out = Topics()
    for offset, line in text_lines(text):
        if not line.strip():
            continue
        span = Span(offset, offset + len(line))
        try:
            obj = json.loads(line)
        except ValueError as exc:
            out.findings.append(finding("QR301", span, f"not a JSON object: {exc}"))
            continue
        if not isinstance(obj, dict):
            out.findings.append(finding("QR301", span, "expected a JSON object on each line"))
            continue
        ident, body = _pick(obj, _ID_KEYS), _pick(obj, _TEXT_KEYS)
        spans = _value_spans(line, offset)
        if ident is None or not isinstance(ident[1], (str, int)) or isinstance(ident[1], bool):
            out.findings.append(
                finding("QR301", span, 'no query id: add an "_id" (or "id", "query_id", "qid")')
            )
            continue
        qid = str(ident[1])
        if body is None or not isinstance(body[1], str):
            out.findings.append(
                finding(
                    "QR301",
                    spans.get(ident[0], span),
                    f'query {qid} has no text: add a "text" (or "query", "title") string',
                )
            )
            continue
        out.add(Topic(qid, body[1], spans.get(body[0], span), spans.get(ident[0], span)))
    return out


_TSV_HEADER_IDS = {"id", "_id", "qid", "query_id", "query-id"}
_TSV_HEADER_TEXTS = {"text", "query", "title", "question"}


def parse_queries_tsv(text: str) -> Topics:
    """``id<TAB>text`` lines (MS MARCO's queries.tsv); an ``id<TAB>text`` header is skipped."""
    out = Topics()
    first = True
    for offset, line in text_lines(text):
        if not line.strip():
            continue
        was_first, first = first, False
        if "\t" not in line:
            end = offset + len(line)
            out.findings.append(
                finding("QR301", Span(end, end), "expected id<TAB>text: the text column is missing")
            )
            continue
        qid, rest = line.split("\t", 1)
        if (
            was_first
            and qid.strip().lower() in _TSV_HEADER_IDS
            and (rest.strip().lower() in _TSV_HEADER_TEXTS)
        ):
            continue
        qid_span = Span(offset, offset + len(qid))
        if not qid.strip() or not rest.strip():
            where = qid_span if not qid.strip() else Span(offset + len(qid) + 1, offset + len(line))
            out.findings.append(finding("QR301", where, "expected id<TAB>text: a column is empty"))
            continue
        lead = len(rest) - len(rest.lstrip())
        start = offset + len(qid) + 1 + lead
        body = rest.strip()
        out.add(Topic(qid.strip(), body, Span(start, start + len(body)), qid_span))
    return out


TopicsKind = Literal["trec", "jsonl", "tsv"]


def topics_kind(name: str, text: str | None = None) -> TopicsKind:
    """How a topics file is written: by its name (``.jsonl``, ``.tsv``), else by its content (a
    JSON object on the first line, a tab in it), else TREC ``<top>`` topics."""
    name = name.lower()
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith((".tsv", ".tab")):
        return "tsv"
    if text is not None:
        first = next((line for _, line in text_lines(text) if line.strip()), "")
        if first.lstrip().startswith("{"):
            return "jsonl"
        if "\t" in first and "<" not in first:
            return "tsv"
    return "trec"


def parse_topics(name: str, text: str) -> Topics:
    """A topics or queries file read as its name, else its content, says (:func:`topics_kind`)."""
    kind = topics_kind(name, text)
    if kind == "jsonl":
        return parse_queries_jsonl(text)
    if kind == "tsv":
        return parse_queries_tsv(text)
    return parse_trec_topics(text)


def topics_text(questions: dict[str, str], kind: TopicsKind = "trec") -> str:
    """Questions as a TREC topics file (``<top>``), BEIR-style JSONL (``_id``, ``text``) or TSV
    (``id<TAB>text``)."""
    out = []
    for qid, question in questions.items():
        text = " ".join(question.split())
        if kind == "jsonl":
            out.append(json.dumps({"_id": qid, "text": text}, ensure_ascii=False))
        elif kind == "tsv":
            out.append(f"{' '.join(qid.split())}\t{text}")
        else:
            out.append(f"<top>\n<num>{qid}</num>\n<title>{text}</title>\n</top>")
    return "\n".join(out) + ("\n" if out else "")
