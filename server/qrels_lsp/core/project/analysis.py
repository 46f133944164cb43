"""What one file is, analysed in its project: the value the parts of a project make for the views
(the editor's, the command line's), immutable once made."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.findings import Finding
from ..model import EntryEdit, FileKind, Qrels, Run
from .pending import Pending
from .results import QrelsContext, RunResult

if TYPE_CHECKING:
    from ..compare import Comparisons
    from ..coverage.pool import Pool
    from ..history.diff import History


@dataclass(frozen=True, slots=True)
class Analysis:
    """One file analysed in its project: what the CLI prints and the server shows. Published
    as it is: what is made of it later (its comparison, its judging queue) is a new value, made
    by :class:`.decisions.Decisions` and put in its place by the one who keeps it (the editor's
    session, per document)."""

    path: Path
    kind: FileKind
    text: str
    findings: list[Finding]
    model: Qrels | Run
    context: QrelsContext | None = None  # the golden set this file is, or that this run answers
    runs: list[RunResult] = field(default_factory=list)
    edit: EntryEdit | None = None  # the edit of one entry that made ``model`` from the last one
    base: RunResult | None = None  # the run the others are compared with (a golden set's)
    # Made on demand (`Decisions.compare`): resampling ten thousand questions is not for every
    # keystroke's diagnostics, only for what shows the comparison.
    comparisons: Comparisons | None = None
    compared: bool = False
    # Until then, the golden set's last comparison, made for an earlier text (``compare_job``):
    # what the editor shows, marked as being brought up to date, rather than waiting for it.
    previous: Comparisons | None = None
    # The judging queue of a golden set's runs, made on demand too (`Decisions.pool`).
    pool: Pool | None = None
    pooled: bool = False
    # What changed since the base revision, and why each number moved (`Histories.history`).
    history: History | None = None
    diffed: bool = False
    # Runs not read yet (their file names), and what is left to read: a deferred analysis
    # (``Project.analyse(defer=True)``) shows the golden set's own findings at once.
    loading: list[str] = field(default_factory=list)
    pending: Pending | None = None
    waiting: str | None = None  # the base its comparison waits for (the BM25 index is building)

    def changed_since(self, last: Analysis) -> frozenset[str] | None:
        """The queries whose entry or numbers may differ from ``last``'s, when this analysis was
        made from it by an edit of one entry (every other query and its numbers are then as they
        were, and so are their lines and columns if the file has as many lines: the caller checks
        that); None when more may have changed.

        What an editor shows for ten thousand questions can then be updated for one."""
        if self.model is last.model:
            changed: set[str] = set()
        elif self.edit is not None and self.edit.before is last.model:
            changed = {self.edit.qid}
        else:
            return None
        if [(r.path, r.name) for r in self.runs] != [(r.path, r.name) for r in last.runs]:
            return None
        if self.loading != last.loading:
            return None
        for now, before in zip(self.runs, last.runs, strict=True):
            ev, was = now.evaluation, before.evaluation.per_query
            if ev.per_query is was:
                continue
            if ev.since is None or ev.since.base is not was:
                return None
            changed |= ev.since.keys
        return frozenset(changed)

    def with_previous(self, previous: Comparisons | None) -> Analysis:
        """This analysis showing ``previous`` (the golden set's last comparison, for an earlier
        text) until its own is made."""
        return self if previous is self.previous else replace(self, previous=previous)

    def with_comparisons(self, made: Comparisons | None, base: RunResult | None) -> Analysis:
        """This analysis with its comparison made (None: nothing to compare)."""
        return replace(self, comparisons=made, compared=True, base=base)

    def with_pool(self, pool: Pool | None) -> Analysis:
        """This analysis with its judging queue made (None: no run to pool)."""
        return replace(self, pool=pool, pooled=True)

    def with_history(self, history: History | None) -> Analysis:
        """This analysis with its history since the base revision made (None: it has none)."""
        return replace(self, history=history, diffed=True)
