"""What a measure is: one per module in this package, registered in ``registry.py``.

Every measure is computed from the same :class:`Judged` (one walk down a query's ranking per
evaluation, however many measures are asked for), with the same float operations in the same order
as trec_eval's C code, so that values match it bit for bit (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal, Protocol

Cutoff = Literal["required", "optional", "none"]


@dataclass(frozen=True, slots=True)
class Judged:
    """What one walk down a ranking found: the judged documents of its top, in rank order."""

    hits: list[tuple[int, int]]  # (0-based rank, grade)
    grades: Mapping[str, int]  # every judgment of the query
    level: int  # grades at or above it are relevant (never a negative one)
    num_rel: int  # judgments that are relevant, retrieved or not
    retrieved: int = 0  # the length of the top walked (the ranking's, or the deepest cutoff)

    def relevant(self, grade: int) -> bool:
        return grade >= self.level and grade >= 0

    def at_level(self, level: int) -> Judged:
        """The same walk read at another relevance level (``P(rel=2)@5``)."""
        if level == self.level:
            return self
        num_rel = sum(1 for g in self.grades.values() if g >= level and g >= 0)
        return replace(self, level=level, num_rel=num_rel)


class Asked(Protocol):
    """What a measure reads of the metric asked for (``metric.Metric`` is one): a protocol, so
    that no measure module imports the module that reads their registry."""

    @property
    def k(self) -> int | None: ...

    @property
    def rel(self) -> int | None: ...

    @property
    def persistence(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Measure:
    """A per-query measure: its names, whether it takes a cutoff, and how it is computed."""

    name: str  # ours (ranx's), the result key with ``@k``: "recall"
    # trec_eval's name without a cutoff ("map"), and with one ("map_cut_{k}"); None where
    # trec_eval has no such form (recall has no uncut form, recip_rank no cut one).
    trec_eval: str | None
    trec_eval_cut: str | None
    spellings: tuple[str, ...]  # other tools' names for it, read by parse_metric (lower case)
    cutoff: Cutoff
    value: Callable[[Judged, Asked], float]
    summary: str  # one line for the README and the hover
    whole_ranking: bool = False  # without a cutoff it reads the whole ranking (map, mrr)
    # Spellings that mean the cut form even when no cutoff is written (trec_eval's
    # ``ndcg_cut`` is ndcg at cutoffs, never the uncut ndcg): the k in force is taken.
    cut_spellings: tuple[str, ...] = ()
    # It reads the relevance level, so ``rel=`` may set it per metric (nDCG and judged@k
    # do not: trec_eval's nDCG uses the raw grades, judged@k any grade of 0 or more).
    levelled: bool = True
    # Its gains are the grades themselves, not relevant-or-not (nDCG; RBP without ``rel=``).
    graded: bool = False
    # Its parameter besides the cutoff and ``rel`` (RBP's persistence p), and its default.
    param: tuple[str, float] | None = None
    # Compared between runs (effectiveness); judged@k measures the golden set's coverage of a
    # run, not the run, and a significance test of it would only inflate Holm's family.
    compared: bool = True
    # What trec_eval prints is 1 minus this (judged@k is 1 - trec_eval's unj_k).
    complement: bool = False
    # The hover's table lists an optional-cutoff measure at each of its cutoffs too (nDCG@k
    # is quoted more than nDCG); otherwise once, uncut.
    hover_cutoffs: bool = False
    # Its label in each question's lens, when it is shown there (``{k}``: the golden set's k,
    # which a measure that needs a cutoff is then taken at); lenses list these in the
    # registry's order (metrics/lens.py).
    lens: str | None = None


def format_value(x: float) -> str:
    """Print like trec_eval's ``%6.4f``: Python rounds the exact binary value half-to-even, as C."""
    return f"{x:6.4f}"
