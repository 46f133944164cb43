"""The scoring part of a project: owns each run's evaluation against each golden set and what
keeps it cheap after an edit (a score cache per golden set and run, the chunk mapping of a run of
chunks), and scores a TREC run too large to hold as it is read.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..base.files import read_regular, resolve
from ..base.owner import Owner
from ..base.text import decode
from ..chunks import ChunkedRankings, documents, mapper
from ..formats import detect, trec_run
from ..formats.trec_stream import StreamStats, stream_rankings
from ..metrics import Evaluation, ScoreCache, Since, evaluate, evaluate_stream
from ..model import Run
from .comparing import find_run
from .results import QrelsContext, RunResult, run_name
from .runs import RunStore, read_as, why

HEAD_BYTES = 1 << 16  # what content detection of a streamed run reads

RunKey = Path | str | None
"""Whose scores: a run file's path, a fused run's name, None for the BM25 baseline."""


class Scoring:
    """Evaluations of the runs ``runs`` reads, kept per golden set and run."""

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs
        self.config = runs.config
        self._caches: dict[tuple[Path, RunKey], ScoreCache] = {}
        self._chunked: dict[Path, ChunkedRankings] = {}  # per run: its rankings of documents
        self.owner = Owner("the project's scores")

    def score_run(self, ctx: QrelsContext, path: Path, *, fast: bool = False) -> RunResult:
        """Score one run file. ``fast`` reads a TREC run without spans or findings (the CLI's
        ``score`` on a million-line run needs the ranking, not the editor's model), and
        streams one larger than the run store's ``stream_over`` bytes."""
        if fast and self.runs.stream_over is not None:
            streamed = self._streamed(ctx, path)
            if streamed is not None:
                return streamed
        run, rankings, error, name = self.runs.read_run(path, fast=fast)
        return self.scored(ctx, path, run, rankings, error, name)

    def scored(
        self,
        ctx: QrelsContext,
        path: Path,
        run: Run | None,
        rankings: dict[str, list[str]],
        error: str | None,
        name: str,
    ) -> RunResult:
        if ctx.chunks is not None:
            self.owner.check()
            chunked = self._chunked.setdefault(resolve(path), ChunkedRankings())
            rankings = chunked.of(rankings, ctx.chunks)
        evaluation = self.evaluate(ctx, rankings, path)
        return RunResult(resolve(path), name, run, evaluation, error, rankings)

    def evaluate(
        self,
        ctx: QrelsContext,
        rankings: dict[str, list[str]],
        run: RunKey,
        since: Since | None = None,
    ) -> Evaluation:
        """A run's scores, through its own score cache (none for a cut run: the command line
        evaluates it once)."""
        if ctx.cut is not None:
            rankings = ctx.cut.apply(rankings, ctx.grades)
            return evaluate(
                ctx.grades, rankings, ctx.metrics, level=ctx.level, unanswerable=ctx.unanswerable
            )
        return evaluate(
            ctx.grades,
            rankings,
            ctx.metrics,
            level=ctx.level,
            unanswerable=ctx.unanswerable,
            cache=self._cache(ctx.path, run),
            qrels_since=ctx.grades_since,
            run_since=since,
        )

    def _cache(self, golden: Path, run: RunKey) -> ScoreCache:
        self.owner.check()
        key = (resolve(golden), resolve(run) if isinstance(run, Path) else run)
        return self._caches.setdefault(key, ScoreCache())

    def _streamed(self, ctx: QrelsContext, path: Path) -> RunResult | None:
        """A TREC run larger than ``stream_over``, scored as it is read, a block of queries at
        a time (:mod:`..formats.trec_stream`); None for any other file (read whole)."""
        limit = self.runs.stream_over
        if limit is None or not self.runs.files.boundary.allows(path) or fused_input(ctx, path):
            return None
        try:
            if os.stat(path).st_size <= limit:
                return None
        except (OSError, ValueError):
            return None
        head, _ = read_regular(path, HEAD_BYTES)
        if head is None:
            return None
        text = decode(head, keep_bytes=True)[0]
        text = text[: text.rfind("\n") + 1] or text  # whole lines, for content detection
        if detect(path, text, self.config, "run") is not trec_run.FORMAT:
            return None
        stats = StreamStats()
        stream = stream_rankings(path, stats, chunk_bytes=limit)
        if ctx.chunks is not None:  # chunks to documents, a query at a time
            doc_of = mapper(ctx.chunks)
            stream = ({q: documents(r, doc_of) for q, r in part.items()} for part in stream)
        if ctx.cut is not None:
            stream = ctx.cut.stream(stream, ctx.grades)
        evaluation = evaluate_stream(
            ctx.grades, stream, ctx.metrics, level=ctx.level, unanswerable=ctx.unanswerable
        )
        self.runs.streams[resolve(path)] = stats
        error = stats.error
        if error is None and not stats.queries:
            error = f"{read_as(trec_run.FORMAT.name)}, it holds no ranking" + why(stats.dropped)
        return RunResult(resolve(path), run_name(path, None), None, evaluation, error)

    def forget_fusions(self, golden: Path, declared: set[str]) -> None:
        """Drop the score caches of fused runs the golden set no longer declares (each
        keystroke in a fusion's `name:` made a new one, with a score of every question)."""
        self.owner.check()
        golden = resolve(golden)
        for key in list(self._caches):
            run = key[1]
            fused = isinstance(run, str) and run.removeprefix("fusion ") not in declared
            if key[0] == golden and fused:
                del self._caches[key]

    def forget(self, path: Path) -> None:
        self.owner.check()
        self._chunked.pop(path, None)

    def clear(self) -> None:
        self.owner.check()
        self._caches.clear()
        self._chunked.clear()


def fused_input(ctx: QrelsContext, path: Path) -> bool:
    """Whether a fusion of the golden set names the run at ``path`` (by its file name, as
    `runs:` entries are matched): a fused run needs its rankings, which a streamed run does not
    keep."""
    if not ctx.fusions:
        return False
    probe = [RunResult(resolve(path), run_name(path, None), None, Evaluation(), None, {})]
    return any(find_run(probe, ref.value) is not None for f in ctx.fusions for ref in f.runs)
