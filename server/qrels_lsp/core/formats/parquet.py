"""Parquet files, as Hugging Face holds BEIR and MTEB datasets (``qrels/test.parquet`` with
``query-id``, ``corpus-id``, ``score``; ``queries`` and ``corpus`` with ``_id``, ``title``,
``text``). A Parquet file is read as the JSONL of its rows, one object a row with its columns as
keys, and that text goes to the readers of JSONL judgments (``jsonl_rows.py``), questions
(``topics.py``) and corpora (``corpus.py``): no reader of its own, so a dataset scores the same
whichever form it is in. A finding's line is the row's number plus one.

pyarrow is an optional dependency (``pip install 'qrels-lsp[parquet]'``), imported when a Parquet
file is read; without it the file is refused with a message that says so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..base.files import BINARY_TEXT, MAX_TEXT_BYTES, read_regular

SUFFIX = ".parquet"
MAGIC = b"PAR1"
NO_PYARROW = (
    "reading Parquet needs pyarrow: pip install 'qrels-lsp[parquet]' (or pip install pyarrow)"
)


def parquet_text(data: bytes, limit: int = MAX_TEXT_BYTES) -> tuple[str | None, str | None]:
    """A Parquet file's rows as JSONL, or why not (no pyarrow, not Parquet, unreadable, or
    rows larger than ``limit`` bytes once unpacked: a file is never unpacked past a reader's
    cap)."""
    if not data.startswith(MAGIC):
        return None, "not a Parquet file (it does not start with PAR1)"
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None, NO_PYARROW
    try:
        opened = pq.ParquetFile(pa.BufferReader(data))
        meta = opened.metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        if size > limit:  # a few compressed megabytes can hold gigabytes: not unpacked
            return None, f"its rows take {size:,} bytes unpacked, more than the {limit:,} read"
        table = opened.read()
    except Exception as exc:  # a damaged file: said, never raised
        return None, f"an unreadable Parquet file: {type(exc).__name__}: {exc}"
    names = [str(n) for n in table.column_names]
    columns = [table.column(i).to_pylist() for i in range(len(names))]
    lines = [
        json.dumps(dict(zip(names, map(_plain, row), strict=True)), ensure_ascii=False)
        for row in zip(*columns, strict=True)
    ]
    return "".join(line + "\n" for line in lines), None


def _plain(value: Any) -> Any:
    """A cell as JSON can hold it: ids and texts as they are, a NaN or infinity as null (JSON
    has none; the readers then say the value is missing), anything else as its text."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return str(value)


def parquet_jsonl(path: Path, limit: int) -> tuple[bytes | None, str | None]:
    """The JSONL bytes of the Parquet file at ``path`` (read up to ``limit`` bytes), or why not:
    what the corpus reader reads a ``.jsonl`` file as."""
    data, problem = read_regular(path, limit + 1)
    if data is None:
        return None, problem
    if len(data) > limit:
        return None, f"larger than {limit:,} bytes, the corpus limit"
    text, problem = parquet_text(data, limit)
    return (None, problem) if text is None else (text.encode("utf-8"), None)


BINARY_TEXT[SUFFIX] = parquet_text
