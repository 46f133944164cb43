"""The metrics a question's lens shows: the registry's measures that name a lens label
(``Measure.lens``), each at the golden set's k where it takes a cutoff, in the registry's
order. One place, so that a new measure reaches the lenses by its own module."""

from __future__ import annotations

import functools

from .metric import Metric
from .registry import MEASURES


@functools.lru_cache(maxsize=64)
def lens_metrics(k: int) -> tuple[tuple[Metric, str, str], ...]:
    """(metric, its result key, its label) for each measure shown in a question's lens."""
    out = []
    for measure in MEASURES:
        if measure.lens is None:
            continue
        cut = k if measure.cutoff == "required" or "{k}" in measure.lens else None
        metric = Metric(measure.name, cut)
        out.append((metric, str(metric), measure.lens.format(k=k)))
    return tuple(out)


def with_lens_metrics(metrics: list[Metric], k: int) -> list[Metric]:
    """``metrics`` and, after them, the lenses' numbers and the coverage the first line watches
    (judged@k): what a golden set scores in the editor, whichever version of it is scored."""
    shown = [m for m, _key, _label in lens_metrics(k)] + [Metric("judged", k)]
    return metrics + [m for m in shown if m not in metrics]
