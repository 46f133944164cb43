"""The derived-runs part of a project: owns the runs made rather than read (the BM25 baseline,
ranked from the corpus; the fused runs a golden set declares) and the one list of a golden set's
runs every view reads (:meth:`Derived.context_runs`).

``warm_baseline`` is the one method another thread than the owner's may call: it touches only the
baseline cache, which has a lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.files import resolve
from ..base.findings import Finding, finding
from ..base.owner import Owner
from ..base.text import Span
from ..formats.corpus import Corpus
from ..fusion import METHODS, Fuser, Fusion, Input
from ..metrics import Evaluation
from ..search.baseline import BASELINE_NAME, BaselineCache
from ..search.indexes import IndexCache
from .comparing import BASELINE_ALIASES, find_run
from .fusing import resolve as resolve_fusion
from .naming import QR121, Clash, distinct
from .pending import Pending
from .results import QrelsContext, RunResult, run_name
from .runs import RunStore
from .scoring import Scoring

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from ..search.bm25 import BM25Index

SMALL_CORPUS = 2000
"""Corpora this small are indexed on the spot (tens of milliseconds); larger ones in the
background (the editor) or when asked (the command line)."""


class Derived:
    """The baseline and fused runs of each golden set, scored by ``scoring``."""

    def __init__(
        self, scoring: Scoring, indexes: IndexCache | None = None, *, build_indexes: bool = False
    ) -> None:
        self.scoring = scoring
        self.runs: RunStore = scoring.runs
        self.config = scoring.config
        self.indexes = indexes if indexes is not None else IndexCache()
        self.build_indexes = build_indexes  # the CLI builds when asked; the editor warms them
        self._baselines = BaselineCache()
        self._fusers: dict[tuple[Path, str], Fuser] = {}  # per golden set and fused run
        self.owner = Owner("the project's derived runs")

    # -- the BM25 baseline ---------------------------------------------------------------------
    def baseline(self, ctx: QrelsContext, *, build: bool = False) -> RunResult | None:
        """The BM25 baseline of a golden set with a corpus; None while its index is not ready
        (the editor builds it in the background; ``build`` builds it now, for the CLI)."""
        if not isinstance(ctx.corpus, Corpus):
            return None
        index = self.indexes.get(ctx.corpus)
        if index is None and (build or len(ctx.corpus) <= SMALL_CORPUS):
            index = self.indexes.build(ctx.corpus)  # small: the first lenses already have it
        if index is None:
            return None
        edit = self.runs.files.edit_of(ctx.path, ctx.qrels)
        rankings, since = self._baselines.rankings(ctx.qrels, index, edit)
        evaluation = self.scoring.evaluate(ctx, rankings, None, since)
        return RunResult(ctx.path, BASELINE_NAME, None, evaluation, None, rankings, baseline=True)

    def baseline_pending(self, ctx: QrelsContext) -> bool:
        """Whether the golden set's BM25 baseline is still to come: it is wanted, its corpus is
        read, and the index is neither ready nor failed (the editor is building it)."""
        corpus = ctx.corpus
        return (
            self.config.bm25_baseline
            and isinstance(corpus, Corpus)
            and len(corpus) > 0
            and self.indexes.pending(corpus)
        )

    def warm_baseline(
        self, index: BM25Index, questions: list[str | None], pause: Callable[[], object]
    ) -> None:
        """Rank a golden set's questions against a new index ahead of the analysis that shows
        the baseline (on the background thread: the baseline cache has a lock)."""
        self._baselines.warm(index, questions, pause)

    # -- every run of a golden set -------------------------------------------------------------
    def golden_runs(
        self,
        ctx: QrelsContext,
        own: RunResult | None = None,
        pending: Pending | None = None,
        problems: list[Finding] | None = None,
    ) -> list[RunResult]:
        """A golden set's runs scored (``own``, the open run file's result, in its place), its
        BM25 baseline when it is ready and its fused runs: what its lenses compare, what `score`
        and `compare` print. With ``pending``, a large run not read yet is left to it instead of
        read now (and what is wrong with a fusion, said in ``problems``, waits for it too)."""
        runs = []
        for p in ctx.run_paths:
            if own is not None and own.path == resolve(p):
                runs.append(own)
                continue
            unread = self.runs.unread(p) if pending is not None else None
            if unread is not None:
                assert pending is not None
                pending.runs.append(unread)
            else:
                runs.append(self.scoring.score_run(ctx, p, fast=True))
        loading = [
            RunResult(p, (fmt.named(text) if fmt.named else None) or run_name(p, None),
                      None, Evaluation(), None, {})
            for p, text, fmt in (pending.runs if pending is not None else ())
        ]  # fmt: skip
        return self.context_runs(
            ctx,
            runs,
            baseline=self.config.bm25_baseline,
            problems=None if loading else problems,
            loading=loading,
        )

    def context_runs(
        self,
        ctx: QrelsContext,
        runs: list[RunResult],
        *,
        baseline: bool,
        problems: list[Finding] | None = None,
        build: bool | None = None,
        loading: Sequence[RunResult] = (),
    ) -> list[RunResult]:
        """``runs`` (scored against ``ctx``), the BM25 baseline when ``baseline`` and it is
        ready, then the fused runs the context declares that can be made from them: the one list
        every view of a golden set's runs reads. What is wrong with a fusion is appended to
        ``problems`` (findings in the golden set); a fusion naming one of ``loading`` (runs still
        being read) waits for it."""
        build = self.build_indexes if build is None else build
        out, clashes = distinct(runs, (BASELINE_NAME,) if baseline else ())
        if problems is not None:
            problems += [clash_finding(ctx, c) for c in clashes]
        shown = self.baseline(ctx, build=build) if baseline else None
        if shown is not None:
            out.append(shown)
        out += self.fused_runs(ctx, out, problems, build=build, loading=loading)
        return out

    def named_runs(
        self, ctx: QrelsContext, problems: list[Finding] | None = None
    ) -> list[RunResult]:
        """The golden set's runs by name, unscored (what ``check`` checks fusions against), and
        its BM25 baseline when it has a corpus (its index is not built for that); names that
        clash are said in ``problems`` (QR121), as the scored list says them."""
        out = []
        for p in ctx.run_paths:
            run, rankings, error, name = self.runs.read_run(p, fast=True)
            out.append(RunResult(resolve(p), name, run, Evaluation(), error, rankings))
        out, clashes = distinct(out, (BASELINE_NAME,) if self.config.bm25_baseline else ())
        if problems is not None:
            problems += [clash_finding(ctx, c) for c in clashes]
        if self.config.bm25_baseline and isinstance(ctx.corpus, Corpus):
            out.append(
                RunResult(ctx.path, BASELINE_NAME, None, Evaluation(), None, {}, baseline=True)
            )
        return out

    # -- fused runs ----------------------------------------------------------------------------
    def fused_runs(
        self,
        ctx: QrelsContext,
        runs: list[RunResult],
        problems: list[Finding] | None = None,
        *,
        build: bool = False,
        make: bool = True,
        loading: Sequence[RunResult] = (),
    ) -> list[RunResult]:
        """The context's fused runs made from ``runs`` (each fusion may name the ones before
        it); ``make=False`` only checks them (``check`` scores nothing)."""
        pool = [r for r in runs if not r.error]
        fused: list[RunResult] = []
        self._forget_fusions(ctx)
        for fusion in ctx.fusions:
            done = resolve_fusion(
                ctx,
                fusion,
                pool,
                self.runs.has_scores,
                lambda: self.baseline(ctx, build=build),
                loading,
            )
            if problems is not None:
                problems.extend(done.findings)
            if done.inputs is None or not make:
                continue
            result = self._fused(ctx, fusion, done.inputs)
            pool.append(result)
            fused.append(result)
        return fused

    def _forget_fusions(self, ctx: QrelsContext) -> None:
        """Drop what was kept for fusions the golden set no longer declares."""
        self.owner.check()
        declared = {f.name for f in ctx.fusions}
        for fuser in [k for k in self._fusers if k[0] == ctx.path and k[1] not in declared]:
            del self._fusers[fuser]
        self.scoring.forget_fusions(ctx.path, declared)

    def _fused(self, ctx: QrelsContext, fusion: Fusion, inputs: tuple[RunResult, ...]) -> RunResult:
        scored = METHODS[fusion.method].needs_scores
        given = [Input(r.rankings, self.run_scores(ctx, r) if scored else None) for r in inputs]
        fuser = self._fusers.setdefault((ctx.path, fusion.name), Fuser())
        done = fuser.fuse(fusion.params, given)
        evaluation = self.scoring.evaluate(ctx, done.rankings, f"fusion {fusion.name}", done.since)
        return RunResult(
            ctx.path,
            fusion.name,
            None,
            evaluation,
            None,
            done.rankings,
            fusion=fusion,
            scores=done.scores,
        )

    def run_scores(self, ctx: QrelsContext, result: RunResult) -> Mapping[str, Sequence[float]]:
        """The scores of ``result``'s rankings, in their order: a fused run's own, the
        baseline's BM25 scores, a run file's (see :meth:`.runs.RunStore.scores`)."""
        if result.fusion is not None:
            return result.scores or {}
        if result.baseline:
            return self._baselines.scores(ctx.qrels, result.rankings)
        return self.runs.scores(ctx, result)

    def fusions_of(self, ctx: QrelsContext, runs: list[RunResult]) -> list[Fusion]:
        """The context's fusions whose runs are all among ``runs`` (runs named on the command
        line): each name is resolved against all of the golden set's runs, so that a fusion
        means the same runs wherever it is made (`bm25` is not the BM25 baseline just because
        the run file named `bm25` was left out). The BM25 baseline is the golden set's own: a
        fusion naming it needs only its other runs."""
        given = {r.path for r in runs if r.from_file}
        every = [
            RunResult(resolve(p), self.runs.name_of(p), None, Evaluation(), None, {})
            for p in ctx.run_paths
        ]
        kept: list[Fusion] = []
        for fusion in ctx.fusions:
            made = {f.name for f in kept}
            for ref in fusion.runs:
                hit = find_run(every, ref.value)
                if hit is not None and hit.path not in given:
                    break
                named = ref.value in made or ref.value.strip().casefold() in BASELINE_ALIASES
                if hit is None and not named:
                    break
            else:
                kept.append(fusion)
        return kept

    def clear(self) -> None:
        """What was made from every golden set (the editor has no document open)."""
        self.owner.check()
        self._fusers.clear()
        self._baselines = BaselineCache()  # (a warm-up still running fills the one it was given)


def clash_finding(ctx: QrelsContext, clash: Clash) -> Finding:
    """QR121 where the golden set names the first of the clashing runs (its `runs:` entry)."""
    first = clash.paths[0]
    span = next(
        (r.span for r in ctx.qrels.runs if first in ctx.run_matches.get(r.value, ())),
        Span(0, 0),
    )
    return finding(QR121, span, clash.message(ctx.path.parent))
