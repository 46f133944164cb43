"""TREC runs: ``qid Q0 docid rank score tag`` lines, each query ranked as trec_eval ranks it.

The ``read_*`` functions are the fast paths for ``score`` on runs of millions of lines: no spans, no
per-line objects, the same values in the same order as the full parser."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..base.caps import MAX_ID
from ..base.findings import Finding, Related, Severity, declare, finding
from ..base.patterns import BLANK_RUN
from ..base.text import Span
from ..metrics import order_by_score, trec_eval_order
from ..model import Ranking, Retrieved, Run
from .format import Format
from .trec_columns import VECTOR_BYTES, ranked_columns
from .trec_lines import (
    BLANKS,
    FIELD,
    RUN_COLUMNS,
    NumberKind,
    atol,
    c_number,
    count_message,
    fast_lines,
    first_fields,
    is_blank,
    is_comment,
    line_fields,
    missing_span,
    plain,
    run_score,
    splitter,
    surprises,
    trec_lines,
)

declare(
    "QR311",
    "score-nan",
    Severity.WARNING,
    "TREC run",
    "A NaN score: trec_eval keeps the line, where it ranks depends on its C library's sort.",
)
declare(
    "QR312",
    "score-hex-float",
    Severity.WARNING,
    "TREC run",
    "A hexadecimal float score, which C reads and Python's float() refuses.",
)
declare(
    "QR204",
    "run-rank-order",
    Severity.WARNING,
    "TREC run",
    "The rank column disagrees with trec_eval's order (score, then docid): a warning where it "
    "contradicts the scores, an info where it only breaks ties otherwise; one of each per run.",
)


# --- runs ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Line:
    """One run line as read, before the query's lines are put in evaluation order."""

    doc: Retrieved
    score: float
    rank_span: Span


def _run_line(line: str, offset: int, run: Run) -> tuple[tuple[str, Span], _Line] | None:
    fields = line_fields(line, offset)
    if len(fields) < 6:
        run.findings.append(
            finding(
                "QR301", missing_span(line, offset), count_message(RUN_COLUMNS, len(fields), True)
            )
        )
        return None
    (qid, qspan), _, (doc, dspan), (rank, rspan), (score_text, sspan), tag = fields[:6]
    score, kind = c_number(score_text)
    problem = _score_problem(score_text, score, kind, sspan)
    if problem is not None:
        run.findings.append(problem)
    run.name, run.name_span = tag  # the last line's, trec_eval's runid
    rank_value, exact = atol(rank)
    retrieved = Retrieved(doc, dspan, score, rank_value if exact else None)
    return (qid, qspan), _Line(retrieved, score, rspan)


def _score_problem(text: str, score: float, kind: NumberKind, span: Span) -> Finding | None:
    """What to say of a score C's atof reads otherwise than a reader would expect."""
    if kind == "nan":
        return finding(
            "QR311",
            span,
            "the score is NaN: trec_eval keeps the line, and as NaN is neither above nor below "
            "any score, where it ranks the document depends on its C library's sort (qrels-lsp "
            "ranks it as glibc's merge sort does); Python tools refuse it or rank it otherwise: "
            "use a number",
        )
    if kind == "hex":
        return finding(
            "QR312",
            span,
            f"the score {text!r} is a hexadecimal float: trec_eval (C's atof) reads it as "
            f"{score!r}, but tools that read scores with Python's float() refuse it: write "
            f"{score!r}",
        )
    if kind in ("prefix", "none"):
        return finding(
            "QR301",
            span,
            f"the score column holds {text!r}, not a number; trec_eval reads it as "
            f"{score!r} and ranks the document accordingly",
        )
    return None


SHOWN_QUERIES = 5
"""Queries a grouped QR204 points at (related places); the message counts them all."""


@dataclass(frozen=True, slots=True)
class _Disorder:
    """Where a query's rank column first disagrees with trec_eval's order."""

    qid: str
    ahead: _Line  # ranked ahead by trec_eval
    line: _Line  # ranked ahead of it by the rank column
    position: int  # where trec_eval evaluates ``line``
    ties_only: bool  # every disagreement of the query is between equal scores


def _disorder(qid: str, ordered: list[_Line]) -> _Disorder | None:
    """The query's first line whose rank column puts it ahead of one trec_eval ranks higher,
    and whether the query's rank column only breaks score ties otherwise (an exporter that
    numbered tied documents in its own order) or contradicts the scores themselves."""
    first: _Disorder | None = None
    prev: _Line | None = None
    for pos, cur in enumerate(ordered, start=1):
        if cur.doc.rank is None:
            continue
        if prev is not None and prev.doc.rank is not None and cur.doc.rank < prev.doc.rank:
            tie = cur.score == prev.score
            if first is None or (first.ties_only and not tie):
                first = _Disorder(qid, prev, cur, pos, tie)
        prev = cur
    return first


def _rank_order_findings(disorders: list[_Disorder]) -> list[Finding]:
    """One QR204 per kind for the whole run, at its first query, counting the others: a run
    whose exporter numbered ties its own way would otherwise get one warning per query."""
    out = []
    for ties_only in (False, True):
        group = [d for d in disorders if d.ties_only == ties_only]
        if not group:
            continue
        d = group[0]
        what = (
            "breaks score ties otherwise than trec_eval, which orders equal scores by document "
            "id (descending)"
            if ties_only
            else "contradicts the scores: trec_eval ignores the rank column and sorts by score "
            "(descending), then document id (descending)"
        )
        n = len(group)
        message = (
            f"The rank column {what}, in {n} quer{'y' if n == 1 else 'ies'} of this run. "
            f"First: query {d.qid}, rank {d.line.doc.rank} of {d.line.doc.doc_id} is evaluated "
            f"at position {d.position}, after {d.ahead.doc.doc_id} (rank {d.ahead.doc.rank})"
        )
        related = [Related(d.ahead.rank_span, f"{d.ahead.doc.doc_id}, ranked ahead by trec_eval")]
        related += [
            Related(o.line.rank_span, f"query {o.qid}: {o.line.doc.doc_id}")
            for o in group[1:SHOWN_QUERIES]
        ]
        severity = Severity.INFO if ties_only else None
        out.append(
            finding("QR204", d.line.rank_span, message, related=tuple(related), severity=severity)
        )
    return out


