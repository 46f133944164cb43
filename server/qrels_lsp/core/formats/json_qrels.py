"""JSON qrels, as ranx and pytrec_eval write and read them: ``{"q1": {"d1": 1, "d2": 0}, ...}``.

Grades are integers. A number with a fraction is read as trec_eval reads a grade (truncated:
``2.7`` is 2) and reported (QR302); NaN and infinities are not grades (QR314). ``read_json_grades``
is the fast path for scoring (``json.loads``); see ``json_nested.py`` for why there are two readers.
Judging a document from a run (the editor's action) inserts one member, keeping the rest as it is.
"""

from __future__ import annotations

import json
import math

from ..base.findings import Finding, TextEdit, finding
from ..base.text import Span
from ..model import Judgment, Qrels, Query
from .format import EditRefused, Format
from .grades import in_range, out_of_range
from .json_nested import QR314, Entry, WholeReads, read_nested, scan
from .json_run import json_id_text


def _grade(entry: Entry, qid: str, findings: list[Finding]) -> int | None:
    value = entry.value
    if value != value or entry.literal.lstrip("-").startswith("I"):  # NaN, Infinity
        findings.append(
            finding(
                QR314,
                entry.value_span,
                f"the grade of {entry.key} for query {qid} is {entry.literal}, not a grade: "
                "use an integer (the judgment is left out)",
            )
        )
        return None
    # (a number past a float, 1e400 or a 4,301-digit integer, reads as an infinity: too large)
    grade = value if type(value) is int else None if math.isinf(value) else int(value)
    if grade is None or not in_range(grade):
        findings.append(out_of_range(entry.value_span, entry.literal, entry.literal[0] == "-"))
        return None
    if type(value) is not int:
        findings.append(
            finding(
                "QR302",
                entry.value_span,
                f"grade {entry.literal} is not an integer; it is read as {grade}, as trec_eval "
                "reads a grade: write an integer",
            )
        )
    return grade


def parse_json_qrels(text: str) -> Qrels:
    """A JSON qrels file with spans."""
    scanned = scan(text, "qrels", "grade")
    queries: dict[str, Query] = {}
    qrels = Qrels(format="json-qrels", queries=queries, findings=scanned.findings)
    for qid, group in scanned.groups.items():
        query = Query(qid=qid, span=group.span, block=group.block)
        for entry in group.entries.values():
            grade = _grade(entry, qid, qrels.findings)
            if grade is not None:
                query.judgments.append(Judgment(entry.key, grade, entry.span, entry.value_span))
        queries[qid] = query
    return qrels


def _plain_grades(text: str) -> dict[str, dict[str, int]] | None:
    """``json.loads(text)`` when it is exactly the shape and every grade an integer in range:
    what both readers read alike, with nothing left out."""
    data = read_nested(text)
    if data is None or any(
        not all(type(v) is int and in_range(v) for v in docs.values()) for docs in data.values()
    ):
        return None
    return data  # type: ignore[return-value]  # every value was just checked to be an int


def read_json_grades(text: str) -> dict[str, dict[str, int]]:
    """qid -> doc id -> grade at ``json.loads`` speed, agreeing with :func:`parse_json_qrels`
    (whose values are taken when a grade is not an integer or the text is not the shape)."""
    data = _plain_grades(text)
    _WHOLE.remember(text, data is not None)
    return parse_json_qrels(text).grades() if data is None else data


_WHOLE = WholeReads()


def _clean(text: str) -> bool:
    """Whether nothing of the text is left out: exactly the shape, every grade in range."""
    known = _WHOLE.known(text)
    return known if known is not None else _plain_grades(text) is not None


def add_judgment(
    text: str, qid: str, doc: str, grade: int, block: Span | None = None
) -> list[TextEdit]:
    """``"doc": grade`` written after the query's last judgment (or into its empty object), or
    the query added after the last one: one insertion, the rest of the file as it was."""
    scanned = scan(text, "qrels", "grade")
    if any(f.code == QR314 for f in scanned.findings):
        raise EditRefused("the JSON qrels file has errors: fix them first")
    member = f"{json.dumps(doc, ensure_ascii=False)}: {grade}"
    group = scanned.groups.get(qid)
    if group is not None:
        if group.entries:
            at = max(e.value_span.end for e in group.entries.values())
            return [TextEdit(Span(at, at), f", {member}")]
        at = group.block.end - 1  # its closing brace
        return [TextEdit(Span(at, at), member)]
    query = f"{json.dumps(qid, ensure_ascii=False)}: {{{member}}}"
    if scanned.groups:
        at = max(g.block.end for g in scanned.groups.values())
        return [TextEdit(Span(at, at), f", {query}")]
    at = text.rstrip().rfind("}")  # the whole object's closing brace (the file is valid JSON)
    return [TextEdit(Span(at, at), query)]


def query_ids(text: str) -> list[tuple[str, Span]]:
    return scan(text, "qrels", "grade").keys


FORMAT = Format(
    name="json-qrels",
    display="JSON qrels (ranx / pytrec_eval)",
    role="qrels",
    parse=parse_json_qrels,
    query_ids=query_ids,
    id_text=json_id_text,
    add_judgment=add_judgment,
    read_grades=read_json_grades,
    clean=_clean,
)
