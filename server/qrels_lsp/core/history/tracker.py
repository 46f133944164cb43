"""A golden set's history in the editor (docs/history.md, "In the editor"): the golden set and
its runs as the base revision (the ``diff_base`` setting) holds them, compared with the buffer
and the runs as they are, kept up to date between keystrokes.

Of the four evaluations each run's change is made of, the base's (``e00``: the old run on the
old golden set) and the new run's on the old golden set (``e10``) are made once per base and
run text; the analysis already holds the new run's on the new golden set (``e11``); the old
run's on the new golden set (``e01``) goes through a score cache, which after an edit of one
entry re-scores that question only. The golden set's changes after such an edit compare that
question again; the questions' parts (kept for the head metric, the one the lenses show) are
worked out again for the questions whose values changed. So a keystroke costs the edited
question, whatever the size of the golden set.

The base is resolved once (git: ``git.py``) and again when a file under ``.git`` changes (a
commit, a checkout: ``forget``); a folder outside any checkout is remembered as such, and git is
not asked again on every keystroke.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..formats import detect, parse_as
from ..metrics import Evaluation, Metric, ScoreCache
from ..model import EntryEdit, Qrels
from ..project.config import Config, QrelsBinding
from .attribution import (
    Change,
    Evaluations,
    Part,
    Prepared,
    Rankings,
    Scoring,
    metric_pairs,
    moved,
    question_keys,
    score,
    split,
)
from .changes import GoldenChanges, changes_after_edit, golden_changes
from .diff import History, RunHistory
from .git import AUTO, GitError, Repository, Revision
from .versions import context_scoring, scoring_of, settings

if TYPE_CHECKING:
    from ..project.results import QrelsContext, RunResult


class Sources(Protocol):
    """What a tracker reads of its project (``core/project/histories.py``)."""

    @property
    def config(self) -> Config: ...

    @property
    def lens_metrics(self) -> bool: ...

    def binding(self, path: Path) -> QrelsBinding | None: ...

    def rankings(self, path: Path) -> Rankings:
        """A run's rankings as its file gives them (before a chunk rule maps them)."""
        ...


@dataclass(slots=True)
class _Base:
    """The base revision, its golden set and how scoring reads it."""

    setting: str
    repo: Repository | None = None
    revision: Revision | None = None
    problem: str | None = None  # why there is none
    old: Qrels | None = None
    before: Scoring | None = None


@dataclass(slots=True)
class _Run:
    """One run's evaluations and its head metric's moved questions, as last made."""

    commit: str = ""
    raw0: Rankings | None = None
    note: str | None = None
    e00: Evaluation | None = None
    e10: tuple[Rankings, Evaluation] | None = None
    cache: ScoreCache = field(default_factory=ScoreCache)
    prepared: Prepared = field(default_factory=Prepared)
    last: tuple[Evaluations, tuple[tuple[str, str], ...], dict[str, Part]] | None = None
    read: tuple[Rankings, Rankings] | None = None  # (the rankings scored, as read) by chunks


