"""The line level of TREC and BEIR files, shared by their readers: lines as LSP counts them,
fields as trec_eval splits them, numbers as C's ``atol``/``atof`` read them, and the messages a
malformed line gets. Each format (trec_qrels, beir_qrels, trec_run) builds on these."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Literal

from ..base.findings import Finding, Related, Severity, declare, finding
from ..base.patterns import ATOF, ATOL, EXOTIC_WS, LINE_BREAK, TREC_FIELD, TREC_FIRST_FIELD
from ..base.text import LineIndex, Span
from ..model import Judgment, Qrels, QrelsFormat, Query
from .format import EditRefused
from .grades import in_range, out_of_range

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
declare(
    "QR304",
    "bom-in-query-id",
    Severity.WARNING,
    "TREC",
    "A byte order mark, which trec_eval reads as part of the first query id.",
)
declare(
    "QR305",
    "lone-carriage-return",
    Severity.WARNING,
    "TREC",
    "A CR alone: a line break to editors, a blank inside the line to trec_eval.",
)
declare(
    "QR306",
    "grade-without-digits",
    Severity.WARNING,
    "TREC qrels",
    "A grade with no digits, which trec_eval reads as 0 (judged, not relevant).",
)


# trec_eval splits a line into fields on C's isspace, and lines at ``\n`` alone: a CR (of CRLF, or
# a lone one) is a blank like a space. Non-ASCII bytes are never blanks (the C locale).
BLANKS = " \t\v\f\r"
FIELD = TREC_FIELD
# Characters str.split() treats as whitespace but trec_eval does not (EXOTIC_WS): their presence
# sends the fast paths to the exact splitter so that they agree with the full parsers. C's
# strtol/strtod (ATOL, ATOF): ASCII digits only (Python's \d and int() also take ``١`` or ``٣``).
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # C's long on the 64-bit systems trec_eval runs on

QRELS_COLUMNS = ("query", "iteration", "document", "grade")
RUN_COLUMNS = ("query", "Q0", "document", "rank", "score", "tag")
BEIR_COLUMNS = ("query-id", "corpus-id", "score")


# --- lines, fields and numbers ------------------------------------------------------------------


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each line, split at the LSP's breaks: ``\\n``, ``\\r\\n``, ``\\r``
    (BEIR TSV and topics files, which Python's readers split so; a leading BOM is skipped)."""
    start = 1 if text.startswith("\ufeff") else 0
    for m in LINE_BREAK.finditer(text, start):
        yield start, text[start : m.start()]
        start = m.end()
    yield start, text[start:]


def trec_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each line as trec_eval splits them: at ``\\n`` only. The CR of a CRLF
    is left out of the content (it is a blank to trec_eval); a lone CR stays inside its line, and
    a BOM stays in the first line (trec_eval reads both as part of the text)."""
    start = 0
    find = text.find
    while True:
        end = find("\n", start)
        if end == -1:
            yield start, text[start:].removesuffix("\r")
            return
        yield start, text[start : end - 1 if end > start and text[end - 1] == "\r" else end]
        start = end + 1


def surprises(offset: int, line: str) -> Iterator[Finding]:
    """What trec_eval reads in a line that an editor does not show: a byte order mark starting
    the file (part of the first query id) and a lone CR (a blank, not a line break)."""
    if offset == 0 and line.startswith("\ufeff"):
        first = FIELD.match(line)
        qid = first.group() if first is not None else "\ufeff"
        yield finding(
            "QR304",
            Span(0, 1),
            f"the file starts with a byte order mark, which trec_eval keeps as part of the first "
            f"query id ({qid!r}, not {qid[1:]!r}), so that query matches no other file's: "
            "save the file as UTF-8 without a BOM",
        )
    cr = line.find("\r")
    if cr != -1:
        yield finding(
            "QR305",
            Span(offset + cr, offset + cr + 1),
            "a lone carriage return: editors break the line here, trec_eval reads it as a blank, "
            "so what follows it is more fields of this line: use a line feed (or CRLF)",
        )


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
    """A comment line of a run (or a BEIR file): ``#`` as its first non-blank character, as
    trec_eval's run reader takes it. Qrels comments are stricter (:mod:`.trec_qrels`)."""
    return line.lstrip(BLANKS).startswith("#")


def is_blank(line: str) -> bool:
    return not line.strip(BLANKS)


