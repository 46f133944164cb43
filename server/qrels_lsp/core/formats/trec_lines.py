"""The line level of TREC and BEIR files, shared by their readers: lines as LSP counts them,
fields as trec_eval splits them, numbers as C's ``atol``/``atof`` read them, and the messages a
malformed line gets. Each format (trec_qrels, beir_qrels, trec_run) builds on these."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Literal

from ..base.findings import Related, Severity, declare, finding
from ..base.text import LineIndex, Span
from ..model import Judgment, Qrels, Query
from .format import EditRefused

declare(
    "QR301",
    "malformed-line",
    Severity.ERROR,
    "TREC/BEIR",
    "A line with the wrong fields.",
    drops=True,
)
declare(
    "QR302",
    "grade-not-integer-trec",
    Severity.WARNING,
    "TREC/BEIR",
    "A grade trec_eval would truncate.",
)
declare(
    "QR303",
    "duplicate-judgment",
    Severity.WARNING,
    "TREC/BEIR",
    "The same (query, document) judged twice.",
    drops=True,
)


# trec_eval splits fields on C's isspace (line breaks are handled as lines here).
FIELD = re.compile(r"[^ \t\v\f]+")
# Characters str.split() treats as whitespace but trec_eval does not: their presence sends the fast
# paths to the exact splitter so that they agree with the full parsers.
EXOTIC_WS = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
ATOL = re.compile(r"[ \t\v\f]*([+-]?\d+)")
# ``\d+(?:\.\d*)?`` rather than the equivalent ``\d+\.?\d*``: the latter splits a run of digits
# between its two quantifiers in every way before a fullmatch fails (quadratic on a long field).
ATOF = re.compile(
    r"[ \t\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf(?:inity)?)", re.I
)

QRELS_COLUMNS = ("query", "iteration", "document", "grade")
RUN_COLUMNS = ("query", "Q0", "document", "rank", "score", "tag")
BEIR_COLUMNS = ("query-id", "corpus-id", "score")


# --- lines, fields and numbers ------------------------------------------------------------------


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each line, split at the LSP's breaks: ``\\n``, ``\\r\\n``, ``\\r``."""
    start = 1 if text.startswith("\ufeff") else 0
    for m in LINE_BREAK.finditer(text, start):
        yield start, text[start : m.start()]
        start = m.end()
    yield start, text[start:]


def line_fields(line: str, offset: int) -> list[tuple[str, Span]]:
    return [(m.group(), Span(offset + m.start(), offset + m.end())) for m in FIELD.finditer(line)]


def tab_fields(line: str, offset: int) -> list[tuple[str, Span]]:
    """Fields of a TSV line, each trimmed of surrounding spaces (BEIR files are hand edited)."""
    out: list[tuple[str, Span]] = []
    pos = 0
    for part in line.split("\t"):
        lead = len(part) - len(part.lstrip(" "))
        value = part.strip(" ")
        out.append((value, Span(offset + pos + lead, offset + pos + lead + len(value))))
        pos += len(part) + 1
    return out


def is_comment(line: str) -> bool:
    return line.lstrip(" \t\v\f").startswith("#")


def plain(s: str) -> bool:
    """Whether Python's int()/float() read ``s`` exactly as C's atol()/atof() would."""
    return s.isascii() and "_" not in s


def atol(s: str) -> tuple[int, bool]:
    """C's ``atol``, as trec_eval reads grades; the flag says the text was an exact integer."""
    if plain(s):
        try:
            return int(s), True
        except ValueError:
            pass
    m = ATOL.match(s)
    return (int(m.group(1)), False) if m else (0, False)


def atof(s: str) -> tuple[float, bool]:
    """C's ``atof``, which trec_eval uses for scores; the flag says the text was a plain number."""
    if plain(s):
        try:
            x = float(s)
        except ValueError:
            pass
        else:
            return x, x == x
    m = ATOF.match(s)
    return (float(m.group(1)), False) if m else (0.0, False)


def run_score(s: str) -> float | None:
    """A run score as trec_eval reads it, or None for NaN, which has no place in an order."""
    x, _ = atof(s)
    return None if x != x else x


def count_message(columns: tuple[str, ...], found: int, at_least: bool = False) -> str:
    n = len(columns)
    want = f"at least {n}" if at_least else str(n)
    if found < n:
        return (
            f"expected {want} fields ({' '.join(columns)}), found {found}: "
            f"the {columns[found]} column is missing"
        )
    return f"expected {want} fields ({' '.join(columns)}), found {found}: remove the extra fields"


def missing_span(line: str, offset: int) -> Span:
    """Where a missing trailing column would go: the end of the line's content."""
    end = offset + len(line.rstrip(" \t\v\f"))
    return Span(end, end)


# --- qrels --------------------------------------------------------------------------------------


class QrelsBuilder:
    """Collects judgments per query with block spans and duplicate detection."""

    def __init__(self, fmt: Literal["trec-qrels", "beir-qrels"]) -> None:
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


def bad_grade(grade: str) -> bool:
    """A grade with no leading integer at all: most likely a shifted column, not a typo."""
    return ATOL.match(grade) is None


def splitter(text: str) -> Callable[[str], list[str]]:
    if EXOTIC_WS.search(text) is None:
        return str.split
    return FIELD.findall


def fast_lines(text: str) -> list[str]:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = LINE_BREAK.sub("\n", text)
    return text.split("\n")


# --- sniffing -----------------------------------------------------------------------------------

TrecKind = Literal["trec-qrels", "trec-run", "beir-qrels"]


def _numeric(s: str) -> bool:
    return ATOF.fullmatch(s) is not None


def sniff_trec_kind(text: str) -> TrecKind | None:
    """Tell a TREC qrels, a TREC run and a BEIR qrels TSV apart by their first content line."""
    for _, line in text_lines(text):
        if not line.strip() or is_comment(line):
            continue
        parts = FIELD.findall(line)
        tabs = line.split("\t")
        if len(tabs) == 3 and (not _numeric(tabs[2].strip()) or len(parts) == 3):
            return "beir-qrels"
        if len(parts) >= 6 and _numeric(parts[4]):
            return "trec-run"
        if len(parts) == 4 and ATOL.fullmatch(parts[3]) is not None:
            return "trec-qrels"
        if len(parts) == 3 and _numeric(parts[2]):
            return "beir-qrels"
        return None
    return None


_FIRST_FIELD = re.compile(r"[ \t]*([^ \t\r\n]+)")


def first_fields(text: str, header: tuple[str, ...] = ()) -> list[tuple[str, Span]]:
    """The first field of every line (the query id of a TREC/BEIR line), with its span; a first
    line whose first field is one of ``header`` is a header, not a query."""
    out: list[tuple[str, Span]] = []
    index = LineIndex(text)
    for n in range(index.line_count):
        m = _FIRST_FIELD.match(text, index.line_start(n), index.line_end(n))
        if m is None or (n == 0 and m.group(1).lower() in header):
            continue
        out.append((m.group(1), Span(m.start(1), m.end(1))))
    return out


def ids_without_blanks(*ids: str) -> None:
    """TREC and BEIR fields are separated by whitespace: an id holding some cannot be written."""
    if any(c.isspace() for c in "".join(ids)):
        raise EditRefused("ids with whitespace cannot be written to a TREC/BEIR file")
