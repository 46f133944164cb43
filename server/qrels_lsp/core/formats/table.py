"""Tables with named columns: a TSV whose first line names its columns (``query_id<TAB>doc_id
<TAB>relevance``, as pandas and spreadsheets write them), and JSONL with one object per judgment
or ranked document (``{"query_id": "1", "doc_id": "d7", "relevance": 2}``: what ``ir_datasets
export DATASET qrels --format jsonl`` and ``scoreddocs --format jsonl`` write). Columns are found
by name (``columns.py``), in any order, other columns ignored.

Judgments are read as the TREC readers read them (``QrelsBuilder``: the first judgment of a
document counts, a grade as C's ``atol`` reads it); a ranking is ranked as trec_eval ranks a run,
score descending then document id descending, and a document twice for a query counts once, at
its first line (QR203).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from ..base.findings import Finding, finding
from ..base.text import Span
from ..metrics import order_by_score
from ..model import Qrels, Ranking, Retrieved, Run
from . import columns as names
from .trec_lines import QrelsBuilder, c_number, tab_fields, text_lines

Field = tuple[str, Span]
Row = tuple[dict[str, Field], Span]  # the row's values by column name, and its line


@dataclass(frozen=True, slots=True)
class Columns:
    """Which columns hold the query, the document and the grade or score."""

    query: str
    doc: str
    value: str


def header_columns(fields: list[str], role: str) -> Columns | None:
    """The columns a header names for ``role`` ("qrels": a grade; "run": a score)."""
    query, doc = names.first_of(fields, names.QUERY), names.first_of(fields, names.DOC)
    value = names.first_of(fields, names.GRADE if role == "qrels" else names.SCORE)
    if query is None or doc is None or value is None or len({query, doc, value}) < 3:
        return None
    return Columns(query, doc, value)


def tsv_header(text: str) -> list[str] | None:
    """The column names of a TSV's first line, when it is a header (no field is a number)."""
    for _offset, line in text_lines(text):
        if not line.strip():
            continue
        if "\t" not in line:
            return None
        fields = [f.strip() for f in line.split("\t")]
        return (
            None if any(not f or c_number(f)[1] in ("decimal", "hex") for f in fields) else fields
        )
    return None


def tsv_rows(text: str) -> Iterator[Row]:
    """Each line after the header, its fields by the header's names."""
    header: list[str] | None = None
    for offset, line in text_lines(text):
        if not line.strip():
            continue
        fields = tab_fields(line, offset)
        if header is None:
            header = [f.strip() for f, _ in fields]
            continue
        yield dict(zip(header, fields, strict=False)), Span(offset, offset + len(line))


def jsonl_keys(text: str) -> list[str] | None:
    """The keys of a JSONL file's first object, when its first line is one."""
    for _offset, line in text_lines(text):
        if not line.strip():
            continue
        obj = _object(line)
        return list(obj) if obj is not None else None
    return None


def _object(line: str) -> dict[str, object] | None:
    if not line.lstrip().startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def jsonl_rows(text: str, found: list[Finding]) -> Iterator[Row]:
    """Each line's object, its values as text with where they are written; a line that is not
    an object is reported (QR301) in ``found``."""
    for offset, line in text_lines(text):
        if not line.strip():
            continue
        obj = _object(line)
        span = Span(offset, offset + len(line))
        if obj is None:
            found.append(
                finding("QR301", span, "not a JSON object: one judgment or document a line")
            )
            continue
        yield {k: (_text(v), _where(line, offset, k, v)) for k, v in obj.items()}, span


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _where(line: str, offset: int, key: str, value: object) -> Span:
    """Where ``value`` is written (after its key), or the whole line when it cannot be found."""
    written = json.dumps(value, ensure_ascii=False)
    at = line.find(written, max(line.find(json.dumps(key, ensure_ascii=False)), 0))
    if at < 0:
        return Span(offset, offset + len(line))
    quoted = isinstance(value, str)
    return Span(offset + at + quoted, offset + at + len(written) - quoted)


def qrels_of(rows: Iterator[Row], cols: Columns, fmt: str, findings: list[Finding]) -> Qrels:
    """The judgments of ``rows``; a row without one of the columns is reported (QR301)."""
    b = QrelsBuilder(fmt)
    for row, span in rows:
        got = _fields(row, span, cols, b.qrels.findings)
        if got is not None:
            b.add(got[0], got[1], got[2], span)
    b.qrels.findings[:0] = findings
    return b.qrels


def run_of(rows: Iterator[Row], cols: Columns, fmt: str, findings: list[Finding]) -> Run:
    """The rankings of ``rows``, each in trec_eval's order."""
    run = Run(format=fmt)
    docs: dict[str, dict[str, Retrieved]] = {}
    for row, span in rows:
        got = _fields(row, span, cols, run.findings)
        if got is None:
            continue
        (qid, qspan), (doc, dspan), (score_text, sspan) = got
        score, kind = c_number(score_text)
        if kind not in ("decimal", "hex", "inf"):
            run.findings.append(
                finding("QR301", sspan, f"the score {score_text!r} is not a number")
            )
            continue
        ranking = run.rankings.get(qid)
        if ranking is None:
            ranking = run.rankings[qid] = Ranking(qid, qspan, span)
            docs[qid] = {}
        ranking.block = Span(ranking.block.start, span.end)
        if doc in docs[qid]:
            run.findings.append(
                finding("QR203", dspan, f"{doc} is ranked twice for {qid}: the first counts")
            )
            continue
        docs[qid][doc] = Retrieved(doc, dspan, score)
    run.findings[:0] = findings  # (filled as the rows were read)
    for qid, ranking in run.rankings.items():
        scored = docs[qid]
        ranking.docs = [
            scored[d] for d in order_by_score({d: r.score or 0.0 for d, r in scored.items()})
        ]
    return run


def _fields(
    row: dict[str, Field], span: Span, cols: Columns, found: list[Finding]
) -> tuple[Field, Field, Field] | None:
    out = []
    for column in (cols.query, cols.doc, cols.value):
        value = row.get(column)
        if value is None or not value[0].strip():
            found.append(finding("QR301", span, f"the {column} column is missing or empty"))
            return None
        out.append(value)
    return out[0], out[1], out[2]
