"""QR108: the same question asked twice (case and punctuation aside): the mean counts it twice."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from ..base.findings import Finding, Related, Severity, declare, finding
from ..formats.golden import MAX_QUESTIONS
from ..model import Query
from .check import GoldenCheck, GoldenInputs

QR108 = declare(
    "QR108", "duplicate-question", Severity.WARNING, "golden set", "The same question asked twice."
)
_NORMALIZE = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=4 * MAX_QUESTIONS)
def _normalized(question: str) -> str:
    """A question's words, for comparing questions (cached: asked for every question per edit)."""
    return _NORMALIZE.sub(" ", question.casefold()).strip()


def duplicate_questions(x: GoldenInputs) -> Iterable[Finding]:
    first: dict[str, Query] = {}
    for query in x.qrels.queries.values():
        if not query.question:  # (spans are read for duplicates only: see Query.shifted)
            continue
        key = _normalized(query.question)
        if not key:
            continue
        if key in first:
            other = first[key]
            # A question from a topics file has no place in this file: it is not compared.
            if other.question_span is None:
                if query.question_span is not None:
                    first[key] = query
                continue
            if query.question_span is None:
                continue
            yield finding(
                QR108,
                query.question_span,
                f"`{query.qid}` asks the same question as `{other.qid}`; the mean counts it "
                "twice. Merge them or reword one as users really ask it.",
                related=(Related(other.question_span, f"`{other.qid}` asks it here"),),
            )
        else:
            first[key] = query


CHECK = GoldenCheck(codes=(QR108,), run=duplicate_questions, after_queries=True)
