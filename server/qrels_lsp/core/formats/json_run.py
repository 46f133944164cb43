"""JSON runs, as ranx and pytrec_eval write and read them: ``{"q1": {"d1": 12.5, ...}, ...}``.

Each query's documents are ranked as pytrec_eval (trec_eval) ranks them: by score descending,
then document id descending (``metrics.order``), the order the TREC run reader uses too. A NaN
score has no place in an order: the entry is reported and left out. ``read_json_run`` is the fast
path for scoring (``json.loads``); see ``json_nested.py`` for why there are two readers.
"""

from __future__ import annotations

import json

from ..base.findings import finding
from ..base.text import Span
from ..metrics import order_by_score
from ..model import Ranking, Retrieved, Run
from .format import Format
from .json_nested import QR314, Number, WholeReads, as_float, read_nested, scan


def parse_json_run(text: str) -> Run:
    """A JSON run with spans: each query's documents in trec_eval's order."""
    scanned = scan(text, "run", "score")
    run = Run(format="json-run", findings=scanned.findings)
    for qid, group in scanned.groups.items():
        ranking = Ranking(qid=qid, span=group.span, block=group.block)
        scored: dict[str, Retrieved] = {}
        scores: dict[str, float] = {}
        for entry in group.entries.values():
            score = as_float(entry.value)
            if score != score:
                run.findings.append(
                    finding(
                        QR314,
                        entry.value_span,
                        f"the score of {entry.key} for query {qid} is NaN, which has no place in "
                        "a ranking: use a number (the document is left out)",
                    )
                )
                continue
            scored[entry.key] = Retrieved(entry.key, entry.span, score)
            scores[entry.key] = score
        ranking.docs = [scored[doc] for doc in order_by_score(scores)]
        run.rankings[qid] = ranking
    return run


_FLOAT = {float}


def _ordered(docs: dict[str, Number]) -> list[str]:
    if set(map(type, docs.values())) - _FLOAT:  # (a pass in C: a million scores)
        docs = {d: as_float(v) for d, v in docs.items()}  # as the span reader compares them
    total = sum(docs.values())
    if total != total:  # a NaN somewhere (or inf - inf): left out, as parse_json_run does
        docs = {d: v for d, v in docs.items() if v == v}
    return order_by_score(docs)


def read_json_run(text: str) -> dict[str, list[str]]:
    """qid -> doc ids in evaluation order, at ``json.loads`` speed, agreeing with
    :func:`parse_json_run` (whose values are taken when the text is not exactly the shape)."""
    data = read_nested(text)
    if data is None:
        _WHOLE.remember(text, False)
        return parse_json_run(text).ranked_ids()
    ranked = {qid: _ordered(docs) for qid, docs in data.items()}
    _WHOLE.remember(text, sum(map(len, ranked.values())) == sum(map(len, data.values())))
    return ranked


_WHOLE = WholeReads()


def _clean(text: str) -> bool:
    """Whether the text is exactly the shape with no NaN score: nothing left out of it."""
    known = _WHOLE.known(text)
    if known is not None:
        return known
    data = read_nested(text)
    if data is None:
        return False
    return all(score == score for docs in data.values() for score in map(as_float, docs.values()))


def query_ids(text: str) -> list[tuple[str, Span]]:
    return scan(text, "run", "score").keys


def json_id_text(text: str, span: Span, new: str) -> str:
    """An id written inside JSON quotes: escaped as JSON escapes it."""
    return json.dumps(new, ensure_ascii=False)[1:-1]


FORMAT = Format(
    name="json-run",
    display="JSON run (ranx / pytrec_eval)",
    role="run",
    parse=parse_json_run,
    query_ids=query_ids,
    id_text=json_id_text,
    read_rankings=read_json_run,
    clean=_clean,
    scored=True,
)
