"""The histories part of a project: owns each golden set's history since the ``diff_base``
revision (a :class:`~..history.tracker.Tracker` per golden set: the base resolved through git,
the evaluations kept so that a keystroke re-scores the edited question only) and makes it, on
demand like a judging queue, as a new value of an :class:`.analysis.Analysis`.

It reads the configuration, the ``[[qrels]]`` tables (``Links``) and the runs as their files give
them (``RunStore``); a commit or a checkout (a ref under ``.git`` changed) has every base
resolved again, a golden set saved its own (docs/history.md, "In the editor").
"""

from __future__ import annotations

from pathlib import Path

from ..base.owner import Owner
from ..history.attribution import Rankings
from ..history.tracker import Tracker
from ..model import Qrels
from .analysis import Analysis
from .config import Config, QrelsBinding
from .contexts import Contexts
from .runs import RunStore


class Histories:
    """The history of each golden set the editor shows; what a tracker reads of the project
    (:class:`~..history.tracker.Sources`)."""

    def __init__(self, contexts: Contexts, runs: RunStore) -> None:
        self.contexts = contexts
        self.runs = runs
        self._trackers: dict[Path, Tracker] = {}  # each golden set's history since its base
        self.owner = Owner("the project's histories")

    @property
    def config(self) -> Config:
        return self.contexts.config

    @property
    def lens_metrics(self) -> bool:
        return self.contexts.lens_metrics

    def binding(self, path: Path) -> QrelsBinding | None:
        return self.contexts.links.binding(path)

    def rankings(self, path: Path) -> Rankings:
        """A run's rankings as its file gives them (before a chunk rule maps them)."""
        return self.runs.read_run(path, fast=True)[1]

    def history(self, analysis: Analysis) -> Analysis:
        """``analysis`` with its golden set's history since the base revision (None for a run
        file, outside a git checkout, with ``diff_base`` off), kept up to date between
        keystrokes."""
        if analysis.diffed:
            return analysis
        ctx = analysis.context
        if ctx is None or not isinstance(analysis.model, Qrels):
            return analysis.with_history(None)
        self.owner.check()
        tracker = self._trackers.setdefault(ctx.path, Tracker())
        return analysis.with_history(tracker.history(self, ctx, analysis.runs, analysis.edit))

    def forget(self, path: Path) -> None:
        """A file changed: a ref under ``.git`` (a commit, a checkout) may have moved every base,
        a golden set saved its own (a worktree's commits are not watched); a base that still
        names the same commit keeps what was made for it."""
        self.owner.check()
        refs = path.name in ("HEAD", "packed-refs") or "refs" in path.parts
        if ".git" in path.parts and refs:
            for tracker in self._trackers.values():
                tracker.forget()
        elif path in self._trackers:
            self._trackers[path].forget()

    def clear(self) -> None:
        """Forget every golden set's history (no document is open)."""
        self.owner.check()
        self._trackers.clear()
