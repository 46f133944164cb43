"""A big TREC run read a column at a time (numpy), for ``score`` on runs of millions of lines.

The line-by-line reader (:func:`.trec_run.read_trec_run_ids`) makes six strings, a float and a
dict entry per line: about 1.5 s for a million lines. Here the whole file is one byte array: the
fields are found by one comparison, only the document ids become Python strings, the scores are
parsed as whole columns and each query is sorted by numpy. The result is the same, or nothing:
:func:`ranked_columns` returns None for any file it cannot read exactly as the line reader
does (anything but one space between six fields and ``\\n`` after them, a ``#``, a non-ASCII byte,
queries not in blocks, ...), and the caller reads it line by line. Where a query holds what
numpy's sort would order otherwise than trec_eval (tied or NaN scores, a document twice), that
query alone is ordered by :func:`~..metrics.order.order_by_score`.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from ..metrics import order_by_score

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Bytes = npt.NDArray[np.uint8]

VECTOR_BYTES = 1 << 20
"""From this size (about 30,000 run lines) a run is read by columns: below it, numpy's import
costs more than it saves."""

_MAX_DIGITS = 15
"""Decimal scores of at most this many digits are parsed in numpy: an integer below 2**53 over
a power of ten below 10**23 is exact, so one IEEE division rounds as ``float()`` does."""
_MAX_ID = 64
"""Query and document ids up to this long are handled as fixed-width rows (n x 64 bytes at
most); a run with a longer query id is left to the line reader."""


def ranked_columns(text: str) -> dict[str, list[str]] | None:
    """qid -> doc ids in trec_eval's order, equal to :func:`.trec_run.read_trec_run_ids`; None
    when the file is not six single-space-separated fields on every line, with queries in
    blocks (the line reader then reads it)."""
    if not text.isascii() or "#" in text:
        return None
    data = text.encode("ascii")
    if not data.endswith(b"\n"):
        data += b"\n"
    import numpy as np

    arr = np.frombuffer(data, dtype=np.uint8)
    sep = _field_ends(arr)
    if sep is None:
        return None
    blocks = _query_blocks(arr, sep)
    if blocks is None:
        return None
    qids = [text[a:b] for a, b in blocks[1]]
    if len(set(qids)) != len(qids):  # a query in two blocks: the line reader merges them
        return None
    docs = _column(arr, sep[1::6] + 1, sep[2::6]).decode("ascii").split(" ")
    docs.pop()  # (the column ends with a space)
    scores = _scores(arr, sep[3::6] + 1, sep[4::6])
    if scores is None:
        return None
    return _ranked(qids, blocks[0], docs, scores)


def _field_ends(arr: Bytes) -> Ints | None:
    """Where each field ends (its space or line break), if every line holds exactly six
    non-empty fields, one space apart, and no control character but its line break."""
    import numpy as np

    blank = arr == 32
    blank |= arr == 10
    sep = np.flatnonzero(blank)
    lines = len(sep) // 6
    if lines == 0 or len(sep) != 6 * lines:
        return None
    if not (arr[sep[5::6]] == 10).all():  # each sixth end a line break: five spaces before it
        return None
    if np.count_nonzero(arr < 32) != lines:  # another control character: a tab, CR, NUL, ...
        return None
    if sep[0] == 0 or (blank[1:] & blank[:-1]).any():  # an empty field: two blanks
        return None
    return sep


def _fields(arr: Bytes, start: Ints, length: Ints, width: int) -> Bytes:
    """Each field as a row of ``width`` bytes, zeros after its end (the text holds no NUL)."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    last = len(arr) - width  # rows starting later would run past the end
    if last >= 0:
        rows = sliding_window_view(arr, width)[np.minimum(start, last)]
    else:
        rows = np.zeros((len(start), width), dtype=np.uint8)
    for i in np.flatnonzero(start > last).tolist():  # the last lines: up to the end
        tail = arr[int(start[i]) : int(start[i]) + width]
        rows[i, : len(tail)] = tail
    rows *= np.arange(width) < length[:, None]
    return rows


