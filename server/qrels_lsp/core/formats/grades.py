"""What a grade may be, in every qrels format (TREC, BEIR, JSON qrels, a golden set): an integer
within ±2^53, the integers a double holds exactly. The line is drawn where trec_eval stops being
able to evaluate a grade long before (see :func:`out_of_range`), so a grade past it is an error
and its judgment is left out of the scores, said where it is written (QR307), rather than a
traceback (``float()`` of a 309-digit grade) or a number no other tool gives."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..base.text import Span
from ..model import INT_LIMIT

QR307 = declare(
    "QR307",
    "grade-out-of-range",
    Severity.ERROR,
    "qrels",
    "A grade beyond ±2^53 (9007199254740992): left out of the scores; trec_eval fails on it.",
    drops=True,
)


def in_range(grade: int) -> bool:
    return -INT_LIMIT <= grade <= INT_LIMIT


def out_of_range(span: Span, written: str, negative: bool) -> Finding:
    """QR307 for a grade past :data:`~..model.INT_LIMIT` (``written`` as the file has it, shortened).

    trec_eval keeps one 8-byte counter per grade level, from 0 to the query's highest grade
    (form_res_rels.c): a grade of 10^12 asks for 8 TB and it fails (exit 4), from 2^61 the byte
    count wraps and it crashes, at C's LONG_MAX (9223372036854775807) the count, grade + 1,
    overflows, and past LONG_MAX ``atol`` clamps the grade to it. A negative grade is read as
    "in the pool, not judged" however large, so leaving it out changes no measure."""
    shown = (
        written
        if len(written) <= 24
        else f"{written[:10]}...{written[-6:]} ({len(written)} characters)"
    )
    if not negative:
        why = (
            "trec_eval keeps one counter per grade level up to the highest grade, so it runs out "
            "of memory (exit 4) or overflows the count (a crash; at 9223372036854775807, C's "
            "largest long, grade + 1 itself overflows) and fails"
        )
    else:
        why = "trec_eval reads any negative grade alike (in the pool, never relevant): write -1"
    return finding(
        QR307,
        span,
        f"the grade {shown} is out of range: qrels-lsp reads grades within ±2^53 "
        f"({INT_LIMIT:,}) and leaves this judgment out of the scores; {why}",
    )


NEGATIVE_ONLY = (
    "trec_eval 10 sizes its counters of grade levels by a query's highest grade, below 0 here, "
    "so it exits 4 (Can't calculate measure) or crashes on such a query; pytrec_eval and "
    "qrels-lsp score it 0"
)
"""What a query judged only with negative grades does to trec_eval (said by QR104 and score)."""


def negative_only(grades: Iterable[int]) -> bool:
    """Whether there are grades and all are negative (form_res_rels.c: ``max_rel + 1`` counters,
    0 or fewer, which te_chk_and_malloc refuses or a memset past them crashes on)."""
    seen = False
    for grade in grades:
        if grade >= 0:
            return False
        seen = True
    return seen
