"""What the columns of a table of judgments or of a ranking are called, by the tools that write
them: a TSV header, the keys of a JSONL row, a DataFrame's or a Parquet file's columns. One list,
read by the file readers (``table.py``) and the Python API's DataFrames alike."""

from __future__ import annotations

from collections.abc import Iterable

QUERY = ("query_id", "qid", "q_id", "query-id", "query", "topic", "topic_id")
DOC = ("doc_id", "docno", "docid", "corpus-id", "corpus_id", "doc", "passage_id", "pid")
GRADE = ("relevance", "grade", "label", "rel", "judgment", "score")  # BEIR calls a grade score
SCORE = ("score", "sim", "similarity")
RANK = ("rank",)


def first_of(names: Iterable[str], wanted: tuple[str, ...]) -> str | None:
    """The first of ``wanted`` among ``names`` (compared without case), as written in
    ``names``; None when none is."""
    by_fold: dict[str, str] = {}
    for name in names:
        by_fold.setdefault(name.strip().casefold(), name)
    return next((by_fold[w] for w in wanted if w in by_fold), None)
