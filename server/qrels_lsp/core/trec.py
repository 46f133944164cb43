"""TREC and BEIR text formats: qrels, runs, topics and query files.

The span-carrying parsers feed the language server and the checks; they never raise, because a
half-typed line is the normal state of a file being edited: they return what they could read plus
findings. They read what trec_eval reads (``atol`` grades, ``atof`` scores, fields after a run's
tag ignored, ``#`` comment lines) so that the numbers shown agree with trec_eval's, and say where
trec_eval would have read something other than what the user meant.

The ``read_*`` functions are the fast paths for the CLI's ``score`` on runs of millions of lines:
no spans, no per-line objects, same values and same order as the full parsers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from .findings import Finding, Related, finding
from .metrics import order_by_score, trec_eval_order
from .model import Judgment, Qrels, Query, Ranking, Retrieved, Run
from .text import Span

# trec_eval splits fields on C's isspace (line breaks are handled as lines here).
_FIELD = re.compile(r"[^ \t\v\f]+")
# Characters str.split() treats as whitespace but trec_eval does not: their presence sends the fast
# paths to the exact splitter so that they agree with the full parsers.
_EXOTIC_WS = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ATOL = re.compile(r"[ \t\v\f]*([+-]?\d+)")
# ``\d+(?:\.\d*)?`` rather than the equivalent ``\d+\.?\d*``: the latter splits a run of digits
# between its two quantifiers in every way before a fullmatch fails (quadratic on a long field).
_ATOF = re.compile(
    r"[ \t\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?)", re.I
)

QRELS_COLUMNS = ("query", "iteration", "document", "grade")
RUN_COLUMNS = ("query", "Q0", "document", "rank", "score", "tag")
BEIR_COLUMNS = ("query-id", "corpus-id", "score")


# --- lines, fields and numbers ------------------------------------------------------------------


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each line, split at the LSP's breaks: ``\\n``, ``\\r\\n``, ``\\r``."""
    start = 1 if text.startswith("\ufeff") else 0
    for m in _LINE_BREAK.finditer(text, start):
        yield start, text[start : m.start()]
        start = m.end()
    yield start, text[start:]


def _fields(line: str, offset: int) -> list[tuple[str, Span]]:
    return [(m.group(), Span(offset + m.start(), offset + m.end())) for m in _FIELD.finditer(line)]


def _tab_fields(line: str, offset: int) -> list[tuple[str, Span]]:
    """Fields of a TSV line, each trimmed of surrounding spaces (BEIR files are hand edited)."""
    out: list[tuple[str, Span]] = []
    pos = 0
    for part in line.split("\t"):
        lead = len(part) - len(part.lstrip(" "))
        value = part.strip(" ")
        out.append((value, Span(offset + pos + lead, offset + pos + lead + len(value))))
        pos += len(part) + 1
    return out


def _is_comment(line: str) -> bool:
    return line.lstrip(" \t\v\f").startswith("#")


def _plain(s: str) -> bool:
    """Whether Python's int()/float() read ``s`` exactly as C's atol()/atof() would."""
    return s.isascii() and "_" not in s


def atol(s: str) -> tuple[int, bool]:
    """C's ``atol``, as trec_eval reads grades; the flag says the text was an exact integer."""
    if _plain(s):
        try:
            return int(s), True
        except ValueError:
            pass
    m = _ATOL.match(s)
    return (int(m.group(1)), False) if m else (0, False)


def atof(s: str) -> tuple[float, bool]:
    """C's ``atof``, which trec_eval uses for scores; the flag says the text was a plain number."""
    if _plain(s):
        try:
            x = float(s)
        except ValueError:
            pass
        else:
            return x, x == x
    m = _ATOF.match(s)
    return (float(m.group(1)), False) if m else (0.0, False)


def _run_score(s: str) -> float | None:
    """A run score as trec_eval reads it, or None for NaN, which has no place in an order."""
    x, _ = atof(s)
    return None if x != x else x


def _count_message(columns: tuple[str, ...], found: int, at_least: bool = False) -> str:
    n = len(columns)
    want = f"at least {n}" if at_least else str(n)
    if found < n:
        return (
            f"expected {want} fields ({' '.join(columns)}), found {found}: "
            f"the {columns[found]} column is missing"
        )
    return f"expected {want} fields ({' '.join(columns)}), found {found}: remove the extra fields"


