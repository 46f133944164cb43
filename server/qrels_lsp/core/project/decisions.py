"""The decisions part of a project: owns what is decided from a golden set's runs (each
comparison with the base and the resampling kept to correct it after an edit; the judging queue)
and makes them as new values of an :class:`.analysis.Analysis`, never by changing one.

Threads (docs/architecture.md, "Threads"): the comparers and queues are gathered on the owner's
thread (the editor's analysis thread); the numeric part of a comparison runs where the caller
runs the job :meth:`Decisions.compare_job` returns (the editor's reports thread), touching only
its golden set's ``Comparer`` (one job at a time per golden set) and the last comparison of each
golden set, which has a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.owner import Owner
from ..compare import Comparisons
from ..coverage.pool import PoolCache
from ..model import Qrels, Run
from .analysis import Analysis
from .comparing import choose_base, compare_runs
from .derived import Derived
from .judging import pool_of
from .results import QrelsContext, RunResult

if TYPE_CHECKING:
    from ..compare.comparison import Comparer

Job = Callable[[], Analysis]


class Decisions:
    """Comparisons and judging queues of the golden sets whose runs ``derived`` lists."""

    def __init__(self, derived: Derived) -> None:
        self.derived = derived
        self._comparers: dict[Path, Comparer] = {}  # per golden set: resampling kept per edit
        self._latest: dict[Path, Comparisons] = {}  # per golden set: the last comparison made
        self._latest_lock = threading.Lock()  # (written by the jobs, read by the owner)
        self._pools: dict[Path, PoolCache] = {}  # per golden set: each question's unjudged pairs
        self.owner = Owner("the project's decisions")

    def compare(self, analysis: Analysis) -> Analysis:
        """``analysis`` with the comparison of a golden set's runs with its base; for a run
        file, the golden set's comparison, of which the editor shows this run's part (so that
        its p-values are adjusted over the same family as in the golden set)."""
        _staged, job = self.compare_job(analysis)
        return job()

    def compare_job(
        self, analysis: Analysis, pause: Callable[[], object] | None = None
    ) -> tuple[Analysis, Job]:
        """:meth:`compare` in two parts: the runs and the base are gathered now, and
        ``analysis`` is given the golden set's last comparison to show meanwhile (``staged``);
        the job returned makes the comparison (seconds, the first time, at ten thousand
        questions) and touches nothing of the project but the golden set's ``Comparer`` and its
        last comparison. ``pause`` is called between the chunks of a fresh resampling."""
        if analysis.compared:
            return analysis, lambda: analysis
        self.owner.check()
        ctx, runs, base = analysis.context, analysis.runs, analysis.base
        if ctx is not None and isinstance(analysis.model, Run):
            runs = self.derived.golden_runs(ctx, analysis.runs[0] if analysis.runs else None)
            pending = self.derived.baseline_pending(ctx)
            base = choose_base(ctx, runs, baseline_pending=pending).base
        if ctx is None or base is None:
            return analysis, lambda: analysis.with_comparisons(analysis.comparisons, base)
        from ..compare.comparison import Comparer  # numpy: see compare/__init__

        comparer = self._comparers.setdefault(ctx.path, Comparer())
        staged = analysis.with_previous(_still_shown(self.latest(ctx), base, runs))

        def job() -> Analysis:
            made = compare_runs(ctx, runs, base, comparer=comparer, pause=pause)
            with self._latest_lock:
                if made is not None:
                    self._latest[ctx.path] = made
                else:
                    self._latest.pop(ctx.path, None)
            return staged.with_comparisons(made, base)

        return staged, job

    def latest(self, ctx: QrelsContext | None) -> Comparisons | None:
        """The last comparison made of this golden set's runs (shown while the next is made)."""
        if ctx is None:
            return None
        with self._latest_lock:
            return self._latest.get(ctx.path)

    def compared_before(self, ctx: QrelsContext | None) -> bool:
        """Whether a comparison of this golden set's runs has been made (and so is being shown):
        then the editor brings it up to date after each edit without waiting to be asked."""
        return self.latest(ctx) is not None

    def pool(self, analysis: Analysis) -> Analysis:
        """``analysis`` with a golden set's judging queue over its runs (None for a run file,
        and for a golden set with no run to pool). The BM25 baseline is not pooled: it is one of
        the systems compared, and `pool --baseline bm25` adds it on purpose."""
        if analysis.pooled:
            return analysis
        self.owner.check()
        ctx = analysis.context
        if ctx is None or not isinstance(analysis.model, Qrels):
            return analysis.with_pool(None)
        cache = self._pools.setdefault(ctx.path, PoolCache())
        return analysis.with_pool(pool_of(ctx, analysis.runs, cache))

    def clear(self) -> None:
        """Forget every golden set's comparisons and queues (no document is open)."""
        self.owner.check()
        self._comparers.clear()
        self._pools.clear()
        with self._latest_lock:
            self._latest.clear()


def _still_shown(
    previous: Comparisons | None, base: RunResult, runs: Sequence[RunResult]
) -> Comparisons | None:
    """The last comparison, when it compared these runs with this base (by name): a comparison
    of other runs says nothing of these."""
    if previous is None or previous.base != base.name:
        return None
    names = {r.name for r in runs if r is not base and not r.error}
    made = {c.run for c in previous.items}
    return previous if made == names else None
