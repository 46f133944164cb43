"""TREC qrels: ``qid iter docid grade`` lines, read as trec_eval reads them."""

from __future__ import annotations

from ..base.edits import append_line
from ..base.findings import TextEdit, finding
from ..base.text import Span
from ..model import Qrels
from .format import Format
from .trec_lines import (
    QRELS_COLUMNS,
    QrelsBuilder,
    atol,
    bad_grade,
    count_message,
    fast_lines,
    first_fields,
    ids_without_blanks,
    is_comment,
    line_fields,
    missing_span,
    plain,
    splitter,
    text_lines,
)


def parse_trec_qrels(text: str) -> Qrels:
    """``qid iter docid grade`` lines; ``#`` lines are comments, blank lines are skipped."""
    b = QrelsBuilder("trec-qrels")
    for offset, line in text_lines(text):
        if not line.strip(" \t\v\f") or is_comment(line):
            continue
        fields = line_fields(line, offset)
        span = Span(offset, offset + len(line))
        if len(fields) < 4:
            b.qrels.findings.append(
                finding(
                    "QR301", missing_span(line, offset), count_message(QRELS_COLUMNS, len(fields))
                )
            )
            continue
        if len(fields) > 4:
            extra = Span(fields[4][1].start, fields[-1][1].end)
            b.qrels.findings.append(
                finding("QR301", extra, count_message(QRELS_COLUMNS, len(fields)))
            )
        if bad_grade(fields[3][0]):
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


def read_trec_qrels_grades(text: str) -> dict[str, dict[str, int]]:
    """qid -> doc id -> grade, fast, with exactly :func:`parse_trec_qrels`'s values."""
    split = splitter(text)
    out: dict[str, dict[str, int]] = {}
    for line in fast_lines(text):
        parts = split(line)
        if len(parts) < 4 or parts[0].startswith("#"):
            continue
        grade = parts[3]
        try:
            value = int(grade) if plain(grade) else None
        except ValueError:
            value = None
        if value is None:
            if bad_grade(grade):
                continue
            value = atol(grade)[0]
        q = out.get(parts[0])
        if q is None:
            q = out[parts[0]] = {}
        if parts[2] not in q:
            q[parts[2]] = value
    return out


def add_judgment(text: str, qid: str, doc: str, grade: int) -> list[TextEdit]:
    """Append ``qid 0 doc grade`` as a new line."""
    ids_without_blanks(qid, doc)
    return append_line(text, f"{qid} 0 {doc} {grade}")


def trec_qrels_text(qrels: Qrels) -> str:
    """``qrels`` as TREC qrels lines (a query without judgments has no line)."""
    lines = []
    for qid, query in qrels.queries.items():
        for doc, grade in query.grades().items():
            lines.append(f"{qid} 0 {doc} {grade}")
    return "\n".join(lines) + ("\n" if lines else "")


FORMAT = Format(
    name="trec-qrels",
    display="TREC qrels",
    role="qrels",
    parse=parse_trec_qrels,
    query_ids=first_fields,
    add_judgment=add_judgment,
    read_grades=read_trec_qrels_grades,
)