def _query_blocks(arr: Bytes, sep: Ints) -> tuple[Ints, list[tuple[int, int]]] | None:
    """(first line of each run of lines with the same query id, each run's id as a range of
    ``arr``), comparing ids as zero-padded rows of 8-byte words."""
    import numpy as np

    lines = len(sep) // 6
    start = np.empty(lines, dtype=np.int64)
    start[0] = 0
    start[1:] = sep[5:-1:6] + 1
    end = sep[0::6]
    length = end - start
    width = -(-int(length.max()) // 8) * 8
    if width > _MAX_ID:
        return None
    words = _fields(arr, start, length, width).view(np.uint64)
    firsts = np.flatnonzero((words[1:] != words[:-1]).any(axis=1)) + 1
    firsts = np.concatenate(([0], firsts)).astype(np.int64)
    ranges = list(zip(start[firsts].tolist(), end[firsts].tolist(), strict=True))
    return firsts, ranges


def _column(arr: Bytes, start: Ints, stop: Ints) -> bytes:
    """The bytes of one field of every line, each followed by the space after it."""
    import numpy as np

    length = stop + 1 - start
    width = int(length.max())
    if width <= _MAX_ID:
        rows = _fields(arr, start, length, width)
        return bytes(rows[rows != 0].tobytes())
    before = np.cumsum(length) - length
    index = np.arange(int(length.sum()), dtype=np.int64) + np.repeat(start - before, length)
    return bytes(arr[index].tobytes())


def _scores(arr: Bytes, start: Ints, stop: Ints) -> npt.NDArray[np.float64] | None:
    """The score column, as ``float()`` reads each field (None where one holds ``_``, which
    ``float()`` reads and C does not, or is no number)."""
    exact = _decimal_scores(arr, start, stop)
    if exact is not None:
        return exact
    column = _column(arr, start, stop)
    if b"_" in column:
        return None
    import numpy as np

    try:
        return np.array([float(s) for s in column.split()], dtype=np.float64)
    except ValueError:
        return None


def _decimal_scores(arr: Bytes, start: Ints, stop: Ints) -> npt.NDArray[np.float64] | None:
    """Scores written ``-?digits.digits`` (at most 15 digits) parsed in numpy, exactly as
    ``float()`` parses them; None when any is written otherwise (an exponent, inf, nan).

    The digits accumulate, a column of characters at a time, into an integer below 10**15,
    exact in a double; one division by a power of ten then rounds it as ``float()`` does
    (Clinger's fast path)."""
    import numpy as np

    length = stop - start
    width = int(length.max())
    if width > _MAX_DIGITS + 2:
        return None
    chars = np.ascontiguousarray(_fields(arr, start, length, width).T)  # a row per column
    digit = (chars - 48) < 10  # (a zero past the end wraps round: no digit)
    point = chars == 46
    other = (chars != 0) & ~digit & ~point
    other[0] &= chars[0] != 45  # a minus sign first
    if other.any():
        return None
    digits = digit.sum(axis=0, dtype=np.uint8)
    if (point.sum(axis=0, dtype=np.uint8) > 1).any() or not (
        (digits >= 1) & (digits <= _MAX_DIGITS)
    ).all():
        return None
    values = np.where(digit, chars - 48, np.uint8(0))  # (uint8 throughout: 9 bytes a score)
    bases = np.where(digit, np.uint8(10), np.uint8(1))
    mantissa = np.zeros(len(start), dtype=np.float64)
    decimals = np.zeros(len(start), dtype=np.uint8)
    seen = np.zeros(len(start), dtype=np.bool_)  # the point, in this column or before
    for j in range(width):
        mantissa *= bases[j]
        mantissa += values[j]
        seen |= point[j]
        decimals += digit[j] & seen
    scores = mantissa / (10.0 ** np.arange(_MAX_DIGITS + 1))[decimals]
    return np.where(chars[0] == 45, -scores, scores)


def _ranked(
    qids: list[str], firsts: Ints, docs: list[str], scores: npt.NDArray[np.float64]
) -> dict[str, list[str]]:
    """Each query's doc ids by score, descending; a query with a tie, a NaN or a document twice
    is ordered by :func:`order_by_score` instead."""
    import numpy as np

    n = len(docs)
    bounds = [*firsts.tolist(), n]
    ends = firsts[1:] - 1  # pairs (i, i + 1) that span two queries
    falling = scores[1:] <= scores[:-1]
    falling[ends] = True
    if falling.all():  # each query already listed best first, as runs mostly are
        order, ranked = None, scores
    elif len(qids) * 64 <= n:  # a sort per query, faster than one of all when queries are long
        order = np.concatenate(
            [np.argsort(-scores[lo:hi], kind="stable") + lo for lo, hi in pairwise(bounds)]
        )
        ranked = scores[order]
    else:
        block = np.zeros(n, dtype=np.int64)
        block[firsts[1:]] = 1
        order = np.lexsort((-scores, np.cumsum(block)))
        ranked = scores[order]
    same = ranked[1:] == ranked[:-1]
    same[ends] = False
    odd = set(np.searchsorted(firsts, np.flatnonzero(same) + 1, side="right").tolist())
    nan = np.flatnonzero(np.isnan(scores))
    if len(nan):
        odd.update(np.searchsorted(firsts, nan, side="right").tolist())
    ordered = docs if order is None else [docs[i] for i in order.tolist()]
    out: dict[str, list[str]] = {}
    for b, qid in enumerate(qids, start=1):
        lo, hi = bounds[b - 1], bounds[b]
        mine = docs[lo:hi]
        if b in odd or len(set(mine)) != hi - lo:
            first: dict[str, float] = {}
            for doc, score in zip(mine, scores[lo:hi].tolist(), strict=True):
                first.setdefault(doc, score)
            out[qid] = order_by_score(first)
        else:
            out[qid] = ordered[lo:hi]
    return out
