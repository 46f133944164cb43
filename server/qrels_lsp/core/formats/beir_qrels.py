"""BEIR qrels: ``query-id<TAB>corpus-id<TAB>score`` TSV with a header line."""

from __future__ import annotations

from ..base.edits import append_line
from ..base.findings import Finding, TextEdit, finding
from ..base.text import Span
from ..model import Qrels
from .format import Format
from .trec_lines import (
    BEIR_COLUMNS,
    QrelsBuilder,
    bad_grade,
    count_message,
    first_fields,
    ids_without_blanks,
    is_comment,
    line_fields,
    missing_span,
    tab_fields,
    text_lines,
)


def _beir_fields(line: str, offset: int) -> list[tuple[str, Span]]:
    return tab_fields(line, offset) if "\t" in line else line_fields(line, offset)


def _beir_problem(line: str, offset: int, fields: list[tuple[str, Span]]) -> Finding | None:
    """What keeps a BEIR line from being read; extra fields are reported by the caller."""
    if len(fields) < 3:
        return finding(
            "QR301", missing_span(line, offset), count_message(BEIR_COLUMNS, len(fields))
        )
    for i, (value, span) in enumerate(fields[:3]):
        if not value:
            return finding("QR301", span, f"the {BEIR_COLUMNS[i]} column is empty")
    if bad_grade(fields[2][0]):
        return finding(
            "QR301",
            fields[2][1],
            f"the score column holds {fields[2][0]!r}, not a number: "
            "expected query-id corpus-id score",
        )
    return None


def parse_beir_qrels(text: str) -> Qrels:
    """BEIR's ``query-id<TAB>corpus-id<TAB>score`` TSV; a header line is recognised and skipped."""
    b = QrelsBuilder("beir-qrels")
    first = True
    for offset, line in text_lines(text):
        if not line.strip(" \t\v\f") or is_comment(line):
            continue
        fields = _beir_fields(line, offset)
        was_first, first = first, False
        if was_first and len(fields) == 3 and bad_grade(fields[2][0]):
            continue  # the header
        problem = _beir_problem(line, offset, fields)
        if problem is not None:
            b.qrels.findings.append(problem)
            continue
        if len(fields) > 3:
            extra = Span(fields[3][1].start, fields[-1][1].end)
            b.qrels.findings.append(
                finding("QR301", extra, count_message(BEIR_COLUMNS, len(fields)))
            )
        b.add(fields[0], fields[1], fields[2], Span(offset, offset + len(line)))
    return b.qrels


HEADER = "query-id\tcorpus-id\tscore"


def beir_qrels_text(qrels: Qrels) -> str:
    """``qrels`` as BEIR's TSV, header first (a query without judgments has no line): what
    ``qrels/<split>.tsv`` of a BEIR dataset holds, so a golden set goes back where it came from."""
    lines = [HEADER]
    for qid, query in qrels.queries.items():
        lines += [f"{qid}\t{doc}\t{grade}" for doc, grade in query.grades().items()]
    return "\n".join(lines) + "\n"


def add_judgment(
    text: str, qid: str, doc: str, grade: int, block: Span | None = None
) -> list[TextEdit]:
    """Append ``qid<TAB>doc<TAB>grade`` as a new line. (``block`` is for formats with entries: a line is appended)."""
    ids_without_blanks(qid, doc)
    return append_line(text, f"{qid}\t{doc}\t{grade}")


def _query_ids(text: str) -> list[tuple[str, Span]]:
    return first_fields(text, header=("query-id", "query_id", "qid"))


FORMAT = Format(
    name="beir-qrels",
    display="BEIR qrels (TSV)",
    role="qrels",
    parse=parse_beir_qrels,
    query_ids=_query_ids,
    add_judgment=add_judgment,
)
