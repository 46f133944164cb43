"""The outline of a golden set or run: its queries, with their documents when the file is small
enough for an outline to stay readable (and cheap to send after every keystroke)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.base.text import Span
from ..core.model import Qrels, Query, Run

MAX_OUTLINE_CHILDREN = 5000
"""Documents listed under queries in an outline; a bigger file lists its queries only."""


@dataclass(frozen=True, slots=True)
class Symbol:
    """One outline entry: ``block`` is all it covers, ``span`` the name to select."""

    name: str
    detail: str | None
    kind: Literal["query", "document"]
    block: Span
    span: Span
    children: tuple[Symbol, ...] | None = None


def outline(model: Qrels | Run) -> list[Symbol]:
    """Queries in file order; each with its documents (grade or rank) unless the file holds more
    than :data:`MAX_OUTLINE_CHILDREN` of them."""
    if isinstance(model, Qrels):
        listed = lists_documents(judged_count(model))
        return [
            Symbol(
                q.qid,
                query_detail(q),
                "query",
                q.block,
                q.span,
                tuple(
                    Symbol(j.doc_id, f"grade {j.grade}", "document", j.span, j.span)
                    for j in q.judgments
                )
                if listed
                else None,
            )
            for q in model.queries.values()
        ]
    listed = lists_documents(sum(len(r.docs) for r in model.rankings.values()))
    return [
        Symbol(
            r.qid,
            f"{len(r.docs)} result{'s' if len(r.docs) != 1 else ''}",
            "query",
            r.block,
            r.span,
            tuple(
                Symbol(d.doc_id, f"#{rank}", "document", d.span, d.span)
                for rank, d in enumerate(r.docs, start=1)
            )
            if listed
            else None,
        )
        for r in model.rankings.values()
    ]


def lists_documents(total: int) -> bool:
    """Whether an outline of a file citing ``total`` documents lists them under its queries."""
    return total <= MAX_OUTLINE_CHILDREN


def judged_count(model: Qrels) -> int:
    """How many judgments a golden set holds: what decides whether its outline lists them."""
    return sum(len(q.judgments) for q in model.queries.values())


def query_detail(q: Query) -> str | None:
    """A question's symbol detail: its text, cut to fit an outline line."""
    text = (q.question or "").strip()
    return (text[:80] + "…" if len(text) > 80 else text) or None