def _missing_span(line: str, offset: int) -> Span:
    """Where a missing trailing column would go: the end of the line's content."""
    end = offset + len(line.rstrip(" \t\v\f"))
    return Span(end, end)


# --- qrels --------------------------------------------------------------------------------------


class _QrelsBuilder:
    """Collects judgments per query with block spans and duplicate detection."""

    def __init__(self, fmt: Literal["trec", "beir"]) -> None:
        self.qrels = Qrels(format=fmt)
        self._first: dict[tuple[str, str], Span] = {}

    def add(
        self, qid: tuple[str, Span], doc: tuple[str, Span], grade: tuple[str, Span], line: Span
    ) -> None:
        value, exact = atol(grade[0])
        if not exact:
            self.qrels.findings.append(
                finding(
                    "QR302",
                    grade[1],
                    f"grade {grade[0]!r} is not an integer; trec_eval reads it as {value}",
                )
            )
        q = self.qrels.queries.get(qid[0])
        if q is None:
            q = self.qrels.queries[qid[0]] = Query(qid=qid[0], span=qid[1], block=line)
        else:
            q.block = Span(q.block.start, line.end)
        key = (qid[0], doc[0])
        first = self._first.get(key)
        if first is None:
            self._first[key] = doc[1]
        else:
            self.qrels.findings.append(
                finding(
                    "QR303",
                    doc[1],
                    f"document {doc[0]} is judged twice for query {qid[0]}; the first judgment is "
                    "used (trec_eval refuses the file): remove one",
                    related=(Related(first, "first judgment"),),
                )
            )
        q.judgments.append(Judgment(doc_id=doc[0], grade=value, span=doc[1], grade_span=grade[1]))


def _bad_grade(grade: str) -> bool:
    """A grade with no leading integer at all: most likely a shifted column, not a typo."""
    return _ATOL.match(grade) is None


def parse_trec_qrels(text: str) -> Qrels:
    """``qid iter docid grade`` lines; ``#`` lines are comments, blank lines are skipped."""
    b = _QrelsBuilder("trec")
    for offset, line in _lines(text):
        if not line.strip(" \t\v\f") or _is_comment(line):
            continue
        fields = _fields(line, offset)
        span = Span(offset, offset + len(line))
        if len(fields) < 4:
            b.qrels.findings.append(
                finding(
                    "QR301", _missing_span(line, offset), _count_message(QRELS_COLUMNS, len(fields))
                )
            )
            continue
        if len(fields) > 4:
            extra = Span(fields[4][1].start, fields[-1][1].end)
            b.qrels.findings.append(
                finding("QR301", extra, _count_message(QRELS_COLUMNS, len(fields)))
            )
        if _bad_grade(fields[3][0]):
            b.qrels.findings.append(
                finding(
                    "QR301",
                    fields[3][1],
                    f"the grade column holds {fields[3][0]!r}, not a number: "
                    "expected query iteration document grade",
                )
            )
            continue
        b.add(fields[0], fields[2], fields[3], span)
    return b.qrels


def _beir_fields(line: str, offset: int) -> list[tuple[str, Span]]:
    return _tab_fields(line, offset) if "\t" in line else _fields(line, offset)


def _beir_problem(line: str, offset: int, fields: list[tuple[str, Span]]) -> Finding | None:
    """What keeps a BEIR line from being read; extra fields are reported by the caller."""
    if len(fields) < 3:
        return finding(
            "QR301", _missing_span(line, offset), _count_message(BEIR_COLUMNS, len(fields))
        )
    for i, (value, span) in enumerate(fields[:3]):
        if not value:
            return finding("QR301", span, f"the {BEIR_COLUMNS[i]} column is empty")
    if _bad_grade(fields[2][0]):
        return finding(
            "QR301",
            fields[2][1],
            f"the score column holds {fields[2][0]!r}, not a number: "
            "expected query-id corpus-id score",
        )
    return None


