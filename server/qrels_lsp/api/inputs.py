"""What the API takes, made into the core's own model once (``core/model.py``: ``Qrels`` and
``Run``), so that every number is computed by the code the command line and the editor use.

A golden set or a run may be a file (a path), a dictionary, a pandas DataFrame, a ranx ``Qrels``
or ``Run``, or ir_measures' named tuples (``Qrel``, ``ScoredDoc``). The foreign objects are
recognised by their shape (duck typing): neither pandas, ranx nor ir_measures is imported here,
so a script that uses none of them pays for none of them.

Orders follow docs/metrics.md: a dictionary of scores is ranked as trec_eval ranks a run (score
descending, then document id descending byte-wise); a list is a ranking in the order given.
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from ..core.base.text import Span
from ..core.formats import columns as names
from ..core.metrics import order_by_score
from ..core.model import INT_LIMIT, Judgment, Qrels, Query, Ranking, Retrieved, Run

GoldenInput: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | Any"
"""A golden set: a file (golden set YAML, TREC, BEIR, JSON qrels...), ``{qid: {doc: grade}}``,
``{qid: [doc, ...]}`` (each listed document grade 1, as a golden set's list), a DataFrame, a
ranx ``Qrels`` or an iterable of ir_measures ``Qrel``."""

RunInput: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | Any"
"""A run: a file (run YAML, TREC, JSON, MS MARCO...), ``{qid: {doc: score}}``, ``{qid: [doc,
...]}`` (a ranking), a DataFrame, a ranx ``Run``, an iterable of ir_measures ``ScoredDoc`` or a
fused run (:class:`~qrels_lsp.api.results.Run`)."""

NOWHERE = Span(0, 0)  # what was never written in a file has no place in one


def as_path(value: object) -> Path | None:
    """``value`` as a file path when it is one (a string or ``os.PathLike``)."""
    if isinstance(value, (str, os.PathLike)):
        return Path(os.fspath(value))
    return None


def _module(value: object) -> str:
    return type(value).__module__.split(".")[0]


def is_frame(value: object) -> bool:
    """A pandas DataFrame (or one that quacks like it), without importing pandas."""
    return _module(value) == "pandas" and hasattr(value, "columns") and hasattr(value, "itertuples")


def _is_ranx(value: object, name: str) -> bool:
    return _module(value) == "ranx" and type(value).__name__ == name and hasattr(value, "to_dict")


# -- golden sets -------------------------------------------------------------------------------


def golden_model(value: object, *, k: int | None = None, level: int | None = None) -> Qrels:
    """An in-memory golden set as the core's ``Qrels`` (queries and judgments, no spans)."""
    grades = golden_grades(value)
    queries = {}
    for qid, docs in grades.items():
        query = Query(qid, NOWHERE, NOWHERE)
        query.judgments = [Judgment(doc, grade, NOWHERE) for doc, grade in docs.items()]
        queries[qid] = query
    return Qrels(format="json-qrels", queries=queries, k=k, relevance_level=level)


def golden_grades(value: object) -> dict[str, dict[str, int]]:
    """``{qid: {doc: grade}}`` from any in-memory golden set the API takes."""
    if _is_ranx(value, "Qrels"):
        return _grades(value.to_dict())  # type: ignore[attr-defined]
    if is_frame(value):
        return _grades(_frame_nested(value, names.GRADE, "a grade"))
    if isinstance(value, Mapping):
        return _grades(value)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        nested: dict[str, dict[str, object]] = {}
        for row in value:
            qid, doc, grade = _fields(row, "relevance", "Qrel")
            nested.setdefault(qid, {}).setdefault(doc, grade)
        return _grades(nested)
    raise TypeError(f"a golden set cannot be a {type(value).__name__}: {GoldenInput}")


def _grades(nested: Mapping[Any, Any]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for qid, docs in nested.items():
        if isinstance(docs, Mapping):
            out[str(qid)] = {str(d): grade(g, qid, d) for d, g in docs.items()}
        elif isinstance(docs, Iterable) and not isinstance(docs, (str, bytes)):
            out[str(qid)] = dict.fromkeys(map(str, docs), 1)  # a golden set's list: grade 1
        else:
            raise TypeError(f"query {qid!r}: judgments are {{doc: grade}} or a list of ids")
    return out


def grade(value: object, qid: object, doc: object) -> int:
    """A grade: an integer (an integral float too, as a DataFrame column holds it), refused
    otherwise rather than truncated (a golden set YAML refuses ``2.7`` the same way, QR103)."""
    if isinstance(value, bool) or not hasattr(value, "__float__"):
        raise TypeError(f"the grade of {doc!r} for {qid!r} is {value!r}, not an integer")
    try:
        value = operator.index(value)  # type: ignore[arg-type]  # (numpy's integers too)
    except TypeError:
        number = float(value)
        if not number.is_integer():
            raise ValueError(
                f"the grade of {doc!r} for {qid!r} is {value!r}, not an integer"
            ) from None
        value = int(number)
    if abs(int(value)) > INT_LIMIT:
        raise ValueError(f"the grade of {doc!r} for {qid!r} is beyond 2^53 (QR307)")
    return int(value)


# -- runs --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Named:
    """A run read from memory, with the name it gives itself (a ranx run's ``name``)."""

    run: Run
    name: str | None


def run_model(value: object) -> Named:
    """An in-memory run as the core's ``Run``: each query's documents in evaluation order."""
    name = None
    rankings: Mapping[Any, Any]
    if _is_ranx(value, "Run"):
        rankings, name = value.to_dict(), getattr(value, "name", None)  # type: ignore[attr-defined]
    elif is_frame(value):
        rankings = _frame_ranked(value)
    elif hasattr(value, "rankings") and hasattr(value, "scores") and hasattr(value, "to_trec"):
        rankings = value.to_dict()  # type: ignore[attr-defined]  # a fused run (api.results)
        name = getattr(value, "name", None)
    elif isinstance(value, Mapping):
        rankings = value
    elif isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        nested: dict[str, dict[str, object]] = {}
        for row in value:
            qid, doc, score = _fields(row, "score", "ScoredDoc")
            nested.setdefault(qid, {}).setdefault(doc, score)
        rankings = nested
    else:
        raise TypeError(f"a run cannot be a {type(value).__name__}: {RunInput}")
    run = Run(format="json-run", name=name)
    for qid, docs in rankings.items():
        ranking = Ranking(str(qid), NOWHERE, NOWHERE)
        ranking.docs = _ranked(docs, qid)
        run.rankings[str(qid)] = ranking
    return Named(run, None if name is None else str(name))


def _ranked(docs: object, qid: object) -> list[Retrieved]:
    """One query's documents in evaluation order; a document listed twice counts once, at its
    first place (trec_eval refuses such a run; the run readers keep the first, QR203)."""
    if isinstance(docs, Mapping):
        scores = {str(d): score(s, qid, d) for d, s in docs.items()}
        return [Retrieved(d, NOWHERE, scores[d]) for d in order_by_score(scores)]
    if isinstance(docs, Iterable) and not isinstance(docs, (str, bytes)):
        ids = dict.fromkeys(map(str, docs))
        return [Retrieved(d, NOWHERE, None, i) for i, d in enumerate(ids, start=1)]
    raise TypeError(f"query {qid!r}: a ranking is {{doc: score}} or a list of ids")


def score(value: object, qid: object, doc: object) -> float:
    """A score: a real number; NaN has no place in a ranking (a JSON run reports it, QR314)."""
    if isinstance(value, bool) or not hasattr(value, "__float__"):
        raise TypeError(f"the score of {doc!r} for {qid!r} is {value!r}, not a number")
    number = float(value)
    if math.isnan(number):
        raise ValueError(
            f"the score of {doc!r} for {qid!r} is NaN, which has no place in a ranking"
        )
    return number


# -- named tuples and frames -------------------------------------------------------------------


def _fields(row: object, value: str, kind: str) -> tuple[str, str, object]:
    """(query, document, value) of an ir_measures ``Qrel`` or ``ScoredDoc`` (or any object with
    ``query_id``, ``doc_id`` and the value's attribute), else a 3-tuple."""
    if hasattr(row, "query_id") and hasattr(row, "doc_id") and hasattr(row, value):
        return str(row.query_id), str(row.doc_id), getattr(row, value)
    if isinstance(row, Sequence) and not isinstance(row, (str, bytes)) and len(row) == 3:
        return str(row[0]), str(row[1]), row[2]
    raise TypeError(f"expected ir_measures {kind} tuples (query_id, doc_id, {value}), got {row!r}")


def _column(frame: Any, wanted: Sequence[str], what: str) -> str:
    found = names.first_of([str(c) for c in frame.columns], tuple(wanted))
    if found is None:
        raise ValueError(f"the DataFrame has no column for {what} (one of {', '.join(wanted)})")
    return found


def _frame_nested(frame: Any, values: Sequence[str], what: str) -> dict[str, dict[str, object]]:
    """``{qid: {doc: value}}`` from a long DataFrame (one row per pair); the first row of a
    pair counts, as the file readers keep a first judgment."""
    q = _column(frame, names.QUERY, "the query id")
    d = _column(frame, names.DOC, "the document id")
    v = _column(frame, values, what)
    out: dict[str, dict[str, object]] = {}
    for qid, doc, value in zip(
        frame[q].tolist(), frame[d].tolist(), frame[v].tolist(), strict=True
    ):
        out.setdefault(str(qid), {}).setdefault(str(doc), value)
    return out


def _frame_ranked(frame: Any) -> Mapping[str, Any]:
    """A run DataFrame: scores ranked as trec_eval ranks them, or, with no score column, the
    rows ordered by a ``rank`` column (ascending)."""
    if names.first_of([str(c) for c in frame.columns], names.SCORE) is not None:
        return _frame_nested(frame, names.SCORE, "a score")
    ranks = _frame_nested(frame, names.RANK, "a score or a rank")
    return {q: sorted(docs, key=lambda d, r=docs: float(r[d])) for q, docs in ranks.items()}  # type: ignore[misc]
