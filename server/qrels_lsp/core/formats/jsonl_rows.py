"""JSONL judgments and rankings, one object a line (``table.py``): ``{"query_id": "1",
"doc_id": "d7", "relevance": 2}`` (what ``ir_datasets export DATASET qrels --format jsonl``
writes) or ``{"query_id": "1", "doc_id": "d7", "score": 12.5}`` (``scoreddocs --format jsonl``).
Recognised by content (``content.py``): a first line that is an object with a query and a
document key.
"""

from __future__ import annotations

from ..base.findings import Finding, finding
from ..base.text import Span
from ..model import Qrels, Run
from .format import Format
from .table import header_columns, jsonl_keys, jsonl_rows, qrels_of, run_of

_NO_COLUMNS = "the first object has no query, document and {} key (query_id, doc_id, {})"


def parse_jsonl_qrels(text: str) -> Qrels:
    cols = header_columns(jsonl_keys(text) or [], "qrels")
    if cols is None:
        problem = finding("QR301", Span(0, 0), _NO_COLUMNS.format("grade", "relevance"))
        return Qrels(format="jsonl-qrels", findings=[problem])
    found: list[Finding] = []
    return qrels_of(jsonl_rows(text, found), cols, "jsonl-qrels", found)


def parse_jsonl_run(text: str) -> Run:
    cols = header_columns(jsonl_keys(text) or [], "run")
    if cols is None:
        problem = finding("QR301", Span(0, 0), _NO_COLUMNS.format("score", "score"))
        return Run(format="jsonl-run", findings=[problem])
    found: list[Finding] = []
    return run_of(jsonl_rows(text, found), cols, "jsonl-run", found)


QRELS_FORMAT = Format(
    name="jsonl-qrels", display="JSONL qrels", role="qrels", parse=parse_jsonl_qrels
)
RUN_FORMAT = Format(
    name="jsonl-run", display="JSONL run", role="run", parse=parse_jsonl_run, scored=True
)