def parse_beir_qrels(text: str) -> Qrels:
    """BEIR's ``query-id<TAB>corpus-id<TAB>score`` TSV; a header line is recognised and skipped."""
    b = _QrelsBuilder("beir")
    first = True
    for offset, line in _lines(text):
        if not line.strip(" \t\v\f") or _is_comment(line):
            continue
        fields = _beir_fields(line, offset)
        was_first, first = first, False
        if was_first and len(fields) == 3 and _bad_grade(fields[2][0]):
            continue  # the header
        problem = _beir_problem(line, offset, fields)
        if problem is not None:
            b.qrels.findings.append(problem)
            continue
        if len(fields) > 3:
            extra = Span(fields[3][1].start, fields[-1][1].end)
            b.qrels.findings.append(
                finding("QR301", extra, _count_message(BEIR_COLUMNS, len(fields)))
            )
        b.add(fields[0], fields[1], fields[2], Span(offset, offset + len(line)))
    return b.qrels


def _splitter(text: str) -> Callable[[str], list[str]]:
    if _EXOTIC_WS.search(text) is None:
        return str.split
    return _FIELD.findall


def _fast_lines(text: str) -> list[str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = _LINE_BREAK.sub("\n", text)
    return text.split("\n")


def read_trec_qrels_grades(text: str) -> dict[str, dict[str, int]]:
    """qid -> doc id -> grade, fast, with exactly :func:`parse_trec_qrels`'s values."""
    split = _splitter(text)
    out: dict[str, dict[str, int]] = {}
    for line in _fast_lines(text):
        parts = split(line)
        if len(parts) < 4 or parts[0].startswith("#"):
            continue
        grade = parts[3]
        try:
            value = int(grade) if _plain(grade) else None
        except ValueError:
            value = None
        if value is None:
            if _bad_grade(grade):
                continue
            value = atol(grade)[0]
        q = out.get(parts[0])
        if q is None:
            q = out[parts[0]] = {}
        if parts[2] not in q:
            q[parts[2]] = value
    return out


# --- runs ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Line:
    """One run line as read, before the query's lines are put in evaluation order."""

    doc: Retrieved
    score: float
    rank_span: Span


def _run_line(line: str, offset: int, run: Run) -> tuple[tuple[str, Span], _Line] | None:
    fields = _fields(line, offset)
    if len(fields) < 6:
        run.findings.append(
            finding(
                "QR301", _missing_span(line, offset), _count_message(RUN_COLUMNS, len(fields), True)
            )
        )
        return None
    (qid, qspan), _, (doc, dspan), (rank, rspan), (score_text, sspan), tag = fields[:6]
    score, plain = atof(score_text)
    if score != score:
        run.findings.append(
            finding(
                "QR301", sspan, "the score is NaN, which has no place in a ranking: use a number"
            )
        )
        return None
    if not plain:
        run.findings.append(
            finding(
                "QR301",
                sspan,
                f"the score column holds {score_text!r}, not a number; trec_eval reads it as "
                f"{score!r} and ranks the document accordingly",
            )
        )
    if run.name is None:
        run.name, run.name_span = tag
    rank_value, exact = atol(rank)
    retrieved = Retrieved(doc, dspan, score, rank_value if exact else None)
    return (qid, qspan), _Line(retrieved, score, rspan)


def _rank_order_finding(qid: str, ordered: list[_Line]) -> Finding | None:
    """The first line whose rank column puts it ahead of a document trec_eval ranks higher."""
    prev: _Line | None = None
    for pos, cur in enumerate(ordered, start=1):
        if cur.doc.rank is None:
            continue
        if prev is not None and prev.doc.rank is not None and cur.doc.rank < prev.doc.rank:
            return finding(
                "QR204",
                cur.rank_span,
                f"rank {cur.doc.rank} of {cur.doc.doc_id} disagrees with trec_eval's order for "
                f"query {qid}: trec_eval ignores the rank column and sorts by score (descending), "
                f"then document id (descending), so {cur.doc.doc_id} is evaluated at position "
                f"{pos}, after {prev.doc.doc_id} (rank {prev.doc.rank})",
                related=(Related(prev.rank_span, f"{prev.doc.doc_id}, ranked ahead by trec_eval"),),
            )
        prev = cur
    return None


def parse_trec_run(text: str) -> Run:
    """``qid Q0 docid rank score tag`` lines, each query's documents in trec_eval's order."""
    run = Run(format="trec")
    per_query: dict[str, list[_Line]] = {}
    first: dict[tuple[str, str], Span] = {}
    for offset, line in _lines(text):
        if not line.strip(" \t\v\f") or _is_comment(line):
            continue
        parsed = _run_line(line, offset, run)
        if parsed is None:
            continue
        (qid, qspan), rl = parsed
        ranking = run.rankings.get(qid)
        line_span = Span(offset, offset + len(line))
        if ranking is None:
            ranking = run.rankings[qid] = Ranking(qid=qid, span=qspan, block=line_span)
            per_query[qid] = []
        else:
            ranking.block = Span(ranking.block.start, line_span.end)
        key = (qid, rl.doc.doc_id)
        if key in first:
            run.findings.append(
                finding(
                    "QR203",
                    rl.doc.span,
                    f"document {rl.doc.doc_id} is retrieved twice for query {qid}; the first "
                    "occurrence is scored (trec_eval refuses the run): remove one",
                    related=(Related(first[key], "first occurrence"),),
                )
            )
            continue
        first[key] = rl.doc.span
        per_query[qid].append(rl)
    for qid, lines in per_query.items():
        by_id = {rl.doc.doc_id: rl for rl in lines}
        ordered = [by_id[d] for d in trec_eval_order((rl.doc.doc_id, rl.score) for rl in lines)]
        run.rankings[qid].docs = [rl.doc for rl in ordered]
        f = _rank_order_finding(qid, ordered)
        if f is not None:
            run.findings.append(f)
    return run


def read_trec_run_ids(text: str) -> dict[str, list[str]]:
    """qid -> doc ids in evaluation order, fast, agreeing with :func:`parse_trec_run`."""
    try:
        scores = _read_strict_run(text)
    except ValueError:
        scores = _read_lenient_run(text)
    return {qid: order_by_score(q) for qid, q in scores.items()}


# What sends a run off the strict path: anything that could make str.split() or float() read a
# line differently from trec_eval (comments, CRs, exotic whitespace, non-ASCII). Underscores are
# checked in the score alone, as doc ids and run tags often hold them.
_NOT_STRICT = ("#", "\r", "\x1c", "\x1d", "\x1e", "\x1f")


def _read_strict_run(text: str) -> dict[str, dict[str, float]]:
    """The common case in one tight loop: every line exactly six plain fields, no NaN.

    Raises ValueError on anything else (a short or long line, a blank line, a score float() does
    not read, a NaN) so that the caller falls back to the lenient reader: never a wrong answer,
    only a slower one. Run files are grouped by query, so the query's dict is looked up only when
    the query id changes.
    """
    if not text.isascii() or any(c in text for c in _NOT_STRICT):
        raise ValueError("not a plain run")
    scores: dict[str, dict[str, float]] = {}
    prev: str | None = None
    docs: dict[str, float] = {}
    body = text[:-1] if text.endswith("\n") else text
    for qid, _, doc, _, score, _ in map(str.split, body.split("\n")):
        if qid != prev:
            docs = scores.setdefault(qid, {})
            prev = qid
        if "_" in score:  # float() reads 1_0 as 10, C's atof as 1
            raise ValueError("underscore in a score")
        docs.setdefault(doc, float(score))
    for docs in scores.values():
        total = sum(docs.values())
        if total != total:  # a NaN (or inf - inf): the lenient reader sorts out which
            raise ValueError("NaN score")
    return scores


def _read_lenient_run(text: str) -> dict[str, dict[str, float]]:
    """Every line trec_eval would read, with its C number parsing: the exact, slower path."""
    split = _splitter(text)
    scores: dict[str, dict[str, float]] = {}
    for line in _fast_lines(text):
        parts = split(line)
        if len(parts) < 6 or parts[0].startswith("#"):
            continue
        s = parts[4]
        try:
            score: float | None = float(s) if _plain(s) else None
        except ValueError:
            score = None
        if score is None or score != score:
            score = _run_score(s)
            if score is None:
                continue
        q = scores.get(parts[0])
        if q is None:
            q = scores[parts[0]] = {}
        if parts[2] not in q:
            q[parts[2]] = score
    return scores


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


_TOP = re.compile(r"<top>(.*?)(?:</top>|(?=<top>)|\Z)", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number\s*:\s*)?([^\s<]*)", re.I)
# A section is what ``<title>\s*(?:Topic\s*:)?\s*(.*?)\s*(?:</title>|(?=<[a-z/])|\Z)`` would
# capture; but that pattern retries ``\s*`` from every position of a run of spaces that is not
# followed by a tag (quadratic: 16 KB of spaces took 10 s), so only its head is matched by a regex
# and the end is the first tag after it, found by a linear search, with the spaces before it cut.
_SECTION_HEAD = r"<{0}>\s*(?:{1}\s*:)?\s*"
_TITLE = re.compile(_SECTION_HEAD.format("title", "Topic"), re.I)
_DESC = re.compile(_SECTION_HEAD.format("desc", "Description"), re.I)
_SECTION_END = re.compile(r"<[a-z/]", re.I)


def _section_in(body: str, head: re.Pattern[str]) -> tuple[int, int] | None:
    r"""Where the text of the first section ``head`` opens lies in ``body``: (start, end).

    The lazy text of the old pattern ends at the first tag (``</title>`` is one) or at the end,
    less the whitespace before it; ``\s`` and ``str.rstrip`` agree on what whitespace is.
    """
    m = head.search(body)
    if m is None:
        return None
    start = m.end()
    end = _SECTION_END.search(body, start)
    stop = end.start() if end is not None else len(body)
    return start, start + len(body[start:stop].rstrip())


def _section(body: str) -> tuple[int, int] | None:
    """The title, or the description when there is no non-empty title."""
    for rx in (_TITLE, _DESC):
        found = _section_in(body, rx)
        if found is not None and found[0] < found[1]:
            return found
    return None


def parse_trec_topics(text: str) -> Topics:
    """``<top><num>..</num><title>..</title></top>`` topics; old-style ``<num> Number: 301`` and
    ``<desc>`` sections are understood. The text is the title, or the description without one."""
    out = Topics()
    for top in _TOP.finditer(text):
        body, base = top.group(1), top.start(1)
        top_span = Span(top.start(), top.start() + len("<top>"))
        if text[max(top.start(), top.end() - 6) : top.end()].lower() != "</top>":
            out.findings.append(finding("QR301", top_span, "<top> is not closed by </top>"))
        num = _NUM.search(body)
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
_BARE_VALUE = re.compile(r"[^,}\s]*")
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_KEY_AT = re.compile(r'"(_id|id|query_id|qid|text|query|title)"\s*:\s*')


def _value_spans(line: str, offset: int) -> dict[str, Span]:
    """Where each known key's value is written on a JSON line (best effort: spans help editors,
    they are not needed to read the value)."""
    spans: dict[str, Span] = {}
    for m in _KEY_AT.finditer(line):
        start = m.end()
        end = start
        try:
            if line.startswith('"', start):
                _, end = _scanstring(line, start + 1)
            else:
                bare = _BARE_VALUE.match(line, start)
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
    for offset, line in _lines(text):
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
    for offset, line in _lines(text):
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


# --- sniffing -----------------------------------------------------------------------------------

TrecKind = Literal["trec-qrels", "trec-run", "beir-qrels"]


def _numeric(s: str) -> bool:
    return _ATOF.fullmatch(s) is not None


def sniff_trec_kind(text: str) -> TrecKind | None:
    """Tell a TREC qrels, a TREC run and a BEIR qrels TSV apart by their first content line."""
    for _, line in _lines(text):
        if not line.strip() or _is_comment(line):
            continue
        parts = _FIELD.findall(line)
        tabs = line.split("\t")
        if len(tabs) == 3 and (not _numeric(tabs[2].strip()) or len(parts) == 3):
            return "beir-qrels"
        if len(parts) >= 6 and _numeric(parts[4]):
            return "trec-run"
        if len(parts) == 4 and _ATOL.fullmatch(parts[3]) is not None:
            return "trec-qrels"
        if len(parts) == 3 and _numeric(parts[2]):
            return "beir-qrels"
        return None
    return None
