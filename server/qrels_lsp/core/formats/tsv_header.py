"""TSV with a header: judgments or a ranking in columns the first line names (``table.py``).

``query_id<TAB>doc_id<TAB>relevance`` (judgments: a grade column, ``relevance``, ``grade``,
``label``...) or ``qid<TAB>docno<TAB>score`` (a ranking: a score column), in any order and with
other columns beside them, as pandas' ``to_csv(sep="\\t")`` and spreadsheets write them.
Recognised by content (``content.py``): a first line of names, no number among them.
"""

from __future__ import annotations

from ..base.findings import finding
from ..base.text import Span
from ..model import Qrels, Run
from . import columns as names
from .format import Format
from .table import header_columns, qrels_of, run_of, tsv_header, tsv_rows

EXPECTED = "a header naming a query column ({q}), a document column ({d}) and {v}"


def _missing(role: str) -> str:
    value = f"a grade column ({', '.join(names.GRADE)})" if role == "qrels" else "a score column"
    return EXPECTED.format(q=", ".join(names.QUERY[:3]), d=", ".join(names.DOC[:3]), v=value)


def parse_tsv_qrels(text: str) -> Qrels:
    cols = header_columns(tsv_header(text) or [], "qrels")
    if cols is None:
        return Qrels(format="tsv-qrels", findings=[finding("QR301", Span(0, 0), _missing("qrels"))])
    return qrels_of(tsv_rows(text), cols, "tsv-qrels", [])


def parse_tsv_run(text: str) -> Run:
    cols = header_columns(tsv_header(text) or [], "run")
    if cols is None:
        return Run(format="tsv-run", findings=[finding("QR301", Span(0, 0), _missing("run"))])
    return run_of(tsv_rows(text), cols, "tsv-run", [])


QRELS_FORMAT = Format(
    name="tsv-qrels", display="TSV qrels with a header", role="qrels", parse=parse_tsv_qrels
)
RUN_FORMAT = Format(
    name="tsv-run", display="TSV run with a header", role="run", parse=parse_tsv_run, scored=True
)
