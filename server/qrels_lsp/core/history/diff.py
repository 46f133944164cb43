"""Two versions of a golden set and of its runs compared whole: what changed
(:mod:`.changes`) and, for every run and metric, why its number moved (:mod:`.attribution`).
What ``qrels-lsp diff`` prints; the editor keeps one up to date between keystrokes
(:mod:`.tracker`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Qrels
from .attribution import (
    Change,
    Rankings,
    Scoring,
    changes,
    evaluations,
    metric_pairs,
)
from .changes import GoldenChanges, golden_changes
from .versions import settings


@dataclass(frozen=True, slots=True)
class RunVersions:
    """A run's two versions (the same object twice when it did not change or has one)."""

    name: str
    old: Rankings
    new: Rankings
    note: str | None = None  # why the versions are the same one, when it is worth saying


@dataclass(frozen=True, slots=True)
class RunHistory:
    """One run's changes, a metric each, in the order of the new version's metrics."""

    name: str
    changes: tuple[Change, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class History:
    """A golden set's two versions compared, named as the user knows them (``main``, a file)."""

    base: str
    head: str
    changes: GoldenChanges
    runs: tuple[RunHistory, ...]
    n_before: int  # the questions each version's means are over
    n_after: int
    problem: str | None = None  # why there is no base to compare with (the editor says it)
    lineage: int = 0  # the editor's: bumped when a history is made whole, not after an edit

    def change(self, run: str, metric: str) -> Change | None:
        for r in self.runs:
            if r.name == run:
                return next((c for c in r.changes if c.metric == metric), None)
        return None


def history(
    base: str,
    head: str,
    old: Qrels,
    new: Qrels,
    before: Scoring,
    after: Scoring,
    runs: Sequence[RunVersions],
) -> History:
    """Everything ``diff`` says of two versions of a golden set and of its runs."""
    found = golden_changes(old, new, settings(old, new, before, after))
    pairs = metric_pairs(before.metrics, after.metrics)
    out = []
    for run in runs:
        ev = evaluations(before, after, run.old, run.new)
        out.append(
            RunHistory(run.name, tuple(changes(run.name, ev, pairs, found.old_id)), run.note)
        )
    return History(base, head, found, tuple(out), *_counts(before, after))


def _counts(before: Scoring, after: Scoring) -> tuple[int, int]:
    """The questions each version's means are over (the scored ones)."""

    def scored(side: Scoring) -> int:
        return sum(1 for q in side.grades if q not in side.unanswerable)

    return scored(before), scored(after)