class Tracker:
    """One golden set's history, kept between analyses (``Histories.history``)."""

    def __init__(self) -> None:
        self._base: _Base | None = None
        self._runs: dict[Path, _Run] = {}
        self._changes: tuple[Qrels, GoldenChanges] | None = None
        self.lineage = 0  # bumped whenever the history is made whole again
        self._recheck = False  # resolve the base again (it is kept if it names the same commit)

    def forget(self) -> None:
        """The repository may have moved (a commit, a checkout): the base is resolved again at
        the next history, and what was made for it is kept if it is the same commit."""
        self._recheck = True

    def history(
        self,
        project: Sources,
        ctx: QrelsContext,
        runs: Sequence[RunResult],
        edit: EntryEdit | None,
    ) -> History | None:
        """The history of the golden set ``ctx`` analyses since the base; None when it has
        none (no git checkout, the automatic base cannot be found, the setting is off)."""
        setting = project.config.diff_base
        if setting is None:
            return None
        base = self._resolve(project, ctx, setting)
        if base.problem is not None or base.old is None or base.before is None:
            if base.problem is None or setting == AUTO:
                return None
            return History(setting, ctx.path.name, GoldenChanges(), (), 0, 0, problem=base.problem)
        assert base.revision is not None
        after = context_scoring(ctx)
        found = self._golden_changes(base.old, ctx.qrels, edit, base.before, after)
        pairs = metric_pairs(base.before.metrics, after.metrics)
        head = _head(pairs, ctx.k)
        histories = []
        for r in runs:
            if r.from_file and r.error is None:
                histories.append(self._run(project, base, r, after, pairs, head, found, edit))
        n_before = len(base.before.grades) - len(base.before.unanswerable)
        n_after = len(ctx.grades) - len(ctx.unanswerable)
        return History(
            base.revision.label,
            ctx.path.name,
            found,
            tuple(histories),
            n_before,
            n_after,
            lineage=self.lineage,
        )

    def _resolve(self, project: Sources, ctx: QrelsContext, setting: str) -> _Base:
        base = self._base
        if base is not None and base.setting == setting and self._same_base(base):
            return base
        self.lineage += 1
        self._runs.clear()
        self._changes = None
        base = self._base = _Base(setting)
        try:
            base.repo = Repository.of(ctx.path)
            base.revision = base.repo.base(setting)
            text, _problem = base.repo.read(base.revision.commit, ctx.path)
        except GitError as exc:
            base.problem = str(exc)
            return base
        parsed = parse_as(ctx.kind, text) if text is not None else None
        base.old = parsed if isinstance(parsed, Qrels) else Qrels(format=ctx.qrels.format)
        binding = project.binding(ctx.path)
        base.before = scoring_of(base.old, binding, project.config, lens=project.lens_metrics)
        return base

    def _same_base(self, base: _Base) -> bool:
        """False when the base must be made again: asked to look, and it names another commit
        now (or git cannot say); True when it is still the one the history was made for."""
        if not self._recheck:
            return True
        self._recheck = False
        if base.repo is None or base.revision is None:
            return False
        try:
            return base.repo.base(base.setting).commit == base.revision.commit
        except GitError:
            return False

    def _golden_changes(
        self, old: Qrels, new: Qrels, edit: EntryEdit | None, before: Scoring, after: Scoring
    ) -> GoldenChanges:
        last = self._changes
        if last is not None and last[0] is new:
            return last[1]
        said = settings(old, new, before, after)
        if last is not None and edit is not None and edit.before is last[0]:
            found = changes_after_edit(last[1], old, new, edit.qid, said)
        else:
            found = golden_changes(old, new, said)
        self._changes = (new, found)
        return found

    def _run(
        self,
        project: Sources,
        base: _Base,
        r: RunResult,
        after: Scoring,
        pairs: list[tuple[Metric, Metric]],
        head: int,
        found: GoldenChanges,
        edit: EntryEdit | None,
    ) -> RunHistory:
        assert base.revision is not None and base.before is not None
        state = self._runs.setdefault(r.path, _Run())
        raw1 = _as_read(project, r, after, state)
        raw0 = self._old_rankings(project, base, state, r.path, raw1)
        ev = self._evaluations(state, base.before, after, raw0, raw1, r.evaluation)
        renamed = found.renamed
        m0, m1 = pairs[head] if pairs else (None, None)
        questions: dict[str, Part] = {}
        if m0 is not None and m1 is not None:
            questions = _questions(state, ev, m0, m1, renamed, found.old_id, edit)
        state.last = (ev, renamed, questions)
        out = []
        for i, (a, b) in enumerate(pairs):
            mean = split(ev.e00.mean.get(str(a)), ev.e01.mean.get(str(b)),
                         ev.e10.mean.get(str(a)), ev.e11.mean.get(str(b)))  # fmt: skip
            kept = questions if i == head else {}
            n0, n1 = ev.e00.n_queries, ev.e11.n_queries
            out.append(Change(r.name, str(b), str(a), mean, n0, n1, kept))
        return RunHistory(r.name, tuple(out), state.note)

    def _old_rankings(
        self, project: Sources, base: _Base, state: _Run, path: Path, raw1: Rankings
    ) -> Rankings:
        """The run as the base holds it (this one when the base has none)."""
        assert base.repo is not None and base.revision is not None
        commit = base.revision.commit
        if state.commit == commit and state.raw0 is not None:
            return state.raw0 if state.note is None else raw1
        state.commit, state.e00, state.e10, state.last = commit, None, None, None
        text, problem = base.repo.read(commit, path)
        fmt = detect(path, text, project.config, "run") if text is not None else None
        if text is None or fmt is None or fmt.read_rankings is None:
            why = problem or "not a run"
            state.raw0 = {}
            state.note = f"not read from {base.revision.label} ({why}): compared as it is now"
            return raw1
        state.raw0, state.note = fmt.read_rankings(text), None
        return state.raw0

    def _evaluations(
        self,
        state: _Run,
        before: Scoring,
        after: Scoring,
        raw0: Rankings,
        raw1: Rankings,
        e11: Evaluation,
    ) -> Evaluations:
        if raw0 is raw1:  # one version of the run: two evaluations
            if state.e00 is None or state.e10 is None or state.e10[0] is not raw1:
                state.e00 = score(before, raw1, prepared=state.prepared)
                state.e10 = (raw1, state.e00)
            return Evaluations(state.e00, e11, state.e00, e11)
        if state.e00 is None:
            state.e00 = score(before, raw0, prepared=state.prepared)
        if state.e10 is None or state.e10[0] is not raw1:
            state.e10 = (raw1, score(before, raw1, prepared=state.prepared))
        e01 = score(after, raw0, state.cache, state.prepared)
        return Evaluations(state.e00, e01, state.e10[1], e11)


