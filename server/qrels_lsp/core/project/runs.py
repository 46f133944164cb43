"""The runs part of a project: owns what is read of each run file for scoring (its rankings,
read without spans where the format allows, once per text; its scores; what a streamed TREC run
left out) and says why a file cannot be scored.

A golden set needs its runs' rankings, not their span models (a TREC run of a million lines would
be a million objects): the run's own file, when opened, has those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..base.files import TOO_LARGE, resolve
from ..base.findings import Finding, dropping
from ..base.owner import Owner
from ..chunks import mapper, scored_documents
from ..formats import detect, get
from ..formats.format import Format, Role
from ..formats.trec_stream import StreamStats, all_taken
from ..model import FileKind, Run
from .files import Files
from .pending import DEFER_CHARS, Loaded, Pending, RunReading, read_pending
from .results import QrelsContext, RunResult, run_name

NOT_A_RUN = "not a run file"

Rankings = dict[str, list[str]]


class RunStore:
    """Runs read through ``files``, kept per file until it changes."""

    def __init__(self, files: Files, *, stream_over: int | None = None) -> None:
        self.files = files
        self.config = files.config
        # TREC runs larger than this are scored as they are read (the command line; the editor
        # holds every file it reads, up to the cap of base/files.py).
        self.stream_over = stream_over
        self._fast: dict[Path, tuple[str, Rankings, str | None]] = {}
        self._rankings: dict[Path, tuple[Run, Rankings]] = {}
        self._scores: dict[Path, tuple[object, object, dict[str, list[float]]]] = {}
        self.streams: dict[Path, StreamStats] = {}  # what each streamed run read (scoring's)
        self.owner = Owner("the project's runs")

    def read_run(self, path: Path, *, fast: bool) -> tuple[Run | None, Rankings, str | None, str]:
        """A run's (model, rankings, why it cannot be scored, name): a file that cannot be
        read, is no run, or reads as no ranking is an error that names the format it was read
        as."""
        if fast:
            text, _ = self.files.read(path)
            fmt = detect(path, text, self.config, "run") if text is not None else None
            if text is not None and fmt is not None and fmt.read_rankings is not None:
                rankings, named = self._fast_rankings(path, text, fmt)
                if rankings:
                    return None, rankings, None, named or run_name(path, None)
                # Nothing read: the spans model below says why.
        kind, text, model, error = self.files.load(path, role="run")
        run = model if isinstance(model, Run) else None
        if run is None and error is None:
            error = f"{NOT_A_RUN} ({read_as(kind)})"
        elif run is not None and not run.rankings and text is not None:
            # (an empty file too: trec_eval refuses it, and a table of zeros would hide it)
            why_ = why(run.findings) if text else " (the file is empty)"
            error = f"{read_as(kind)}, it holds no ranking" + why_
        elif error is not None and error.startswith(TOO_LARGE) and self.stream_over is None:
            error += (
                ", more than the editor holds of a file; `qrels-lsp score` and `compare` read a "
                "TREC run of any size"
            )
        return run, self.ranked_ids(path, run), error, run_name(path, run)

    def name_of(self, path: Path) -> str:
        """A run's name without scoring it (a run YAML is read for its `name:`)."""
        if path.suffix.lower() not in (".yaml", ".yml"):
            return run_name(path, None)
        _kind, _text, model, _error = self.files.load(path, role="run")
        return run_name(path, model if isinstance(model, Run) else None)

    def runid(self, result: RunResult) -> str:
        """A run's own name as trec_eval prints it (runid): a TREC run's tag column, else
        the name qrels-lsp gives it."""
        if not result.from_file:
            return result.name
        streamed = self.streams.get(result.path)
        if streamed is not None:
            return streamed.tag or result.name
        text, _ = self.files.read(result.path)
        fmt = detect(result.path, text, self.config, "run") if text is not None else None
        tag = fmt.run_tag(text) if text is not None and fmt is not None and fmt.run_tag else None
        return tag or result.name

    def dropped(self, path: Path, role: Role, entries: int | None = None) -> list[Finding]:
        """The findings that say part of a file is left out of its scores (a malformed line, a
        duplicate, an id of the wrong type). ``entries``: how many judgments or ranked ids a
        span-free reader took; when a file of one entry per line has no more lines than that
        (or its format knows it clean), nothing was left out and it is not parsed again with
        spans (a clean million-line run costs one count)."""
        streamed = self.streams.get(resolve(path))
        if streamed is not None:
            return streamed.dropped
        if entries is not None:
            text, _ = self.files.read(path)
            fmt = detect(path, text, self.config, role) if text is not None else None
            if text is not None and fmt is not None:
                if fmt.clean is not None:
                    if fmt.clean(text):
                        return []
                elif fmt.lines and all_taken(text, entries):
                    return []
        _kind, _text, model, _error = self.files.load(path, role=role)  # as scoring read it
        return dropping(model.findings) if model is not None else []

    def _fast_rankings(self, path: Path, text: str, fmt: Format) -> tuple[Rankings, str | None]:
        """A run's rankings and the name it gives itself, without its span model, once per
        text of the file."""
        hit = self._fast_hit(path, text)
        if hit is not None:
            return hit
        loaded = read_pending(Pending(runs=[(path, text, fmt)])).runs[0]
        self.owner.check()
        self._fast[resolve(path)] = loaded[1:]
        return loaded[2], loaded[3]

    def _fast_hit(self, path: Path, text: str) -> tuple[Rankings, str | None] | None:
        hit = self._fast.get(resolve(path))
        if hit is not None and (hit[0] is text or hit[0] == text):
            return hit[1], hit[2]
        return None

    def unread(self, path: Path) -> RunReading | None:
        """What reading a run's rankings takes, when it is large and not read yet (else None:
        it is read at once, or cannot be, which is said at once)."""
        text, _ = self.files.read(path)
        if text is None or len(text) < DEFER_CHARS or self._fast_hit(path, text) is not None:
            return None
        fmt = detect(path, text, self.config, "run")
        if fmt is None or fmt.read_rankings is None:
            return None
        return resolve(path), text, fmt

    def provide(self, loaded: Loaded) -> None:
        """Take the rankings :func:`.pending.read_pending` read for an analysis that deferred
        them."""
        self.owner.check()
        for path, text, rankings, name in loaded.runs:
            self._fast[path] = (text, rankings, name)

    def ranked_ids(self, path: Path, run: Run | None) -> Rankings:
        """A run's rankings, computed once per parse (the same lists each time keep the per-query
        score cache valid)."""
        if run is None:
            return {}
        self.owner.check()
        key = resolve(path)
        hit = self._rankings.get(key)
        if hit is not None and hit[0] is run:
            return hit[1]
        rankings = run.ranked_ids()
        self._rankings[key] = (run, rankings)
        return rankings

    def has_scores(self, result: RunResult) -> bool:
        """Whether every document ``result`` ranks has a score (a fusion by scores needs them)."""
        if not result.from_file:
            return True
        text, _ = self.files.read(result.path)
        fmt = detect(result.path, text, self.config, "run") if text is not None else None
        if fmt is not None and fmt.scored is not None:
            return fmt.scored
        run = result.run if result.run is not None else self.read_run(result.path, fast=False)[0]
        return run is not None and all(
            d.score is not None for ranking in run.rankings.values() for d in ranking.docs
        )

    def scores(self, ctx: QrelsContext, result: RunResult) -> Mapping[str, Sequence[float]]:
        """The scores of a run file's rankings (of documents, after any chunk mapping), in their
        order; a run without scores (see :meth:`has_scores`) is never asked."""
        run = result.run if result.run is not None else self.read_run(result.path, fast=False)[0]
        self.owner.check()
        key = resolve(result.path)
        hit = self._scores.get(key)
        if hit is not None and hit[0] is run and hit[1] is result.rankings:
            return hit[2]
        doc_of = mapper(ctx.chunks) if ctx.chunks is not None else None
        out: dict[str, list[float]] = {}
        for qid, ranking in (run.rankings if run is not None else {}).items():
            pairs = [(d.doc_id, d.score if d.score is not None else 0.0) for d in ranking.docs]
            given = dict(scored_documents(pairs, doc_of) if doc_of is not None else pairs)
            out[qid] = [given.get(d, 0.0) for d in result.rankings.get(qid, ())]
        self._scores[key] = (run, result.rankings, out)
        return out

    def forget(self, path: Path) -> None:
        """A file changed: what was read of it for scoring goes (the span model is the files
        part's)."""
        self.owner.check()
        self.drop(path)
        self._fast.pop(path, None)

    def drop(self, path: Path) -> None:
        """What was made from the file's span model (its rankings and scores)."""
        self.owner.check()
        self._rankings.pop(path, None)
        self._scores.pop(path, None)

    def clear(self) -> None:
        self.owner.check()
        for kept in (self._fast, self._rankings, self._scores, self.streams):
            kept.clear()


def read_as(kind: FileKind | None) -> str:
    return f"read as {get(kind).display}" if kind is not None else "of no format qrels-lsp reads"


def why(found: list[Finding]) -> str:
    """Why a file read as nothing: how much was left out, and the first reason."""
    left = dropping(found)
    if not left:
        return " (no line or entry of one)"
    return f" ({len(left):,} left out; the first: {left[0].message})"
