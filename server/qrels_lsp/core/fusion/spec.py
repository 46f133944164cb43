"""A fusion as a golden set (`fusions:`) or the configuration (`[[fusions]]`) declares it: a
new run, by name, made from runs the golden set already has. The shape of each value is
checked where it is read (:func:`value_problem`: the golden set's findings, the configuration's);
which runs the names name, and whether they have scores, once the golden set's runs are known
(``core/project/fusing.py``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..base.text import Ref, Span
from .methods import DEFAULT_NORM, DEFAULT_RRF_K, METHODS, NORMS, Params

FUSION_KEYS: dict[str, str] = {
    "name": "The fused run's name, as lenses, `score` and `compare_to` call it.",
    "method": "rrf (reciprocal rank fusion), combsum, combmnz or wsum (a weighted sum).",
    "runs": "The runs to fuse, by name (`bm25` for the BM25 baseline): two or more.",
    "k": "RRF's constant: each run adds 1 / (k + rank). Default 60.",
    "weights": "wsum: one weight per run, in the order of `runs`.",
    "norm": "How score methods normalise each run's scores per query: min-max (default), zmuv or sum.",
    "depth": "Each run's top documents fused (default: its whole ranking).",
}
MAX_FUSIONS = 100
MAX_FUSED_RUNS = 100


@dataclass(frozen=True, slots=True)
class Fusion:
    """One declared fusion. ``span`` is its entry; ``origin`` says where it was declared for
    messages (None: in the file whose findings these are)."""

    name: str
    method: str
    runs: tuple[Ref, ...]
    span: Span = field(default=Span(0, 0), compare=False)
    k: float = DEFAULT_RRF_K
    weights: tuple[float, ...] | None = None
    norm: str | None = None
    depth: int | None = None
    given: frozenset[str] = frozenset()  # the keys written (a parameter the method ignores)
    name_span: Span = field(default=Span(0, 0), compare=False)
    weights_span: Span | None = field(default=None, compare=False)
    origin: str | None = field(default=None, compare=False)

    @property
    def params(self) -> Params:
        return Params(
            self.method,
            self.k,
            self.weights,
            self.norm or DEFAULT_NORM,
            self.depth,
        )

    def describe(self) -> str:
        """`rrf of bm25, dense (k 60)`: what the hover and the docs say a fused run is."""
        runs = ", ".join(r.value for r in self.runs)
        details = []
        if self.method == "rrf":
            details.append(f"k {self.k:g}")
        else:
            details.append(f"norm {self.norm or DEFAULT_NORM}")
        if self.weights is not None and self.method == "wsum":
            details.append("weights " + ", ".join(f"{w:g}" for w in self.weights))
        if self.depth is not None:
            details.append(f"depth {self.depth}")
        return f"{self.method} of {runs} ({'; '.join(details)})"

    def shifted(self, at: int, delta: int) -> Fusion:
        """The fusion as written ``delta`` characters later, when it is written after ``at``."""
        if self.span.start < at or not delta:
            return self

        def move(span: Span | None) -> Span | None:
            return None if span is None else Span(span.start + delta, span.end + delta)

        return replace(
            self,
            runs=tuple(Ref(r.value, move(r.span) or r.span) for r in self.runs),
            span=move(self.span) or self.span,
            name_span=move(self.name_span) or self.name_span,
            weights_span=move(self.weights_span),
        )


def value_problem(key: str, value: object) -> str | None:
    """Why ``value`` cannot be a fusion's ``key`` (None: it can); the same words for YAML and
    TOML. ``runs`` and ``name`` are checked by their readers (spans, text)."""
    if key == "method":
        if not isinstance(value, str) or value not in METHODS:
            return f"`method` must be one of {', '.join(METHODS)}"
    elif key == "norm":
        if not isinstance(value, str) or value not in NORMS:
            return f"`norm` must be one of {', '.join(NORMS)}"
    elif key == "k":
        if not _number(value) or value < 0:  # type: ignore[operator]
            return "`k` must be a number, 0 or more (RRF's constant, 60 by default)"
    elif key == "depth":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            return "`depth` must be a positive integer"
    elif key == "weights" and (
        not isinstance(value, (list, tuple)) or not all(_number(w) for w in value)
    ):
        return "`weights` must be a list of numbers, one per run"
    return None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