def _as_read(project: Sources, r: RunResult, after: Scoring, state: _Run) -> Rankings:
    """The run's rankings as its file gives them: those scored, unless a chunk rule mapped
    them to documents (then read again, once per mapped rankings)."""
    if after.chunks is None:
        return r.rankings
    if state.read is None or state.read[0] is not r.rankings:
        state.read = (r.rankings, project.rankings(r.path))
    return state.read[1]


def _head(pairs: Sequence[tuple[Metric, Metric]], k: int) -> int:
    """The pair of the head metric (recall@k, the lenses' first number), else the first."""
    names = [str(b) for _, b in pairs]
    wanted = f"recall@{k}"
    return names.index(wanted) if wanted in names else 0


def _derived(now: Evaluation, last: Evaluation) -> frozenset[str] | None:
    """The questions ``now`` re-scored since ``last`` (None: it was made afresh)."""
    if now is last:
        return frozenset()
    since = now.since
    if since is None or since.base is not last.per_query:
        return None
    return since.keys


def _questions(
    state: _Run,
    ev: Evaluations,
    m0: Metric,
    m1: Metric,
    renamed: tuple[tuple[str, str], ...],
    old_id: Callable[[str], str],
    edit: EntryEdit | None,
) -> dict[str, Part]:
    """The head metric's moved questions: those the edit and the re-scoring touched worked
    out again when the rest is as it was, else every question."""
    last = state.last
    keys: set[str] | None = None
    if last is not None and last[1] == renamed:
        was = last[0]
        d01, d11 = _derived(ev.e01, was.e01), _derived(ev.e11, was.e11)
        same = ev.e00 is was.e00 and ev.e10 is was.e10
        if same and d01 is not None and d11 is not None:
            keys = set(d01 | d11)
            if edit is not None:
                keys.add(edit.qid)
    if keys is None:
        return moved(ev, m0, m1, question_keys(ev, old_id), old_id)
    assert last is not None
    out = dict(last[2]) if keys else last[2]
    for key in keys:
        out.pop(key, None)
    out.update(moved(ev, m0, m1, keys, old_id))
    return out
