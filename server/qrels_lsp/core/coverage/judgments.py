"""How complete a golden set's judgments are (docs/compare.md, "How complete the judgments are").

Most RAG and BEIR golden sets list only the relevant documents: every document not listed is
taken as not relevant (``exhaustive``). Their judged@10 is then about 0.1 whatever the run, so a
coverage rule would block every decision on them forever. A TREC-style pooled set lists the
documents judged not relevant too (grade 0): a document it does not list is unknown
(``pooled``), and coverage says how far its numbers can be trusted. A golden set says which
(`judgments:`), or its judgments say it: no grade-0 (or negative) judgment at all reads as
exhaustive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

Judgments = Literal["exhaustive", "pooled"]
KINDS: tuple[Judgments, ...] = ("exhaustive", "pooled")
KEY = "judgments"

MEANING: dict[Judgments, str] = {
    "exhaustive": "every document not listed is not relevant (coverage does not gate)",
    "pooled": "a document not judged is unknown (coverage gates)",
}


@dataclass(frozen=True, slots=True)
class Completeness:
    """The judgments' completeness in force, and where it comes from: ``stated`` names the
    place that says it (the golden set, its ``[[qrels]]`` table, the configuration); None when
    it is inferred from ``pooled_queries``, the questions with a grade-0 or negative judgment."""

    kind: Judgments
    stated: str | None
    pooled_queries: int = 0

    @property
    def gates(self) -> bool:
        """Whether coverage (judged@k) may block a decision: only where unjudged is unknown."""
        return self.kind == "pooled"

    def describe(self) -> str:
        """`judgments: exhaustive (inferred: no grade-0 judgment): every document not listed
        is not relevant (coverage does not gate)`."""
        if self.stated is not None:
            source = f"from {self.stated}"
        elif self.kind == "exhaustive":
            source = "inferred: no grade-0 judgment"
        else:
            n = self.pooled_queries
            source = f"inferred: {n:,} question{'s' * (n != 1)} with grade-0 judgments"
        return f"judgments: {self.kind} ({source}): {MEANING[self.kind]}"


def judged_not_relevant(grades: Mapping[str, int]) -> bool:
    """Whether one question's judgments name a document as not relevant (grade 0 or less):
    the mark of a pooled set."""
    return any(g <= 0 for g in grades.values())


def count_pooled(all_grades: Iterable[Mapping[str, int]]) -> int:
    return sum(1 for grades in all_grades if judged_not_relevant(grades))


def completeness(stated: tuple[Judgments, str] | None, pooled_queries: int) -> Completeness:
    """What is in force: what ``stated`` says (the kind and where), else the inference."""
    if stated is not None:
        return Completeness(stated[0], stated[1], pooled_queries)
    return Completeness("pooled" if pooled_queries else "exhaustive", None, pooled_queries)
