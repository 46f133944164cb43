"""The server's threads, one executor each, named in one place (docs/architecture.md,
"Threads"):

| thread | runs | owns |
| --- | --- | --- |
| event loop (``MainThread``) | every handler, every callback | the session, the client's documents |
| ``qrels-analysis`` | analyses and what reads the project (:meth:`Workers.run`) | the project |
| ``qrels-background`` | long jobs: index builds, large runs read (:meth:`Workers.in_background`) | what a job makes until it hands it back |
| ``qrels-reports`` | comparisons' resampling, reports (:meth:`Workers.report_job`) | each golden set's ``Comparer``, one job at a time |

A job is handed what it needs and gives back a value; the loop puts it in place. The checking
mode of ``core/base/owner.py`` asserts the ownership of the project (its parts say
``qrels-analysis``) and of the session's decisions (``MainThread``).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any, TypeVar

from .gate import Gate, LongJobs

T = TypeVar("T")

LOOP_THREAD = "MainThread"
ANALYSIS_THREAD = "qrels-analysis"
BACKGROUND_THREAD = "qrels-background"
REPORTS_THREAD = "qrels-reports"


class Workers:
    """The three worker threads, and the gate that holds long jobs while keystrokes are
    answered. ``crashed`` is told about a background job that raised."""

    def __init__(self, gate: Gate, crashed: Callable[[str, str], None]) -> None:
        self.gate = gate
        self.long_jobs = LongJobs()
        self._crashed = crashed
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix=ANALYSIS_THREAD)
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix=BACKGROUND_THREAD)
        # Comparisons of runs, on a thread of their own (not behind an index build).
        self._reports = ThreadPoolExecutor(max_workers=1, thread_name_prefix=REPORTS_THREAD)
        self._held: set[asyncio.Future[Any]] = set()  # (asyncio keeps only weak references)

    def analysis(self, fn: Callable[[], T], before: Callable[[], object]) -> asyncio.Future[T]:
        """``fn`` on the analysis thread, after ``before`` (there too); long jobs wait for it
        (see :class:`~.gate.Gate`)."""

        def gated() -> T:
            self.gate.enter()
            try:
                before()
                return fn()
            finally:
                self.gate.leave()

        return asyncio.get_running_loop().run_in_executor(self._analysis, gated)

    def in_background(
        self,
        fn: Callable[[], T],
        done: Callable[[T], None] | None = None,
        failed: Callable[[], None] | None = None,
    ) -> None:
        """A long job on the background thread; ``done`` gets its result on the loop
        (``failed`` is called instead when it raised or was cancelled)."""

        def job() -> T:
            with self.long_jobs.running():
                return fn()

        future = asyncio.get_running_loop().run_in_executor(self._background, job)
        self.hold(future)

        def finished(f: asyncio.Future[T]) -> None:
            if f.cancelled():
                if failed is not None:
                    failed()
                return
            error = f.exception()
            if error is not None:
                self._crashed("a background job failed", "".join(traceback.format_exception(error)))
                if failed is not None:
                    failed()
            elif done is not None:
                done(f.result())

        future.add_done_callback(finished)

    def report_job(self, fn: Callable[[], T], *, long: bool = False) -> asyncio.Future[T]:
        """``fn`` on the reports thread; ``long``: it steps aside while keystrokes are answered
        (a comparison's resampling)."""

        def job() -> T:
            with self.long_jobs.running() if long else nullcontext():
                return fn()

        return asyncio.get_running_loop().run_in_executor(self._reports, job)

    def hold(self, future: asyncio.Future[Any]) -> None:
        """Keep ``future`` (a task on the loop, a job) alive until it ends."""
        self._held.add(future)
        future.add_done_callback(self._held.discard)

    def shutdown(self) -> None:
        for pool in (self._analysis, self._background, self._reports):
            pool.shutdown(wait=False, cancel_futures=True)
