"""Folding, in editor terms: what a user folds away in a golden set or run, as spans.

A golden set folds per question entry and per `relevant:` block, a run per query's ranking, and
both at their `queries:` / `results:` mapping and at runs of comment lines. The spans come from
the parsed model (no second parse: an editor asks after every edit); the language server turns
them into line ranges and drops those that fit on one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.base.patterns import COMMENT_RUN
from ..core.base.text import Span
from ..core.model import Qrels, Run

FoldKind = Literal["region", "comment"]

"""Two or more lines in a row that hold only a comment (YAML's, and the TREC files' `#`)."""


@dataclass(frozen=True, slots=True)
class Fold:
    span: Span
    kind: FoldKind = "region"


def folds(model: Qrels | Run, text: str) -> list[Fold]:
    """Every foldable block of the file, in text order of its start."""
    out = [Fold(Span(m.start(), m.end() - 1), "comment") for m in COMMENT_RUN.finditer(text)]
    if isinstance(model, Qrels):
        queries = list(model.queries.values())
        blocks = [q.block for q in queries]
        if model.format == "golden":
            out += _top_mapping(text, "queries", blocks)
            for q in queries:
                out.append(Fold(q.block))
                if q.relevant_span is not None:
                    out.append(Fold(q.relevant_span))
            return _sorted(out)
    else:
        blocks = [r.block for r in model.rankings.values()]
        if model.format == "run-yaml":
            out += _top_mapping(text, "results", blocks, model.results_span)
            return _sorted(out + [Fold(b) for b in blocks])
    return _sorted(out + [Fold(b) for b in _apart(blocks)])


def top_mapping_span(
    text: str, key: str, blocks: list[Span], key_span: Span | None = None
) -> Span | None:
    """The top-level ``key:`` (``queries``, ``results``) with every entry under it: from the key
    (the last line starting with it above the first entry, unless its span is known) to the end
    of the last entry."""
    if not blocks:
        return None
    first = min(b.start for b in blocks)
    start = key_span.start if key_span is not None else _key_line(text, key, first)
    return Span(start, max(b.end for b in blocks)) if start is not None else None


def _top_mapping(
    text: str, key: str, blocks: list[Span], key_span: Span | None = None
) -> list[Fold]:
    span = top_mapping_span(text, key, blocks, key_span)
    return [Fold(span)] if span is not None else []


def _key_line(text: str, key: str, before: int) -> int | None:
    at = before
    while at > 0:
        start = text.rfind("\n", 0, at - 1) + 1
        if text.startswith(key, start) and text[start + len(key) :].lstrip(" \t").startswith(":"):
            return start
        at = start
    return None


def _apart(blocks: list[Span]) -> list[Span]:
    """The blocks that overlap no other: a TREC file's query whose lines are interleaved with
    another's has no fold of its own (folding it would hide the other's lines)."""
    ordered = sorted(blocks, key=lambda b: b.start)
    out = []
    reach = -1  # the furthest end of the blocks before
    for i, b in enumerate(ordered):
        after = ordered[i + 1].start if i + 1 < len(ordered) else None
        if reach < b.start and (after is None or b.end < after):
            out.append(b)
        reach = max(reach, b.end)
    return out


def _sorted(folds_: list[Fold]) -> list[Fold]:
    return sorted(folds_, key=lambda f: (f.span.start, -f.span.end))
