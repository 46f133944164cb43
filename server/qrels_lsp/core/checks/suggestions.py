"""'Did you mean' for unknown document ids: the closest corpus ids, within a budget per file."""

from __future__ import annotations

from ..base.findings import Finding, Fix, TextEdit, finding
from ..base.text import Span
from ..formats.corpus import Corpus

SUGGESTION_BUDGET = 5_000_000
"""Id comparisons spent on "did you mean" per check of a file (each unknown id is compared with
every corpus id, ~0.1 s per million): 50 unknown ids get suggestions in a 100,000-document corpus,
5,000 in a 1,000-document one. Past it an unknown id is still reported, without suggestions
(10,000 unknown ids against 100,000 documents had taken 100 s)."""


class SuggestionBudget:
    """What is left of :data:`SUGGESTION_BUDGET` for one check of one file."""

    __slots__ = ("left", "spent_on")

    def __init__(self, comparisons: int = SUGGESTION_BUDGET) -> None:
        self.left = comparisons
        self.spent_on = 0  # unknown ids that got suggestions

    def take(self, cost: int) -> bool:
        """Whether ``cost`` comparisons may be spent (and spend them)."""
        if cost > self.left:
            self.left = 0  # later, cheaper ids are not served either: first come, first served
            return False
        self.left -= cost
        self.spent_on += 1
        return True


def unknown_document(
    code: str, doc_id: str, span: Span, corpus: Corpus, budget: SuggestionBudget | None = None
) -> Finding:
    """An id missing from the corpus, with the closest ids as one-click replacements while the
    check's ``budget`` lasts (a lone call gets a budget of its own). The message says when no
    suggestion was looked for, and when the corpus was read only in part."""
    budget = budget if budget is not None else SuggestionBudget()
    searched = budget.take(len(corpus))
    close = corpus.closest(doc_id, 3) if searched else []
    fixes = tuple(
        Fix(f"Replace with `{c}`", (TextEdit(span, c),), preferred=i == 0)
        for i, c in enumerate(close)
    )
    if close:
        hint = f" Did you mean `{close[0]}`?"
    elif not searched:
        hint = (
            " (No similar id was looked for: the check of a file compares at most "
            f"{SUGGESTION_BUDGET:,} ids for suggestions, spent on the first "
            f"{budget.spent_on:,} unknown ids.)"
        )
    else:
        hint = ""
    count = f"{len(corpus)} documents"
    if corpus.partial is not None:
        count += f" read; it was read only in part ({corpus.partial}), so it may be in the rest"
    return finding(code, span, f"`{doc_id}` is not in the corpus ({count}).{hint}", fixes=fixes)