NumberKind = Literal["decimal", "hex", "inf", "nan", "prefix", "none"]


def c_number(s: str) -> tuple[float, NumberKind]:
    """C's ``atof`` (``strtod``) of ``s`` and what it read: the whole field as a decimal, a hex
    float or an infinity; a NaN; only a leading number ("prefix"); nothing at all (0.0)."""
    m = ATOF.match(s)
    if m is None:
        return 0.0, "none"
    sign, hexa, dec, inf, _ = m.groups()
    kind: NumberKind
    if hexa is not None:
        x, kind = _from_hex(hexa), "hex"
    elif dec is not None:
        x, kind = float(dec), "decimal"
    elif inf is not None:
        x, kind = float("inf"), "inf"
    else:
        x, kind = float("nan"), "nan"
    if sign == "-":
        x = -x
    if m.end() != len(s) or m.start(1) != 0:
        kind = "prefix"
    return x, kind


def _from_hex(s: str) -> float:
    """``float.fromhex``, which raises where C's strtod gives an infinity (overflow)."""
    try:
        return float.fromhex(s)
    except OverflowError:
        return float("inf")


def atof(s: str) -> tuple[float, bool]:
    """C's ``atof``, which trec_eval uses for scores; the flag says the text was a plain number
    (a decimal or an infinity: what every tool reads alike)."""
    x, kind = c_number(s)
    return x, kind in ("decimal", "inf")


def c_long(s: str) -> tuple[int, bool, bool]:
    """C's ``atol`` (``strtol``) of ``s``: (value, whether the whole field was an integer, whether
    the value was out of ``long``'s range and clamped as strtol clamps it)."""
    m = ATOL.match(s)
    if m is None:
        return 0, False, False
    sign, digits = m.groups()
    exact = m.end() == len(s) and m.start(1) == 0
    digits = digits.lstrip("0")
    if len(digits) > 19:  # past any long (and past int()'s 4,300-digit limit): no int() needed
        return (LONG_MIN if sign == "-" else LONG_MAX), exact, True
    value = -int(digits or "0") if sign == "-" else int(digits or "0")
    clamped = max(LONG_MIN, min(LONG_MAX, value))
    return clamped, exact, clamped != value


def atol(s: str) -> tuple[int, bool]:
    """C's ``atol``, as trec_eval reads grades; the flag says the text was an exact integer."""
    value, exact, _ = c_long(s)
    return value, exact


def run_score(s: str) -> float:
    """A run score as trec_eval reads it (C's ``atof``: NaN included)."""
    return c_number(s)[0]


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
    """Collects judgments per query with block spans and duplicate detection.

    TREC qrels pass their iteration column (``subtopic``): a file that judges some query under
    two values of it is read as diversity qrels (``qid subtopic docid grade``), where a
    document judged once per subtopic is no duplicate; :meth:`finished` keeps the subtopics
    of such a file only (``core/subtopics.py``)."""

    def __init__(self, fmt: QrelsFormat) -> None:
        self._queries: dict[str, Query] = {}  # (the model's, filled as lines are read)
        self.qrels = Qrels(format=fmt, queries=self._queries)
        self._first: dict[tuple[str, str, str | None], Span] = {}
        self._subtopic: dict[str, str | None] = {}  # each query's first iteration
        self._subtopics = False  # some query judged under two

    def add(
        self,
        qid: tuple[str, Span],
        doc: tuple[str, Span],
        grade: tuple[str, Span],
        line: Span,
        subtopic: str | None = None,
    ) -> None:
        value = self._grade(*grade)
        if value is None:  # out of range: left out, as a malformed line is
            return
        q = self._queries.get(qid[0])
        if q is None:
            q = self._queries[qid[0]] = Query(qid=qid[0], span=qid[1], block=line)
            self._subtopic[qid[0]] = subtopic
        else:
            q.block = Span(q.block.start, line.end)
            if subtopic != self._subtopic[qid[0]]:
                self._subtopics = True
        key = (qid[0], doc[0], subtopic)
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
        q.judgments.append(
            Judgment(
                doc_id=doc[0], grade=value, span=doc[1], grade_span=grade[1], subtopic=subtopic
            )
        )

    def finished(self) -> Qrels:
        """The qrels read, with each judgment's subtopic kept only if the file judges per
        subtopic: a file whose iteration column holds one value per query is plain qrels."""
        if not self._subtopics and self._subtopic:
            for q in self._queries.values():
                for j in q.judgments:
                    j.subtopic = None
        return self.qrels

    def _grade(self, text: str, span: Span) -> int | None:
        """The grade as C's ``atol`` reads it, with a finding where that reading surprises;
        None (and QR307) for one out of range (:mod:`.grades`)."""
        value, exact, _clamped = c_long(text)
        if not in_range(value):
            self.qrels.findings.append(out_of_range(span, text, value < 0))
            return None
        if ATOL.match(text) is None:
            self.qrels.findings.append(
                finding(
                    "QR306",
                    span,
                    f"the grade {text!r} holds no digits: trec_eval (C's atol) reads it as 0, "
                    "a judged, non-relevant document; write 0 or the grade meant",
                )
            )
        elif not exact:
            self.qrels.findings.append(
                finding(
                    "QR302",
                    span,
                    f"grade {text!r} is not an integer; trec_eval reads it as {value}",
                )
            )
        return value


