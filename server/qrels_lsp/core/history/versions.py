"""A version of a golden set as scoring reads it (:class:`~.attribution.Scoring`), whether it is
the one the project analysed (its context) or one read from another file or a git revision, and
the settings that differ between two versions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..metrics import configured_metrics
from ..metrics.lens import with_lens_metrics
from ..model import Qrels
from ..project.config import Config, QrelsBinding, scoring_settings
from .attribution import Scoring

if TYPE_CHECKING:
    from ..project.results import QrelsContext


def scoring_of(
    qrels: Qrels, binding: QrelsBinding | None, config: Config, *, lens: bool = False
) -> Scoring:
    """A version read apart from the project: its own cutoff, level and chunk rule, else those
    of its ``[[qrels]]`` table and of the configuration, as the project resolves them."""
    k, level, chunks = scoring_settings(qrels, binding, config)
    metrics = configured_metrics(config.metrics, k)
    return Scoring(
        qrels.grades(),
        qrels.unanswerable(),
        level,
        with_lens_metrics(metrics, k) if lens else metrics,
        k,
        chunks,
    )


def context_scoring(ctx: QrelsContext) -> Scoring:
    """The version the project analysed, as its context holds it."""
    return Scoring(
        ctx.grades, ctx.unanswerable, ctx.level, ctx.metrics, ctx.k, ctx.chunks, ctx.grades_since
    )


def settings(
    old: Qrels, new: Qrels, before: Scoring, after: Scoring
) -> dict[str, tuple[object, object]]:
    """What scoring reads of each version beside its questions, old and new: the pairs that
    differ say a setting changed."""

    def runs(qrels: Qrels) -> tuple[str, ...]:
        return tuple(r.value for r in qrels.runs)

    def rule(scoring: Scoring) -> str | None:
        return scoring.chunks.describe() if scoring.chunks is not None else None

    return {
        "k": (before.k, after.k),
        "relevance_level": (before.level, after.level),
        "corpus": (
            old.corpus.value if old.corpus else None,
            new.corpus.value if new.corpus else None,
        ),
        "runs": (runs(old), runs(new)),
        "chunks": (rule(before), rule(after)),
    }
