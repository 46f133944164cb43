"""What a measure is: one per module in this package, registered in ``__init__.py``.

Every measure is computed from the same :class:`Judged` (one walk down a query's ranking per
evaluation, however many measures are asked for), with the same float operations in the same order
as trec_eval's C code, so that values match it bit for bit (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

Cutoff = Literal["required", "optional", "none"]


@dataclass(frozen=True, slots=True)
class Judged:
    """What one walk down a ranking found: the judged documents of its top, in rank order."""

    hits: list[tuple[int, int]]  # (0-based rank, grade)
    grades: Mapping[str, int]  # every judgment of the query
    level: int  # grades at or above it are relevant (never a negative one)
    num_rel: int  # judgments that are relevant, retrieved or not

    def relevant(self, grade: int) -> bool:
        return grade >= self.level and grade >= 0


@dataclass(frozen=True, slots=True)
class Measure:
    """A per-query measure: its names, whether it takes a cutoff, and how it is computed."""

    name: str  # ours (ranx's), the result key with ``@k``: "recall"
    trec_eval: str  # trec_eval's, with ``{k}`` for the cutoff: "recall_{k}"
    spellings: tuple[str, ...]  # other tools' names for it, read by parse_metric (lower case)
    cutoff: Cutoff
    value: Callable[[Judged, int | None], float]
    summary: str  # one line for the README and the hover
    whole_ranking: bool = False  # without a cutoff it reads the whole ranking (map, mrr)


def format_value(x: float) -> str:
    """Print like trec_eval's ``%6.4f``: Python rounds the exact binary value half-to-even, as C."""
    return f"{x:6.4f}"
