"""What is decided for the analyses the editor is shown: each golden set's comparison of runs
(made on the reports thread), its judging queue and its history since the base revision (on the
analysis thread), and the newest value of each analysis.

An :class:`~..core.project.analysis.Analysis` is never changed once published: a comparison or
a queue made for it is a new value, which :meth:`Decided.decide` puts where the old one was (the
session's snapshot of its document) and remembers, so that a handler still holding the old value
is handed the new one (:meth:`Decided.newest`). Owned by the event loop: every method here runs
on it (the checking mode of ``core/base/owner.py`` asserts it).
"""

from __future__ import annotations

import asyncio
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..core.base.owner import Owner
from ..core.project.analysis import Analysis

if TYPE_CHECKING:
    from .session import Session

Change = Callable[[Analysis], Analysis]
KEPT = 256
"""Lineages remembered (old value -> new): a handler holds an analysis for one request."""


@dataclass(slots=True)
class Job:
    """A comparison under way: what it was asked for, the value shown meanwhile, its future."""

    analysis: Analysis
    staged: Analysis
    future: asyncio.Future[Analysis]
    gave_up: list[bool] = field(default_factory=list)  # someone stopped waiting: refresh then


class Decided:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._jobs: dict[int, Job] = {}  # by id of the analysis asked for
        self._next: OrderedDict[int, tuple[Analysis, Analysis]] = OrderedDict()
        self.owner = Owner("the session's decisions", "MainThread")

    # -- new values in place of old ones -------------------------------------------------------
    def newest(self, analysis: Analysis) -> Analysis:
        """``analysis`` as it now stands: with what was decided for it since."""
        self.owner.check()
        seen = 0
        while seen < KEPT:
            hop = self._next.get(id(analysis))
            if hop is None or hop[0] is not analysis:
                return analysis
            analysis, seen = hop[1], seen + 1
        return analysis

    def decide(self, analysis: Analysis, change: Change) -> Analysis:
        """Apply ``change`` to the newest value of ``analysis``, and put the result where that
        value was: the one place an analysis is replaced."""
        old = self.newest(analysis)
        new = change(old)
        if new is old:
            return old
        self._next[id(old)] = (old, new)
        while len(self._next) > KEPT:
            self._next.popitem(last=False)
        snapshots = self.session.snapshots
        for uri, snapshot in list(snapshots.items()):
            if snapshot.analysis is old:
                snapshots[uri] = replace(snapshot, analysis=new)
        return new

    # -- comparisons ---------------------------------------------------------------------------
    async def compared(
        self, analysis: Analysis, wait: float | None = None, stale_wait: float | None = None
    ) -> Analysis:
        """``analysis`` with its comparison of runs, made on the reports thread (the first one
        takes seconds at ten thousand questions, and a keystroke's analysis must not wait behind
        it). With ``wait``, give up waiting after that many seconds: the value returned then
        says it is not compared yet, and the editor's views are refreshed when it is. With
        ``stale_wait``, wait that long instead when the golden set's last comparison can be
        shown meanwhile (``previous``, marked as being updated), or when one for an earlier
        text is still being made (the first, at a hundred thousand questions, takes a while)."""
        analysis = self.newest(analysis)
        if analysis.compared or analysis.context is None:
            return analysis
        job = await self._job(analysis)
        if job is None:
            return self.newest(analysis)
        if stale_wait is not None and (job.staged.previous is not None or self._busy(analysis)):
            wait = stale_wait
        try:
            await asyncio.wait_for(asyncio.shield(job.future), wait)
        except asyncio.TimeoutError:
            job.gave_up.append(True)
        return self.newest(analysis)

    def _busy(self, analysis: Analysis) -> bool:
        """Whether the golden set's comparison for an earlier text is still being made: a lens
        request has already waited for it (and said `comparing with …`), so the next keystroke's
        lenses are not held for it again."""
        ctx = analysis.context
        return ctx is not None and any(
            job.analysis.path == analysis.path
            and job.analysis.text is not analysis.text
            and job.analysis.text != analysis.text  # (asked again for the same text: it waits)
            and job.analysis.context is not None
            and job.analysis.context.path == ctx.path
            for job in self._jobs.values()
        )

    def _find(self, analysis: Analysis) -> Job | None:
        """The comparison under way for ``analysis`` (asked for it, or for a value it was made
        from)."""
        return next((j for j in self._jobs.values() if self.newest(j.analysis) is analysis), None)

    async def _job(self, analysis: Analysis) -> Job | None:
        """The job making ``analysis``'s comparison, started if it is not under way; None when
        it is already made."""
        job = self._find(analysis)
        if job is not None:
            return job
        session = self.session
        decisions = session.project.decisions
        gathered, make = await session.run(
            lambda: decisions.compare_job(analysis, session.yield_to_keystrokes)
        )
        job = self._find(analysis)  # (another request started it meanwhile)
        if job is not None or self.newest(analysis).compared:
            return job
        previous = gathered.previous
        staged = self.decide(analysis, lambda a: a.with_previous(previous))
        key = id(analysis)
        job = self._jobs[key] = Job(analysis, staged, session.workers.report_job(make, long=True))
        job.future.add_done_callback(lambda f: self._finished(key, f))
        return job

    def _finished(self, key: int, future: asyncio.Future[Analysis]) -> None:
        job = self._jobs.pop(key, None)
        if future.cancelled() or self.session.closed or job is None:
            return
        error = future.exception()
        if error is not None:
            trace = "".join(traceback.format_exception(error))
            self.session.client.report_crash("comparing runs failed", trace)
            return
        made = future.result()
        self.decide(job.analysis, lambda a: a.with_comparisons(made.comparisons, made.base))
        if job.gave_up:
            self.session.client.refresh_views()

    def compare_ahead(self, analysis: Analysis) -> None:
        """Bring a golden set's comparison up to date as soon as an edit is analysed, when one is
        being shown: the lens request that follows the diagnostics then finds it made (an
        update after an edit takes milliseconds) instead of starting it."""
        decisions = self.session.project.decisions
        if analysis.compared or not decisions.compared_before(analysis.context):
            return
        self.session.spawn(self._job(analysis))

    # -- judging queues and histories ---------------------------------------------------------
    async def pooled(self, analysis: Analysis) -> Analysis:
        """``analysis`` with its judging queue, made on the analysis thread."""
        decisions = self.session.project.decisions
        return await self._made(
            analysis, lambda a: a.pooled, decisions.pool, lambda a, m: a.with_pool(m.pool)
        )

    async def diffed(self, analysis: Analysis) -> Analysis:
        """``analysis`` with its golden set's history since the base revision, made on the
        analysis thread (git is asked there, once per base)."""
        histories = self.session.project.histories
        return await self._made(
            analysis, lambda a: a.diffed, histories.history, lambda a, m: a.with_history(m.history)
        )

    async def shown(self, analysis: Analysis) -> Analysis:
        """``analysis`` with its judging queue and its history, what lenses and hovers show: one
        trip to the analysis thread (a burst of lens requests each queueing two would hold the
        first one's answer behind the others')."""
        project = self.session.project

        def make(a: Analysis) -> Analysis:
            return project.histories.history(project.decisions.pool(a))

        def keep(a: Analysis, made: Analysis) -> Analysis:
            return a.with_pool(made.pool).with_history(made.history)

        return await self._made(analysis, lambda a: a.pooled and a.diffed, make, keep)

    async def _made(
        self,
        analysis: Analysis,
        done: Callable[[Analysis], bool],
        make: Change,
        keep: Callable[[Analysis, Analysis], Analysis],
    ) -> Analysis:
        """The newest value of ``analysis`` with what ``make`` makes of it on the analysis
        thread (unless ``done`` says it has it), ``keep`` taking that part of it into the value
        that is newest when it is made."""
        analysis = self.newest(analysis)
        if done(analysis):
            return analysis
        made = await self.session.run(lambda: make(analysis))
        return self.decide(analysis, lambda a: keep(a, made))