def parse_trec_run(text: str) -> Run:
    """``qid Q0 docid rank score tag`` lines, each query's documents in trec_eval's order."""
    run = Run(format="trec-run")
    per_query: dict[str, list[_Line]] = {}
    first: dict[tuple[str, str], Span] = {}
    for offset, line in trec_lines(text):
        run.findings.extend(surprises(offset, line))
        if is_blank(line) or is_comment(line):
            continue
        parsed = _run_line(line, offset, run)
        if parsed is None:
            continue
        (qid, qspan), rl = parsed
        ranking = run.rankings.get(qid)
        line_span = Span(offset, offset + len(line.rstrip(BLANKS)))
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
    disorders = []
    for qid, lines in per_query.items():
        by_id = {rl.doc.doc_id: rl for rl in lines}
        ordered = [by_id[d] for d in trec_eval_order((rl.doc.doc_id, rl.score) for rl in lines)]
        run.rankings[qid].docs = [rl.doc for rl in ordered]
        d = _disorder(qid, ordered)
        if d is not None:
            disorders.append(d)
    run.findings.extend(_rank_order_findings(disorders))
    return run


def read_trec_run_ids(text: str) -> dict[str, list[str]]:
    """qid -> doc ids in evaluation order, fast, agreeing with :func:`parse_trec_run`: a big
    plain run by columns (:mod:`.trec_columns`), else line by line."""
    if len(text) >= VECTOR_BYTES:
        ranked = ranked_columns(text)
        if ranked is not None:
            return ranked
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
    """The common case in one tight loop: every line exactly six plain fields.

    Raises ValueError on anything else (a short or long line, a blank line, a score float() does
    not read) so that the caller falls back to the lenient reader: never a wrong answer,
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
    return scores


def _read_lenient_run(text: str) -> dict[str, dict[str, float]]:
    """Every line trec_eval would read, with its C number parsing (NaN kept, as trec_eval keeps
    it): the exact, slower path."""
    split = splitter(text)
    scores: dict[str, dict[str, float]] = {}
    for line in fast_lines(text):
        parts = split(line)
        if len(parts) < 6 or parts[0].startswith("#"):
            continue
        s = parts[4]
        try:
            score = float(s) if plain(s) else run_score(s)
        except ValueError:
            score = run_score(s)
        q = scores.get(parts[0])
        if q is None:
            q = scores[parts[0]] = {}
        if parts[2] not in q:
            q[parts[2]] = score
    return scores


def trec_run_tag(text: str) -> str | None:
    """The tag column of the last line read as a result (six fields or more, not a comment),
    split as trec_eval splits it: what trec_eval 10 prints as runid (it keeps the tag of every
    line it reads over the last one's). Read from the end: a million-line run is not split."""
    end = len(text)
    while end >= 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if not is_comment(line):
            fields: list[str] = FIELD.findall(line)
            if len(fields) >= 6:
                return fields[5] if len(fields[5]) <= MAX_ID else None
        end = start - 1
    return None


def run_tag(name: str, default: str = "run") -> str:
    """A name as a TREC run's tag column: one field (whitespace becomes ``_``)."""
    return BLANK_RUN.sub("_", name) or default


def run_text(
    rankings: Mapping[str, Sequence[str]], scores: Mapping[str, Sequence[float]], tag: str
) -> str:
    """A whole run's TREC lines in trec_eval's order: queries by id (as bytes), each ranking in
    the order given with its scores (a fused run's: ``fuse -o`` and the API's ``to_trec``)."""
    from ..metrics.order import c_bytes

    return "".join(
        line
        for qid in sorted(rankings, key=c_bytes)
        for line in run_lines(qid, zip(rankings[qid], scores[qid], strict=True), tag)
    )


def run_lines(qid: str, ranked: Iterable[tuple[str, float]], tag: str) -> Iterator[str]:
    """One query's TREC run lines, ranks 1, 2, 3... in the order given, each score written to
    the last bit (``repr``), so that trec_eval, ranx and `qrels-lsp score` read back exactly the
    scores written: every TREC run qrels-lsp writes (convert, fuse, bm25) is written here."""
    for rank, (doc, score) in enumerate(ranked, start=1):
        yield f"{qid} Q0 {doc} {rank} {score!r} {tag}\n"


def trec_run_text(run: Run, name: str) -> str:
    """``run`` as TREC run lines tagged ``name``; a run without scores gets descending ones, so
    trec_eval ranks its documents as they were listed."""
    tag = run_tag(name)
    lines: list[str] = []
    for qid, ranking in run.rankings.items():
        n = len(ranking.docs)
        scored = (
            (d.doc_id, d.score if d.score is not None else float(n - rank))
            for rank, d in enumerate(ranking.docs)
        )
        lines.extend(run_lines(qid, scored, tag))
    return "".join(lines)


FORMAT = Format(
    name="trec-run",
    display="TREC run",
    role="run",
    parse=parse_trec_run,
    query_ids=first_fields,
    read_rankings=read_trec_run_ids,
    run_tag=trec_run_tag,
    scored=True,
    lines=True,
)