def plain(s: str) -> bool:
    """Whether Python's int()/float() read ``s`` as C's atol()/atof() would (if they read it at
    all): ASCII digits only, no control characters that Python strips, no ``1_0``."""
    return s.isascii() and s.isprintable() and "_" not in s


def fast_grade(grade: str) -> int | None:
    """C's atol of a grade, quickly for the usual short integer; None when it is out of range
    (:mod:`.grades`: the judgment is left out)."""
    if len(grade) < 16 and plain(grade):  # (fifteen digits at most: in range)
        try:
            return int(grade)
        except ValueError:
            pass
    value = c_long(grade)[0]
    return value if in_range(value) else None


def bad_grade(grade: str) -> bool:
    """A grade with no leading integer at all: most likely a shifted column, not a typo."""
    return ATOL.match(grade) is None


def splitter(text: str) -> Callable[[str], list[str]]:
    """How the fast paths split a line: str.split() (fast, C) unless the text holds a character
    it takes for whitespace and trec_eval does not."""
    if EXOTIC_WS.search(text) is None:
        return str.split
    return FIELD.findall


def fast_lines(text: str) -> list[str]:
    """The lines of :func:`trec_lines`, without offsets (a CR is left to the field splitter)."""
    return text.split("\n")


# --- sniffing -----------------------------------------------------------------------------------

TrecKind = Literal["trec-qrels", "trec-run", "beir-qrels"]


def _numeric(s: str) -> bool:
    return ATOF.fullmatch(s) is not None


def sniff_trec_kind(text: str) -> TrecKind | None:
    """Tell a TREC qrels, a TREC run and a BEIR qrels TSV apart by their first content line.

    The whitespace fields decide first, as trec_eval splits tabs and spaces alike: a TREC line
    with two tabs among its blanks is still TREC. Three tab-separated columns (a header, or ids
    holding spaces) make BEIR."""
    for _, line in text_lines(text):
        if not line.strip() or is_comment(line):
            continue
        parts = FIELD.findall(line)
        if len(parts) >= 6 and _numeric(parts[4]):
            return "trec-run"
        if len(parts) == 4 and ATOL.fullmatch(parts[3]) is not None:
            return "trec-qrels"
        tabs = line.split("\t")
        if len(tabs) == 3 and (not _numeric(tabs[2].strip()) or len(parts) == 3):
            return "beir-qrels"
        if len(parts) == 3 and _numeric(parts[2]):
            return "beir-qrels"
        return None
    return None


def first_fields(text: str, header: tuple[str, ...] = ()) -> list[tuple[str, Span]]:
    """The first field of every line (the query id of a TREC/BEIR line), with its span; a first
    line whose first field is one of ``header`` is a header, not a query."""
    out: list[tuple[str, Span]] = []
    index = LineIndex(text)
    for n in range(index.line_count):
        m = TREC_FIRST_FIELD.match(text, index.line_start(n), index.line_end(n))
        if m is None or (n == 0 and m.group(1).lower() in header):
            continue
        out.append((m.group(1), Span(m.start(1), m.end(1))))
    return out


def ids_without_blanks(*ids: str) -> None:
    """TREC and BEIR fields are separated by whitespace: an id holding some cannot be written."""
    if any(c.isspace() for c in "".join(ids)):
        raise EditRefused("ids with whitespace cannot be written to a TREC/BEIR file")
