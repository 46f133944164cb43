"""Formats told by content: what a file's first bytes say it is, whatever its name.

Names come first (``detect_by_name`` in ``__init__.py``); content decides for files whose name
says nothing (``results.test``, ``bm25.json``) and tells the TREC family apart. Files that are
neither judgments nor a ranking are recognised too, so that they are never read as a run: TREC
topics (``<top>``) and TREC ``<DOC>`` corpora, which share the ``.trec`` suffix with runs.
"""

from __future__ import annotations

from ..base.patterns import DOC_TAG, MARKUP_START, TABLE_FRACTION, TOP_TAG
from ..model import FileKind, OtherKind
from .format import Role
from .json_nested import has_fractions, looks_nested
from .table import header_columns, jsonl_keys, tsv_header
from .trec_lines import FIELD, atol, is_comment, sniff_trec_kind, text_lines

ContentKind = FileKind | OtherKind

_WINDOW = 65536  # characters looked at for markup


def sniff(text: str, role: Role | None = None) -> ContentKind | None:
    """The kind ``text`` is, by content; ``role`` (what the file is used as: a `runs:` entry is
    a run) settles what content alone cannot (a JSON object of integers, a 3-column TSV)."""
    if looks_nested(text):
        if role is not None:
            return "json-run" if role == "run" else "json-qrels"
        return "json-run" if has_fractions(text) else "json-qrels"
    if MARKUP_START.match(text):
        head = text[:_WINDOW]
        if TOP_TAG.search(head):
            return "trec-topics"
        if DOC_TAG.search(head):
            return "trec-documents"
        return None
    table = table_kind(text, role)
    if table is not None:
        return table
    kind = sniff_trec_kind(text)
    if kind == "beir-qrels" and role != "qrels" and (role == "run" or ranked_tsv(text)):
        return "msmarco-run"
    return kind


def ranked_tsv(text: str, lines: int = 50) -> bool:
    """Whether a 3-column file reads as an MS MARCO run rather than BEIR qrels: its first query's
    third column counts 1, 2, 3... (or 0, 1, 2...) over three lines or more. Qrels grades do not
    (BEIR's are mostly 1s); a BEIR header line is skipped, so it is not counted either way."""
    first: str | None = None
    ranks: list[int] = []
    for n, (_, line) in enumerate(text_lines(text)):
        if n >= lines:
            break
        if not line.strip() or is_comment(line):
            continue
        parts = line.split("\t") if "\t" in line else FIELD.findall(line)
        if len(parts) < 3:
            return False
        rank, exact = atol(parts[2].strip())
        if not exact:
            if first is None and not ranks:
                continue  # a header
            return False
        qid = parts[0].strip()
        if first is None:
            first = qid
        elif qid != first:
            break
        ranks.append(rank)
    return (
        len(ranks) >= 3
        and ranks[0] in (0, 1)
        and ranks == list(range(ranks[0], ranks[0] + len(ranks)))
    )


def table_kind(text: str, role: Role | None = None) -> ContentKind | None:
    """A table with named columns (``table.py``): JSONL objects with query and document keys,
    or a TSV whose first line names its columns; None for anything else. A BEIR header
    (three columns: query, document, grade) is BEIR qrels, which read the same."""
    keys = jsonl_keys(text)
    if keys is not None:
        family, fields = "jsonl", keys
    else:
        header = tsv_header(text)
        if header is None:
            return None
        family, fields = "tsv", header
    qrels = header_columns(fields, "qrels") is not None
    run = header_columns(fields, "run") is not None
    if role is not None:
        wanted = qrels if role == "qrels" else run
        kind = role if wanted else None
    elif qrels and run:  # one `score` column: a grade (BEIR) or a score
        kind = "run" if TABLE_FRACTION.search(text[:_WINDOW]) else "qrels"
    else:
        kind = "qrels" if qrels else "run" if run else None
    if kind is None:
        return None
    if family == "tsv" and kind == "qrels" and len(fields) == 3:
        return "beir-qrels"
    return f"{family}-{kind}"
