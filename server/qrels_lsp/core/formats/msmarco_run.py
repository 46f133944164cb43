"""MS MARCO TSV runs: ``qid<TAB>docid<TAB>rank`` lines, ranked by the rank column.

There is no score: the rank column is the order. Each query's documents are evaluated by rank
ascending; two documents given the same rank are ordered by document id descending (what trec_eval
does with the run converted to TREC, scores equal), and said (QR316); a gap in the ranks (1, 2, 5)
closes up, as trec_eval ignores rank numbers. Columns after the third (a score some tools add) are
ignored. A document twice in one query's ranking: the first line counts (QR203). A first line
whose rank is not a number is a header and skipped.
"""

from __future__ import annotations

from ..base.findings import Related, Severity, declare, finding
from ..base.text import Span
from ..metrics import order_by_score
from ..model import Ranking, Retrieved, Run
from .format import Format
from .trec_lines import (
    FIELD,
    atol,
    fast_lines,
    first_fields,
    is_comment,
    line_fields,
    missing_span,
    tab_fields,
    text_lines,
)

QR316 = declare(
    "QR316",
    "run-rank-tie",
    Severity.WARNING,
    "MS MARCO run",
    "Two documents with the same rank for one query: they are ordered by document id.",
)

COLUMNS = ("query", "document", "rank")


def _fields(line: str, offset: int) -> list[tuple[str, Span]]:
    return tab_fields(line, offset) if "\t" in line else line_fields(line, offset)


def _plain_fields(line: str) -> list[str]:
    """:func:`_fields` without spans (the fast reader's): the same strings."""
    return [p.strip(" ") for p in line.split("\t")] if "\t" in line else FIELD.findall(line)


def parse_msmarco_run(text: str) -> Run:
    """``qid<TAB>docid<TAB>rank`` lines, each query's documents by rank (ties: doc id descending)."""
    run = Run(format="msmarco-run")
    ranks: dict[str, dict[str, int]] = {}
    docs: dict[str, dict[str, Retrieved]] = {}
    rank_spans: dict[tuple[str, int], tuple[str, Span]] = {}
    first = True
    for offset, line in text_lines(text):
        if not line.strip(" \t\v\f") or is_comment(line):
            continue
        was_first, first = first, False
        fields = _fields(line, offset)
        if len(fields) < 3 or not fields[0][0] or not fields[1][0]:
            missing = len(fields) if len(fields) < 3 else (0 if not fields[0][0] else 1)
            run.findings.append(
                finding(
                    "QR301",
                    missing_span(line, offset),
                    f"expected {' '.join(COLUMNS)} separated by tabs: the {COLUMNS[missing]} "
                    "column is missing",
                )
            )
            continue
        (qid, qspan), (doc, dspan), (rank_text, rspan) = fields[:3]
        rank, exact = atol(rank_text)
        if not exact:
            if not was_first:  # a first line without a rank is a header
                run.findings.append(
                    finding("QR301", rspan, f"the rank column holds {rank_text!r}, not an integer")
                )
            continue
        line_span = Span(offset, offset + len(line))
        ranking = run.rankings.get(qid)
        if ranking is None:
            ranking = run.rankings[qid] = Ranking(qid=qid, span=qspan, block=line_span)
            ranks[qid], docs[qid] = {}, {}
        else:
            ranking.block = Span(ranking.block.start, line_span.end)
        if doc in docs[qid]:
            run.findings.append(
                finding(
                    "QR203",
                    dspan,
                    f"document {doc} is ranked twice for query {qid}; the first line counts: "
                    "remove one",
                    related=(Related(docs[qid][doc].span, "first ranked here"),),
                )
            )
            continue
        tie = rank_spans.get((qid, rank))
        if tie is not None:
            run.findings.append(
                finding(
                    QR316,
                    rspan,
                    f"{doc} and {tie[0]} both have rank {rank} for query {qid}: they are ordered "
                    "by document id, descending (as trec_eval orders equal scores); give each "
                    "document its own rank",
                    related=(Related(tie[1], f"{tie[0]} has rank {rank} too"),),
                )
            )
        else:
            rank_spans[(qid, rank)] = (doc, rspan)
        docs[qid][doc] = Retrieved(doc, dspan, rank=rank)
        ranks[qid][doc] = rank
    for qid, ranking in run.rankings.items():
        ranking.docs = [docs[qid][d] for d in _by_rank(ranks[qid])]
    return run


def _by_rank(ranks: dict[str, int]) -> list[str]:
    """Rank ascending, then doc id descending: trec_eval's order with the rank as minus a score."""
    return order_by_score({d: -r for d, r in ranks.items()})


def read_msmarco_run(text: str) -> dict[str, list[str]]:
    """qid -> doc ids in evaluation order, without spans, agreeing with :func:`parse_msmarco_run`."""
    ranks: dict[str, dict[str, int]] = {}
    for line in fast_lines(text):
        if not line.strip(" \t\v\f") or is_comment(line):
            continue
        parts = _plain_fields(line)
        if len(parts) < 3 or not parts[0] or not parts[1]:
            continue
        rank, exact = atol(parts[2])
        if not exact:
            continue
        q = ranks.get(parts[0])
        if q is None:
            q = ranks[parts[0]] = {}
        if parts[1] not in q:
            q[parts[1]] = rank
    return {qid: _by_rank(q) for qid, q in ranks.items()}


def _query_ids(text: str) -> list[tuple[str, Span]]:
    return first_fields(text, header=("qid", "query_id", "query-id", "query"))


FORMAT = Format(
    name="msmarco-run",
    display="MS MARCO run (TSV)",
    role="run",
    parse=parse_msmarco_run,
    query_ids=_query_ids,
    read_rankings=read_msmarco_run,
    scored=False,
    lines=True,
)
