"""TREC qrels: ``qid iter docid grade`` lines, read as trec_eval reads them."""

from __future__ import annotations

from ..base.edits import append_line
from ..base.findings import Finding, Severity, TextEdit, declare, finding
from ..base.text import Span
from ..model import Qrels
from ..subtopics import subtopics_of
from .format import Format
from .trec_lines import (
    BLANKS,
    QRELS_COLUMNS,
    QrelsBuilder,
    count_message,
    fast_grade,
    fast_lines,
    first_fields,
    ids_without_blanks,
    is_blank,
    line_fields,
    missing_span,
    splitter,
    surprises,
    trec_lines,
)

declare(
    "QR308",
    "comment-read-as-data",
    Severity.WARNING,
    "TREC qrels",
    "A comment trec_eval 10 reads as a judgment line: indented, or the second in a row.",
)
declare(
    "QR309",
    "comment-ends-qrels",
    Severity.WARNING,
    "TREC qrels",
    "A comment as the last line, on which trec_eval 10 crashes.",
)
declare(
    "QR310",
    "blank-line-in-qrels",
    Severity.WARNING,
    "TREC qrels",
    "A blank line, for which trec_eval refuses a qrels file.",
)


def parse_trec_qrels(text: str) -> Qrels:
    """``qid iter docid grade`` lines as trec_eval 10 reads them: fields split at blanks (spaces,
    tabs, CRs), ``#`` at the very start of a line for a comment, grades by C's ``atol``. Where
    trec_eval refuses the file or crashes (a blank line, a comment it reads as data, a comment
    last, a line of more than four fields), the line is skipped and a finding says what
    trec_eval does."""
    b = QrelsBuilder("trec-qrels")
    found = b.qrels.findings
    after_comment = False
    for offset, line in trec_lines(text):
        found.extend(surprises(offset, line))
        if line.startswith("#"):
            found.extend(_comment_trouble(text, offset, line, after_comment))
            after_comment = True
            continue
        after_comment = False
        if is_blank(line):
            if offset < len(text):  # (the empty piece after the final line break is no line)
                found.append(_blank_line(offset, line))
            continue
        fields = line_fields(line, offset)
        if fields[0][0].startswith("#"):
            found.append(_indented_comment(fields))
            if len(fields) != 4:
                continue  # read as the comment it was meant to be
        if len(fields) < 4:
            found.append(
                finding(
                    "QR301", missing_span(line, offset), count_message(QRELS_COLUMNS, len(fields))
                )
            )
            continue
        if len(fields) > 4:
            extra = Span(fields[4][1].start, fields[-1][1].end)
            message = count_message(QRELS_COLUMNS, len(fields))
            found.append(finding("QR301", extra, message + _REFUSED))
            continue
        span = Span(offset, offset + len(line.rstrip(BLANKS)))
        b.add(fields[0], fields[2], fields[3], span, fields[1][0])
    return b.finished()


_REFUSED = (
    "; trec_eval refuses the file (Malformed line), and qrels-lsp leaves the line out of the "
    "scores rather than guess which judgment it meant"
)


def _comment_trouble(text: str, offset: int, line: str, after_comment: bool) -> list[Finding]:
    """trec_eval 10 skips one comment line, then parses the next line as a judgment: a second
    comment in a row is read as data, and a comment with nothing after it makes it read past its
    buffer (a segmentation fault). qrels-lsp skips the comment and says so."""
    span = Span(offset, offset + 1)
    if after_comment:
        return [
            finding(
                "QR308",
                span,
                "a second comment line in a row: trec_eval 10 skips one comment line at a time "
                "and reads this one as a judgment (and refuses the file unless it has exactly "
                "four fields); qrels-lsp skips it: keep one comment line between judgments, or "
                "join them",
            )
        ]
    end = text.find("\n", offset)
    if end == -1 or end + 1 == len(text):
        return [
            finding(
                "QR309",
                span,
                "a comment as the last line: trec_eval 10 reads past the end of the file after "
                "it and crashes (segmentation fault); qrels-lsp skips it: move it up or remove it",
            )
        ]
    return []


def _blank_line(offset: int, line: str) -> Finding:
    return finding(
        "QR310",
        Span(offset, offset + len(line)),
        "a blank line: trec_eval reads every qrels line as a judgment and refuses the file "
        "(Malformed line); qrels-lsp skips it: remove it",
    )


def _indented_comment(fields: list[tuple[str, Span]]) -> Finding:
    """``#`` after blanks is no comment to trec_eval 10: it is a query id."""
    if len(fields) == 4:
        what = f"reads it as a judgment of query {fields[0][0]!r}, and so does qrels-lsp"
    else:
        what = "reads it as data and refuses the file (Malformed line); qrels-lsp skips it"
    return finding(
        "QR308",
        fields[0][1],
        f"a comment after blanks: trec_eval 10 takes '#' as a comment only at the very start of "
        f"a line, so it {what}: remove the blanks before '#'",
    )


def read_trec_qrels_grades(text: str) -> dict[str, dict[str, int]]:
    """qid -> doc id -> grade, fast, with exactly :func:`parse_trec_qrels`'s values (diversity
    qrels, which judge a query under two subtopics, are read by it)."""
    split = splitter(text)
    out: dict[str, dict[str, int]] = {}
    subtopic: dict[str, str] = {}  # each query's first iteration
    for line in fast_lines(text):
        parts = split(line)
        if len(parts) != 4 or line.startswith("#"):  # (an indented comment of four: a line)
            continue
        grade = fast_grade(parts[3])
        if grade is None:
            continue
        q = out.get(parts[0])
        if q is None:
            q = out[parts[0]] = {}
            subtopic[parts[0]] = parts[1]
        elif parts[1] != subtopic[parts[0]]:
            return parse_trec_qrels(text).grades()
        if parts[2] not in q:
            q[parts[2]] = grade
    return out


def add_judgment(
    text: str, qid: str, doc: str, grade: int, block: Span | None = None
) -> list[TextEdit]:
    """Append ``qid 0 doc grade`` as a new line. (``block`` is for formats with entries: a line is appended)."""
    ids_without_blanks(qid, doc)
    return append_line(text, f"{qid} 0 {doc} {grade}")


def trec_qrels_text(qrels: Qrels) -> str:
    """``qrels`` as TREC qrels lines (a query without judgments has no line); judged per
    subtopic, a line per subtopic, the subtopic in the iteration column."""
    lines = []
    for qid, query in qrels.queries.items():
        grades = query.grades()
        by = subtopics_of(grades)
        if by is not None:
            lines += [f"{qid} {s} {doc} {g}" for doc, per in by.items() for s, g in per.items()]
            continue
        for doc, grade in grades.items():
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
    lines=True,
)
