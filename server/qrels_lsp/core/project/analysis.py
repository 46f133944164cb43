"""The project graph: which golden set, runs, topics and corpus belong together, and the
analysis of one file in that context (its findings, and the numbers of every run it touches).

Files are read through a :data:`Reader`, so the language server can put its unsaved buffers in
front of the disk (an unsaved buffer wins) while the CLI reads straight from disk. Parses and
corpora are cached; the owner invalidates them when files change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..base.boundary import Boundary
from ..base.files import TOO_LARGE, read_regular, read_text, resolve
from ..base.findings import Finding, Severity, declare, dropping, finding
from ..base.globs import expand, has_magic
from ..base.text import Span, decode, forget_line_indexes
from ..checks import CheckCache, CorpusState, check_golden, check_run
from ..checks.run_chunks import QR209, matches_no_document
from ..checks.suppress import apply_suppressions
from ..chunks import ChunkedRankings, ChunkRule, documents, mapper, scored_documents
from ..compare import Comparisons
from ..coverage.judgments import (
    Completeness,
    Judgments,
    completeness,
    count_pooled,
    judged_not_relevant,
)
from ..coverage.pool import Pool, PoolCache
from ..formats import detect, get, parse_as, run_yaml, run_yaml_lines, trec_run
from ..formats.beir_layout import beir_dataset
from ..formats.corpus import Corpus, CorpusError, load_corpus
from ..formats.format import Format, Role
from ..formats.run_yaml import qrels_named
from ..formats.topics import Topics, parse_topics
from ..formats.trec_stream import StreamStats, all_taken, stream_rankings
from ..fusion import METHODS, Fuser, Fusion, Input
from ..history.diff import History
from ..history.lock import Locks, LockState
from ..history.tracker import Tracker
from ..metrics import (
    Evaluation,
    Metric,
    RunCut,
    ScoreCache,
    Since,
    configured_metrics,
    evaluate,
    evaluate_stream,
)
from ..model import FileKind, Qrels, Ref, Run
from ..search.baseline import BASELINE_NAME, BaselineCache
from ..search.indexes import IndexCache
from .comparing import BASELINE_ALIASES, QR115, BaseChoice, choose_base, compare_runs, find_run
from .config import Config, QrelsBinding, scoring_settings
from .fusing import resolve as resolve_fusion
from .incremental import EntryEdit, reparse
from .judging import pool_of
from .naming import QR121, Clash, clashing, distinct

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from ..compare.comparison import Comparer
    from ..search.bm25 import BM25Index

declare(
    "QR111",
    "runs-not-found",
    Severity.WARNING,
    "golden set",
    "A `runs:` entry that matches no file (a warning), or names a run that cannot be scored: unreadable, not a run, no ranking in it (an error: never zeros).",
)
declare(
    "QR112",
    "outside-workspace",
    Severity.ERROR,
    "any",
    "A path (corpus, runs, `qrels:`, topics) that leads outside the workspace: not read unless your own settings allow it (`allow_outside`).",
)


# Corpora this small are indexed on the spot (tens of milliseconds); larger ones in the background.
SMALL_CORPUS = 2000
HEAD_BYTES = 1 << 16  # what content detection of a streamed run reads

Reader = Callable[[Path], tuple[str | None, str | None]]
NOT_A_RUN = "not a run file"
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class RunResult:
    """A run scored against a golden set."""

    path: Path
    name: str
    run: Run | None  # None when the file could not be read, was read fast, or is the baseline
    evaluation: Evaluation
    error: str | None = None
    rankings: dict[str, list[str]] = field(default_factory=dict)  # qid -> ids, evaluation order
    baseline: bool = False  # the BM25 baseline, computed from the corpus, not read from a file
    fusion: Fusion | None = None  # a fused run: how it was made from the golden set's runs
    scores: dict[str, list[float]] | None = None  # a fused run's scores, in ``rankings`` order

    @property
    def from_file(self) -> bool:
        """Read from the file at ``path`` (not the BM25 baseline, not a fused run)."""
        return not self.baseline and self.fusion is None


RunReading = tuple[Path, str, "Format"]


@dataclass(slots=True)
class Pending:
    """What an analysis left unread rather than wait for it (``Project.analyse(defer=True)``,
    the editor's): run texts whose rankings are not read yet, and the workspace's run YAML
    texts whose ``qrels:`` the reverse links need. :func:`read_pending` reads them touching no
    project state (the editor runs it on its background thread); :meth:`Project.provide` takes
    what it read, and the next analysis is whole."""

    runs: list[RunReading] = field(default_factory=list)
    names: list[tuple[Path, str]] | None = None  # None: the reverse links are known
    files: list[Path] = field(default_factory=list)  # the run files the workspace's globs match

    def __bool__(self) -> bool:
        return bool(self.runs) or self.names is not None


@dataclass(slots=True)
class Loaded:
    """What :func:`read_pending` read: each run's rankings and name, each run YAML's ``qrels:``."""

    runs: list[tuple[Path, str, dict[str, list[str]], str | None]]
    names: list[tuple[Path, Ref | None]] | None
    files: list[Path]


def read_pending(pending: Pending, pause: Callable[[], object] | None = None) -> Loaded:
    """Read what ``pending`` names: pure (texts in, rankings and names out), for a thread of its
    own; ``pause`` is called between files (the editor's: wait while a keystroke is answered)."""
    runs = []
    for path, text, fmt in pending.runs:
        if pause is not None:
            pause()
        assert fmt.read_rankings is not None
        rankings = fmt.read_rankings(text)
        runs.append((path, text, rankings, fmt.named(text) if fmt.named is not None else None))
    names = None
    if pending.names is not None:
        names = []
        for path, text in pending.names:
            if pause is not None:
                pause()
            names.append((path, qrels_named(text)))
    return Loaded(runs, names, pending.files)


EXHAUSTIVE = Completeness("exhaustive", None)
"""A context made without a golden set's judgments to look at (the judgments are said to be or
read as exhaustive until the project's ``context`` says otherwise)."""

DEFER_CHARS = 1 << 20
"""Runs smaller than this are read in the analysis that needs them (milliseconds); larger ones,
when the analysis may defer them, after the golden set's own findings are out."""


@dataclass(slots=True)
class QrelsContext:
    """A golden set (or TREC/BEIR qrels) with everything it points at, resolved."""

    path: Path
    kind: FileKind
    qrels: Qrels
    k: int
    level: int
    metrics: list[Metric]
    corpus_path: Path | None
    corpus: CorpusState
    run_paths: list[Path]
    run_matches: dict[str, list[Path]] = field(default_factory=dict)  # each pattern's files
    # A pattern refused (True) or cut short (False) by the boundary and the glob limits, and why.
    run_problems: dict[str, tuple[bool, str]] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)  # refusals of paths out of the boundary
    grades: dict[str, dict[str, int]] = field(default_factory=dict)  # qid -> doc -> grade, once
    unanswerable: set[str] = field(default_factory=set)
    grades_since: Since | None = None  # how ``grades`` was made from the last ones, if it was
    compare_to: Ref | None = None  # the base run asked for (a golden set's key, the config's)
    judgments: Completeness = EXHAUSTIVE  # how complete the judgments are (stated or inferred)
    fusions: list[Fusion] = field(default_factory=list)  # runs fused from its runs
    chunks: ChunkRule | None = None  # how its runs' ids map to its documents (runs of chunks)
    cut: RunCut | None = None  # what of each ranking is evaluated (trec_eval's -M, -J: the CLI's)
    alpha: float = 0.05
    min_difference: float = 0.05
    min_judged: float = 0.9  # the judged@k below which the header warns
    pool_depth: int = 10  # how deep the judging queue looks into each run
    blind_judging: bool = False  # hide what the systems compared say, while judging
    lock: LockState | None = None  # its lock against the corpus (core/history/lock.py)


@dataclass(slots=True)
class Analysis:
    """One file analysed in its project: what the CLI prints and the server shows."""

    path: Path
    kind: FileKind
    text: str
    findings: list[Finding]
    model: Qrels | Run
    context: QrelsContext | None = None  # the golden set this file is, or that this run answers
    runs: list[RunResult] = field(default_factory=list)
    edit: EntryEdit | None = None  # the edit of one entry that made ``model`` from the last one
    base: RunResult | None = None  # the run the others are compared with (a golden set's)
    # Made on demand (`Project.compare`): resampling ten thousand questions is not for every
    # keystroke's diagnostics, only for what shows the comparison.
    comparisons: Comparisons | None = None
    compared: bool = False
    # Until then, the golden set's last comparison, made for an earlier text (``compare_job``):
    # what the editor shows, marked as being brought up to date, rather than waiting for it.
    previous: Comparisons | None = None
    # The judging queue of a golden set's runs, made on demand too (`Project.pool`).
    pool: Pool | None = None
    pooled: bool = False
    # What changed since the base revision, and why each number moved (`Project.history`).
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


@dataclass(frozen=True, slots=True)
class _Judged:
    """What a golden set's model says for scoring, and how it was made from the last one."""

    qrels: Qrels
    grades: dict[str, dict[str, int]]
    unanswerable: set[str]
    since: Since | None
    pooled: int = 0  # questions with a grade-0 or negative judgment (coverage/judgments.py)


def run_name(path: Path, run: Run | None) -> str:
    """A run's name: its YAML ``name:``, else the file name without ``.run``/``.trec``."""
    if run is not None and run.format == "run-yaml" and run.name:
        return run.name
    name = path.name
    for suffix in (".yaml", ".yml", ".json", ".trec", ".txt", ".tsv", ".run"):
        name = name.removesuffix(suffix)
    return name or path.name


def _disk_reader(path: Path) -> tuple[str | None, str | None]:
    return read_text(path)


class Project:
    """Files read through ``read`` and only inside ``boundary`` (see :mod:`.boundary`): a path
    in a golden set, a run or the configuration that leads out of it is refused, with a finding
    (QR112) where it is written."""

    def __init__(
        self,
        config: Config,
        read: Reader = _disk_reader,
        progress: Progress | None = None,
        *,
        boundary: Boundary,
        lens_metrics: bool = False,
        indexes: IndexCache | None = None,
        build_indexes: bool = False,
        stream_over: int | None = None,
        peek: Reader | None = None,
    ) -> None:
        self.config = config
        # TREC runs larger than this are scored as they are read, this many bytes at a time (the
        # command line; the editor holds every file it reads, up to the cap of base/files.py).
        self.stream_over = stream_over
        self._streams: dict[Path, StreamStats] = {}
        self.lens_metrics = lens_metrics  # always compute recall@k and mrr (the lenses' numbers)
        self.indexes = indexes if indexes is not None else IndexCache()
        self.build_indexes = (
            build_indexes  # the CLI builds BM25 indexes when asked; the editor warms them
        )
        self._baselines = BaselineCache()
        # Per-file caches that make an edit cost what it touched (see core/project/incremental.py).
        self._checks: dict[Path, CheckCache] = {}
        self._scores: dict[tuple[Path, Path | str | None], ScoreCache] = {}
        self._comparers: dict[Path, Comparer] = {}  # per golden set: resampling kept per edit
        # Per golden set: the last comparison made (written by the comparison's job alone).
        self._latest: dict[Path, Comparisons] = {}
        self._pools: dict[Path, PoolCache] = {}  # per golden set: each question's unjudged pairs
        self._rankings: dict[Path, tuple[Run, dict[str, list[str]]]] = {}
        self._fast_runs: dict[Path, tuple[str, dict[str, list[str]], str | None]] = {}
        self._chunked: dict[Path, ChunkedRankings] = {}  # per run: its rankings of documents
        self._run_scores: dict[Path, tuple[object, object, dict[str, list[float]]]] = {}
        self._fusers: dict[tuple[Path, str], Fuser] = {}  # per golden set and fused run
        self._reader = read
        # Reads not repeated (each run's `qrels:` for the reverse links, once): the editor's
        # reader that keeps no copy of the text (it keeps those read for scoring).
        self._peeker = peek or read
        self.boundary = boundary
        self.progress = progress
        self._parsed: dict[Path, tuple[str, Qrels | Run]] = {}
        self._corpora: dict[Path, Corpus | CorpusError] = {}
        self._topics: dict[Path, Topics] = {}
        self._golden_files: list[Path] | None = None
        # The reverse links: which golden set each run YAML's `qrels:` names (None: none). The
        # workspace's runs are scanned once; a run that is analysed, or changes on disk, updates
        # its own entry, so a golden set finds the runs that name it without a scan per keystroke.
        self._run_files: list[Path] | None = None
        self._names: dict[Path, Path | None] = {}
        self.links = 0  # bumped whenever an entry of the reverse links changes
        self._edits: dict[Path, tuple[Qrels, EntryEdit]] = {}
        self._judged: dict[Path, _Judged] = {}
        self._locks = Locks()  # each golden set's lock against its corpus
        self._trackers: dict[Path, Tracker] = {}  # each golden set's history since its base

    def read(self, path: Path) -> tuple[str | None, str | None]:
        """A file's text through the reader, or why not; nothing outside the boundary."""
        if not self.boundary.allows(path):
            return None, self.boundary.refusal(path)
        return self._reader(path)

    def _peek(self, path: Path) -> tuple[str | None, str | None]:
        """:meth:`read` for a look taken once (see ``peek``)."""
        if not self.boundary.allows(path):
            return None, self.boundary.refusal(path)
        return self._peeker(path)

    # -- caches -------------------------------------------------------------------------------
    def forget(self, path: Path) -> None:
        """A file changed: drop what was derived from it (but the per-entry check cache, keyed
        by each entry's text: a golden set saved is not checked whole again)."""
        path = resolve(path)
        self._drop_model(path)
        self._judged.pop(path, None)
        self._fast_runs.pop(path, None)
        self._topics.pop(path, None)
        for root in list(self._corpora):
            if path == root or root in path.parents:
                del self._corpora[root]
        self._locks.forget([path])
        refs = path.name in ("HEAD", "packed-refs") or "refs" in path.parts
        if ".git" in path.parts and refs:  # a commit, a checkout: the bases may have moved
            for tracker in self._trackers.values():
                tracker.forget()
        elif path in self._trackers:  # saved: a worktree's commits are not watched
            self._trackers[path].forget()
        self._golden_files = None
        self._run_files = None  # a run may have been added or removed: glob again
        if self._names.pop(path, None) is not None:
            self.links += 1

    def release(self, path: Path) -> None:
        """Drop what was made from a file's span model (the file itself is unchanged): a check of
        the whole workspace must not keep every file's spans in memory once its findings are
        made, nor the editor a closed document's. What scoring keeps of a run (its rankings, read
        without spans) stays, for the golden sets that score it."""
        path = resolve(path)
        self._drop_model(path)
        self._checks.pop(path, None)

    def _drop_model(self, path: Path) -> None:
        """The file's span model and what holds it (its rankings, scores, chunk mapping)."""
        for kept in (self._parsed, self._edits, self._rankings, self._run_scores, self._chunked):
            kept.pop(path, None)

    def release_all(self) -> None:
        """Drop what was made from every file (no document is open in the editor): models,
        rankings, scores, comparisons, judging queues. What the workspace is stays: the reverse
        links, corpora and topics (a corpus takes seconds to load again)."""
        for kept in (self._parsed, self._edits, self._checks, self._rankings, self._run_scores):
            kept.clear()
        for made in (self._chunked, self._fast_runs, self._scores, self._judged, self._streams):
            made.clear()
        for compared in (self._comparers, self._latest, self._pools, self._fusers, self._trackers):
            compared.clear()
        self._baselines = BaselineCache()  # (a warm-up still running fills the one it was given)
        forget_line_indexes()
        run_yaml_lines.forget()

    def parsed(self, path: Path, kind: FileKind, text: str) -> Qrels | Run:
        path = resolve(path)
        hit = self._parsed.get(path)
        if hit is not None and hit[0] == text and hit[1].format == kind:
            return hit[1]
        model: Qrels | Run | None = None
        self._edits.pop(path, None)
        if hit is not None and kind == "golden" and isinstance(hit[1], Qrels):
            reparsed = reparse(hit[0], hit[1], text)  # one entry, when the edit stays inside it
            if reparsed is not None:
                model, edit = reparsed
                if edit is not None:
                    self._edits[path] = (model, edit)
        if model is None:
            model = parse_as(kind, text)
        self._parsed[path] = (text, model)
        return model

    def edit_of(self, path: Path, model: Qrels) -> EntryEdit | None:
        """The one-entry edit that made ``model`` from the file's previous model, if it was one."""
        hit = self._edits.get(resolve(path))
        return hit[1] if hit is not None and hit[0] is model else None

    def _judgments(self, path: Path, qrels: Qrels) -> _Judged:
        """The grades and unanswerable ids of a golden set, derived from the last ones after an
        edit of one entry: the other queries keep their grade mappings, and the score caches are
        told that only the edited query needs scoring."""
        key = resolve(path)
        hit = self._judged.get(key)
        if hit is not None and hit.qrels is qrels:
            return hit
        edit = self.edit_of(path, qrels)
        if hit is not None and edit is not None and edit.before is hit.qrels:
            query = qrels.queries[edit.qid]
            grades = dict(hit.grades)
            old = hit.grades.get(edit.qid)
            pooled = hit.pooled - (old is not None and judged_not_relevant(old))
            grades[edit.qid] = query.grades()
            pooled += judged_not_relevant(grades[edit.qid])
            unanswerable = set(hit.unanswerable)
            if query.unanswerable:
                unanswerable.add(edit.qid)
            else:
                unanswerable.discard(edit.qid)
            since = Since(hit.grades, frozenset([edit.qid]))
            judged = _Judged(qrels, grades, unanswerable, since, pooled)
        else:
            grades = qrels.grades()
            judged = _Judged(
                qrels, grades, qrels.unanswerable(), None, count_pooled(grades.values())
            )
        self._judged[key] = judged
        return judged

    def load(
        self, path: Path, kind: FileKind | None = None, role: Role | None = None
    ) -> tuple[FileKind | None, str | None, Qrels | Run | None, str | None]:
        """(kind, text, model, error) of a file through the reader; ``role``: what the caller
        uses it as, when content alone cannot tell (a JSON object of integers)."""
        text, message = self.read(path)
        if text is None:
            return None, None, None, message
        if kind is None:
            found = detect(path, text, self.config, role)
            if found is None:
                return None, text, None, None
            kind = found.name
        return kind, text, self.parsed(path, kind, text), None

    def corpus(self, path: Path) -> Corpus | CorpusError:
        if not self.boundary.allows(path):
            return CorpusError(self.boundary.refusal(path))
        path = resolve(path)
        if path not in self._corpora:
            progress = self.progress
            callback = (
                (lambda done, total: progress("Loading corpus", done, total)) if progress else None
            )
            self._corpora[path] = load_corpus(
                path, progress=callback, inside=self.boundary.allows, ids=self.config.corpus_ids
            )
        return self._corpora[path]

    def topics(self, path: Path) -> Topics:
        path = resolve(path)
        if path not in self._topics:
            text, _ = self.read(path)
            self._topics[path] = Topics() if text is None else parse_topics(path.name, text)
        return self._topics[path]

    # -- the graph ----------------------------------------------------------------------------
    def binding(self, path: Path) -> QrelsBinding | None:
        resolved = resolve(path)
        return next((b for b in self.config.qrels if b.path == resolved), None)

    def _beir_binding(self, path: Path) -> QrelsBinding | None:
        """A BEIR dataset's ``qrels/<split>.tsv`` gets the dataset's ``corpus.jsonl`` and
        ``queries.jsonl`` without configuration (looked for inside the boundary only)."""
        found = beir_dataset(resolve(path), self.boundary.allows)
        if found is None:
            return None
        return QrelsBinding(path=resolve(path), topics=found.queries, corpus=found.corpus)

    def golden_files(self) -> list[Path]:
        """Golden sets under the config root (for a run that names none), in the boundary."""
        if self._golden_files is None:
            root = self.config.root
            found: list[Path] = []
            if root is not None:
                for pattern in self.config.golden:
                    found.extend(expand(root, pattern, self.boundary).paths)
            found.extend(b.path for b in self.config.qrels if self.boundary.allows(b.path))
            self._golden_files = sorted({resolve(p) for p in found})
        return self._golden_files

    def workspace_files(self) -> list[Path]:
        """Every golden set and run of the workspace, by the configured globs and `[[qrels]]`
        tables, in the boundary: what a check of the whole workspace looks at."""
        self._scan_run_files()
        found = {*self.golden_files(), *(self._run_files or [])}
        for binding in self.config.qrels:
            if self.boundary.allows(binding.path):
                found.update(resolve(p) for p in self._bound_runs(binding))
        return sorted(found)

    def context(
        self, path: Path, kind: FileKind, qrels: Qrels, pending: Pending | None = None
    ) -> QrelsContext:
        folder = resolve(path).parent
        binding = self.binding(path)
        if binding is None and kind == "beir-qrels":
            binding = self._beir_binding(path)
        outside: list[str] = []
        corpus_path: Path | None = None
        if qrels.corpus is not None:
            corpus_path = folder / qrels.corpus.value
        elif binding is not None and binding.corpus is not None:
            corpus_path = binding.corpus
        corpus: CorpusState = None
        if corpus_path is not None:
            resolved = self.boundary.resolve(corpus_path)
            if resolved is not None:
                corpus_path = resolved
                corpus = self.corpus(corpus_path)
            else:  # said once, as QR112 where the path is written; no corpus checks then
                outside.append(self.boundary.refusal(corpus_path))
                corpus_path = _lexical(corpus_path)  # for messages: never looked at
        k, level, chunks = scoring_settings(qrels, binding, self.config)
        if binding is not None and binding.topics is not None:
            if self.boundary.allows(binding.topics):
                _attach_topics(qrels, self.topics(binding.topics))
            else:
                outside.append(self.boundary.refusal(binding.topics))
        expansions = {r.value: expand(folder, r.value, self.boundary) for r in qrels.runs}
        matches = {p: e.paths for p, e in expansions.items()}
        problems = {p: (e.refused, e.problem) for p, e in expansions.items() if e.problem}
        bound = self._bound_runs(binding) if binding is not None else []
        linked = [*matches.values(), bound, self.runs_naming(path, pending)]
        metrics = configured_metrics(self.config.metrics, k, lens=self.lens_metrics)
        judged = self._judgments(path, qrels)
        return QrelsContext(
            path=resolve(path),
            kind=kind,
            qrels=qrels,
            k=k,
            level=level,
            metrics=metrics,
            corpus_path=corpus_path,
            corpus=corpus,
            run_paths=_union(linked),
            run_matches=matches,
            run_problems=problems,
            outside=outside,
            grades=judged.grades,
            unanswerable=judged.unanswerable,
            grades_since=judged.since,
            compare_to=_compare_to(qrels, binding, self.config),
            judgments=completeness(_judgments_stated(qrels, binding, self.config), judged.pooled),
            fusions=_fusions(qrels, binding, self.config),
            chunks=chunks,
            alpha=self.config.alpha,
            min_difference=self.config.min_difference,
            min_judged=self.config.min_judged,
            pool_depth=self.config.pool_depth,
            blind_judging=self.config.blind_judging,
            lock=self._locks.state(resolve(path), corpus, chunks, self.read),
        )

    def _bound_runs(self, binding: QrelsBinding) -> list[Path]:
        """The runs a ``[[qrels]]`` table lists (its globs are relative to the config file)."""
        base = self.config.root or binding.path.parent
        return _union(expand(base, p, self.boundary).paths for p in binding.runs)

    def runs_naming(self, golden: Path, pending: Pending | None = None) -> list[Path]:
        """The runs whose ``qrels:`` names ``golden``: the workspace's run YAML files (the
        configured run globs) and any run analysed since, in path order. With ``pending``,
        run YAML files not read yet are left to it (the ones known so far are returned)."""
        target = resolve(golden)
        if pending is None or self._run_files is not None:
            self._scan_run_files()
        else:
            files, unread = self._unscanned()
            if sum(len(text) for _path, text in unread) >= DEFER_CHARS:
                pending.names, pending.files = unread, files
            else:  # small: read now (milliseconds)
                self.provide(read_pending(Pending(names=unread, files=files)))
        return sorted(run for run, named in self._names.items() if named == target)

    def _scan_run_files(self) -> None:
        """Read the ``qrels:`` of each run YAML file in the workspace not yet known; only a
        run YAML can name its golden set (TREC, JSON and TSV runs cannot)."""
        if self._run_files is None:
            files, unread = self._unscanned()
            self.provide(read_pending(Pending(names=unread, files=files)))

    def _unscanned(self) -> tuple[list[Path], list[tuple[Path, str]]]:
        """The run files the configured globs match, and the texts of the run YAML files among
        them whose ``qrels:`` is not known yet."""
        root = self.config.root
        found: list[Path] = []
        if root is not None:
            for pattern in self.config.runs:
                found.extend(expand(root, pattern, self.boundary).paths)
        files = sorted({resolve(p) for p in found})
        unread: list[tuple[Path, str]] = []
        for path in files:
            if path in self._names or path.suffix.lower() not in (".yaml", ".yml"):
                continue
            text, _ = self._peek(path)
            fmt = detect(path, text, self.config, "run") if text is not None else None
            if text is not None and fmt is run_yaml.FORMAT:
                unread.append((path, text))  # its `qrels:` only, not its span model
            else:
                self._names[path] = None
        return files, unread

    def _link(self, run: Path, golden: Path | None) -> None:
        """Record the golden set a run names (None: none); :attr:`links` counts the changes, so
        that the editor knows when a golden set's runs may differ."""
        if self._names.get(run) != golden:  # (a new run naming none changes no golden set)
            self.links += 1
        self._names[run] = golden

    def _named_by(self, run_path: Path, qrels: Ref | None) -> Path | None:
        """The golden set a run's ``qrels:`` names, if it is a file inside the boundary."""
        if qrels is None:
            return None
        target = self.boundary.resolve(resolve(run_path).parent / qrels.value)
        return target if target is not None and target.is_file() else None

    def _golden_beside(self, run_path: Path) -> tuple[str, ...]:
        """The golden sets in a run's own folder, by file name (what its `qrels:` would say)."""
        folder = resolve(run_path).parent
        return tuple(p.name for p in self.golden_files() if p.parent == folder)

    def golden_of(self, run_path: Path, run: Run) -> tuple[Path | None, str | None]:
        """The golden set a run answers: its ``qrels:``, the config, or a golden set listing it."""
        resolved = resolve(run_path)
        if run.qrels is not None:
            target = self.boundary.resolve(resolved.parent / run.qrels.value)
            if target is None:
                return None, self.boundary.refusal(run.qrels.value)
            if not target.is_file() and self.read(target)[0] is None:
                return None, f"`qrels: {run.qrels.value}` does not exist (looked for {target})."
            return target, None
        for binding in self.config.qrels:
            if self.boundary.allows(binding.path) and resolved in self._bound_runs(binding):
                return binding.path, None
        for golden in self.golden_files():
            kind, _text, model, _error = self.load(golden)
            if kind is None or not isinstance(model, Qrels):
                continue
            if any(
                resolved in expand(golden.parent, r.value, self.boundary).paths for r in model.runs
            ):
                return golden, None
        return None, None

    # -- analysis -----------------------------------------------------------------------------
    def score_run(self, ctx: QrelsContext, path: Path, *, fast: bool = False) -> RunResult:
        """Score one run file. ``fast`` reads a TREC run without spans or findings (the CLI's
        ``score`` on a million-line run needs the ranking, not the editor's model), and
        streams one larger than ``stream_over`` bytes."""
        if fast and self.stream_over is not None:
            streamed = self._streamed_run(ctx, path)
            if streamed is not None:
                return streamed
        run, rankings, error, name = self.read_run(path, fast=fast)
        return self._scored(ctx, path, run, rankings, error, name)

    def _streamed_run(self, ctx: QrelsContext, path: Path) -> RunResult | None:
        """A TREC run larger than ``stream_over``, scored as it is read, a block of queries at
        a time (:mod:`..formats.trec_stream`); None for any other file (read whole)."""
        assert self.stream_over is not None
        if not self.boundary.allows(path) or self._fused_input(ctx, path):
            return None
        try:
            if os.stat(path).st_size <= self.stream_over:
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
        stream = stream_rankings(path, stats, chunk_bytes=self.stream_over)
        if ctx.chunks is not None:  # chunks to documents, a query at a time
            doc_of = mapper(ctx.chunks)
            stream = ({q: documents(r, doc_of) for q, r in part.items()} for part in stream)
        if ctx.cut is not None:
            stream = ctx.cut.stream(stream, ctx.grades)
        evaluation = evaluate_stream(
            ctx.grades,
            stream,
            ctx.metrics,
            level=ctx.level,
            unanswerable=ctx.unanswerable,
        )
        self._streams[resolve(path)] = stats
        error = stats.error
        if error is None and not stats.queries:
            error = f"{_read_as(trec_run.FORMAT.name)}, it holds no ranking" + _why(stats.dropped)
        return RunResult(resolve(path), run_name(path, None), None, evaluation, error)

    def _fused_input(self, ctx: QrelsContext, path: Path) -> bool:
        """Whether a fusion of the golden set names the run at ``path``: a fused run needs its
        rankings, which a streamed run does not keep."""
        if not ctx.fusions:
            return False
        probe = [RunResult(resolve(path), self._name_of(path), None, Evaluation(), None, {})]
        return any(find_run(probe, ref.value) is not None for f in ctx.fusions for ref in f.runs)

    def read_run(
        self, path: Path, *, fast: bool
    ) -> tuple[Run | None, dict[str, list[str]], str | None, str]:
        """A run's (model, rankings, why it cannot be scored, name): a file that cannot be
        read, is no run, or reads as no ranking is an error that names the format it was read
        as."""
        if fast:
            text, _ = self.read(path)
            fmt = detect(path, text, self.config, "run") if text is not None else None
            if text is not None and fmt is not None and fmt.read_rankings is not None:
                rankings, named = self._fast_rankings(path, text, fmt)
                if rankings:
                    return None, rankings, None, named or run_name(path, None)
                # Nothing read: the spans model below says why.
        kind, text, model, error = self.load(path, role="run")
        run = model if isinstance(model, Run) else None
        if run is None and error is None:
            error = f"{NOT_A_RUN} ({_read_as(kind)})"
        elif run is not None and not run.rankings and text is not None:
            # (an empty file too: trec_eval refuses it, and a table of zeros would hide it)
            why = _why(run.findings) if text else " (the file is empty)"
            error = f"{_read_as(kind)}, it holds no ranking" + why
        elif error is not None and error.startswith(TOO_LARGE) and self.stream_over is None:
            error += (
                ", more than the editor holds of a file; `qrels-lsp score` and `compare` read a "
                "TREC run of any size"
            )
        return run, self._ranked_ids(path, run), error, run_name(path, run)

    def runid(self, result: RunResult) -> str:
        """A run's own name as trec_eval prints it (runid): a TREC run's tag column, else
        the name qrels-lsp gives it."""
        if not result.from_file:
            return result.name
        streamed = self._streams.get(result.path)
        if streamed is not None:
            return streamed.tag or result.name
        text, _ = self.read(result.path)
        fmt = detect(result.path, text, self.config, "run") if text is not None else None
        tag = fmt.run_tag(text) if text is not None and fmt is not None and fmt.run_tag else None
        return tag or result.name

    def dropped(self, path: Path, role: Role, entries: int | None = None) -> list[Finding]:
        """The findings that say part of a file is left out of its scores (a malformed line, a
        duplicate, an id of the wrong type). ``entries``: how many judgments or ranked ids a
        span-free reader took; when a file of one entry per line has no more lines than that
        (or its format knows it clean), nothing was left out and it is not parsed again with
        spans (a clean million-line run costs one count)."""
        streamed = self._streams.get(resolve(path))
        if streamed is not None:
            return streamed.dropped
        if entries is not None:
            text, _ = self.read(path)
            fmt = detect(path, text, self.config, role) if text is not None else None
            if text is not None and fmt is not None:
                if fmt.clean is not None:
                    if fmt.clean(text):
                        return []
                elif fmt.lines and all_taken(text, entries):
                    return []
        _kind, _text, model, _error = self.load(path, role=role)  # read as scoring read it
        return dropping(model.findings) if model is not None else []

    def _fast_rankings(
        self, path: Path, text: str, fmt: Format
    ) -> tuple[dict[str, list[str]], str | None]:
        """A run's rankings and the name it gives itself, without its span model, once per
        text of the file."""
        hit = self._fast_hit(path, text)
        if hit is not None:
            return hit
        loaded = read_pending(Pending(runs=[(path, text, fmt)])).runs[0]
        self._fast_runs[resolve(path)] = loaded[1:]
        return loaded[2], loaded[3]

    def _fast_hit(self, path: Path, text: str) -> tuple[dict[str, list[str]], str | None] | None:
        hit = self._fast_runs.get(resolve(path))
        if hit is not None and (hit[0] is text or hit[0] == text):
            return hit[1], hit[2]
        return None

    def _unread(self, path: Path) -> RunReading | None:
        """What reading a run's rankings takes, when it is large and not read yet (else None:
        it is read at once, or cannot be, which is said at once)."""
        text, _ = self.read(path)
        if text is None or len(text) < DEFER_CHARS or self._fast_hit(path, text) is not None:
            return None
        fmt = detect(path, text, self.config, "run")
        if fmt is None or fmt.read_rankings is None:
            return None
        return resolve(path), text, fmt

    def provide(self, loaded: Loaded) -> None:
        """Take what :func:`read_pending` read for an analysis that deferred it."""
        for path, text, rankings, name in loaded.runs:
            self._fast_runs[path] = (text, rankings, name)
        if loaded.names is not None and self._run_files is None:
            for path, ref in loaded.names:
                if path not in self._names:
                    self._link(path, self._named_by(path, ref))
            self._run_files = loaded.files

    def _score_cache(self, golden: Path, run: Path | str | None) -> ScoreCache:
        """A run's (a fused run's, by its name; the baseline's, None) score cache."""
        key = (resolve(golden), resolve(run) if isinstance(run, Path) else run)
        return self._scores.setdefault(key, ScoreCache())

    def _ranked_ids(self, path: Path, run: Run | None) -> dict[str, list[str]]:
        """A run's rankings, computed once per parse (the same lists each time keep the per-query
        score cache valid)."""
        if run is None:
            return {}
        key = resolve(path)
        hit = self._rankings.get(key)
        if hit is not None and hit[0] is run:
            return hit[1]
        rankings = run.ranked_ids()
        self._rankings[key] = (run, rankings)
        return rankings

    def _scored(
        self,
        ctx: QrelsContext,
        path: Path,
        run: Run | None,
        rankings: dict[str, list[str]],
        error: str | None,
        name: str,
    ) -> RunResult:
        if ctx.chunks is not None:
            rankings = self._chunked.setdefault(resolve(path), ChunkedRankings()).of(
                rankings, ctx.chunks
            )
        evaluation = self._evaluate(ctx, rankings, path)
        return RunResult(resolve(path), name, run, evaluation, error, rankings)

    def _evaluate(
        self,
        ctx: QrelsContext,
        rankings: dict[str, list[str]],
        run: Path | str | None,
        since: Since | None = None,
    ) -> Evaluation:
        """A run's (or, for None, the baseline's) scores, through its own score cache (none
        for a cut run: the command line evaluates it once)."""
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
            cache=self._score_cache(ctx.path, run),
            qrels_since=ctx.grades_since,
            run_since=since,
        )

    def baseline(self, ctx: QrelsContext, *, build: bool = False) -> RunResult | None:
        """The BM25 baseline of a golden set with a corpus; None while its index is not ready
        (the editor builds it in the background; ``build`` builds it now, for the CLI)."""
        if not isinstance(ctx.corpus, Corpus):
            return None
        index = self.indexes.get(ctx.corpus)
        if index is None and (build or len(ctx.corpus) <= SMALL_CORPUS):
            # Small: milliseconds, so the first lenses already have it.
            index = self.indexes.build(ctx.corpus)
        if index is None:
            return None
        rankings, since = self._baselines.rankings(
            ctx.qrels, index, self.edit_of(ctx.path, ctx.qrels)
        )
        evaluation = self._evaluate(ctx, rankings, None, since)
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
        the baseline. The one method another thread than the analysis thread may call: it
        touches only the baseline cache, which has a lock."""
        self._baselines.warm(index, questions, pause)

    def analyse(
        self, path: Path, *, with_runs: bool = True, defer: bool = False
    ) -> Analysis | None:
        """Findings (suppressed as configured) and numbers for one file; None if not ours.

        ``defer``: a golden set's large runs not read yet, and the workspace's run YAML files
        the reverse links need, are left to the analysis's ``pending`` (the editor reads them
        on another thread and analyses again): the golden set's own findings (syntax, shape,
        corpus ids) need none of them, and the lens of each such run says it is loading."""
        kind, text, model, error = self.load(path)
        if error is not None and text is None:
            return None
        if kind is None or model is None or text is None:
            return None
        if isinstance(model, Qrels):
            pending = Pending() if defer else None
            own = self.context(path, kind, model, pending)
            checks = self._checks.setdefault(resolve(path), CheckCache())
            edit = self.edit_of(path, model)
            found = list(model.findings) + check_golden(
                model, text, own.corpus, level=own.level, cache=checks, edit=edit,
                judgments=own.judgments, lock=own.lock,
            )  # fmt: skip
            # A golden set needs its runs' rankings, not their span models (a TREC run of a
            # million lines would be a million objects): the run's own file has those.
            fused: list[Finding] = []
            loading: list[str] = []
            if with_runs:
                runs = self.golden_runs(own, pending=pending, problems=fused)
                loading = [p.name for p, _text, _fmt in pending.runs] if pending else []
            else:
                runs = []
                self.fused_runs(own, self._named_runs(own, fused), fused, make=False)
            found += fused + self._chunk_findings(own, runs)
            # Why a listed run cannot be scored: from its scoring, or (`check`, which scores
            # nothing) from reading it.
            if with_runs:
                unscored = {r.path: r.error for r in runs if r.from_file}
            else:
                unscored = {resolve(p): self.read_run(p, fast=True)[2] for p in own.run_paths}
            pending_base = with_runs and self.baseline_pending(own)
            base = (
                choose_base(own, runs, baseline_pending=pending_base)
                if with_runs
                else BaseChoice(None)
            )
            if base.problem is not None and model.compare_to is not None and not pending:
                found.append(finding(QR115, model.compare_to.span, base.problem + "."))
            found += _outside(own, model)
            for ref in model.runs:
                hits = own.run_matches.get(ref.value, [])
                problem = own.run_problems.get(ref.value)
                if problem is not None:
                    code = "QR112" if problem[0] else "QR111"
                    found.append(finding(code, ref.span, f"`{ref.value}`: {problem[1]}."))
                elif not hits:
                    found.append(finding("QR111", ref.span, f"No run file matches `{ref.value}`."))
                errors = [(h, unscored.get(resolve(h))) for h in hits]
                found += _unscored(ref.value, ref.span, errors)
            found += _replacement_characters(text)
            found = self._suppress(found, text)
            return Analysis(
                path,
                kind,
                text,
                found,
                model,
                own,
                runs,
                edit,
                base.base,
                loading=loading,
                pending=pending or None,
                waiting=base.waiting,
            )
        golden_path, reason = self.golden_of(path, model)
        self._scan_run_files()
        self._link(resolve(path), golden_path if model.qrels is not None else None)
        found = list(model.findings)
        if golden_path is None and model.qrels is not None and reason is not None:
            target = resolve(path).parent / model.qrels.value
            if not self.boundary.allows(target):  # said as QR112, not as an unbound run
                found.append(finding("QR112", model.qrels.span, f"`qrels:` {reason}."))
                reason = "This run's golden set is outside the workspace, so it is not scored."
        ctx: QrelsContext | None = None
        if golden_path is not None:
            gkind, _gtext, gmodel, _gerr = self.load(golden_path)
            if gkind is not None and isinstance(gmodel, Qrels):
                ctx = self.context(golden_path, gkind, gmodel)
        namesakes, shown = self._namesakes(ctx, path, run_name(path, model))
        found += check_run(
            model,
            ctx.qrels if ctx else None,
            ctx.corpus if ctx else None,
            k=ctx.k if ctx else self.config.k,
            level=ctx.level if ctx else self.config.relevance_level,
            unbound_reason=reason,
            text=text,
            beside=self._golden_beside(path) if ctx is None else (),
            chunks=ctx.chunks if ctx else None,
            name=run_name(path, model),
            namesakes=namesakes,
            shown=shown,
        )
        runs = [self.score_run(ctx, path)] if ctx is not None else []
        if runs and shown != runs[0].name:
            runs = [replace(runs[0], name=shown)]
        found += _replacement_characters(text)
        return Analysis(path, kind, text, self._suppress(found, text), model, ctx, runs)

    def _namesakes(
        self, ctx: QrelsContext | None, path: Path, name: str
    ) -> tuple[tuple[str, ...], str]:
        """The golden set's other run files named ``name`` (relative to the golden set), and
        the name this run is shown by (naming.py's rule, on the names the files give)."""
        if ctx is None:
            return (), name
        mine = resolve(path)
        named = [(resolve(p), self._name_of(p)) for p in ctx.run_paths]
        if mine not in {p for p, _ in named}:
            named.append((mine, name))
        taken = (BASELINE_NAME,) if self.config.bm25_baseline else ()
        labels = clashing(named, taken).get(name)
        if labels is None:
            return (), name
        root = ctx.path.parent
        others = tuple(_relative_to(p, root) for p in labels if p != mine)
        return others, labels.get(mine, name)

    def compare(self, analysis: Analysis) -> Comparisons | None:
        """The comparison of a golden set's runs with its base (kept on ``analysis``); for a
        run file, the golden set's comparison, of which the editor shows this run's part (so
        that its p-values are adjusted over the same family as in the golden set)."""
        return self.compare_job(analysis)()

    def pool(self, analysis: Analysis) -> Pool | None:
        """A golden set's judging queue over its runs (kept on ``analysis``); None for a run
        file, and for a golden set with no run to pool. The BM25 baseline is not pooled: it is
        one of the systems compared, and `pool --baseline bm25` adds it on purpose."""
        if analysis.pooled:
            return analysis.pool
        ctx = analysis.context
        if ctx is not None and isinstance(analysis.model, Qrels):
            cache = self._pools.setdefault(ctx.path, PoolCache())
            analysis.pool = pool_of(ctx, analysis.runs, cache)
        analysis.pooled = True  # said last, as in `compare`
        return analysis.pool

    def history(self, analysis: Analysis) -> History | None:
        """A golden set's history since the ``diff_base`` revision (core/history/tracker.py),
        made on demand like the judging queue, and kept up to date between keystrokes."""
        ctx = analysis.context
        if not analysis.diffed and ctx is not None and isinstance(analysis.model, Qrels):
            tracker = self._trackers.setdefault(ctx.path, Tracker())
            analysis.history = tracker.history(self, ctx, analysis.runs, analysis.edit)
        analysis.diffed = True
        return analysis.history

    def compare_job(
        self, analysis: Analysis, pause: Callable[[], object] | None = None
    ) -> Callable[[], Comparisons | None]:
        """:meth:`compare` in two parts: the runs and the base are gathered now (project
        state); the function returned makes the comparison (seconds, the first time, at ten
        thousand questions) and touches nothing of the project but the golden set's
        ``Comparer``, so the editor runs it on a thread of its own, where it cannot delay a
        keystroke's analysis (one comparison at a time: a ``Comparer`` is corrected in place);
        ``pause`` is called between the chunks of a fresh resampling."""
        if analysis.compared:
            return lambda: analysis.comparisons
        ctx = analysis.context
        runs, base = analysis.runs, analysis.base
        if ctx is not None and isinstance(analysis.model, Run):
            runs = self.golden_runs(ctx, analysis.runs[0] if analysis.runs else None)
            base = choose_base(ctx, runs, baseline_pending=self.baseline_pending(ctx)).base
        comparer = None
        latest = self._latest
        if ctx is not None and base is not None:
            from ..compare.comparison import Comparer  # numpy: see compare/__init__

            comparer = self._comparers.setdefault(ctx.path, Comparer())
            analysis.previous = _still_shown(latest.get(ctx.path), base, runs)

        def job() -> Comparisons | None:
            if ctx is not None and base is not None:
                made = compare_runs(ctx, runs, base, comparer=comparer, pause=pause)
                analysis.comparisons = made
                if made is not None:
                    latest[ctx.path] = made
                else:
                    latest.pop(ctx.path, None)
            analysis.base = base
            # Said last: the editor reads it to skip this call, and must not skip it while it
            # runs (a second lens request would be answered without the comparison).
            analysis.compared = True
            return analysis.comparisons

        return job

    def compared_before(self, ctx: QrelsContext | None) -> bool:
        """Whether a comparison of this golden set's runs has been made (and so is being shown):
        then the editor brings it up to date after each edit without waiting to be asked."""
        return ctx is not None and ctx.path in self._latest

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
            unread = self._unread(p) if pending is not None else None
            if unread is not None:
                assert pending is not None
                pending.runs.append(unread)
            else:
                runs.append(self.score_run(ctx, p, fast=True))
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
            problems += [_clash(ctx, c) for c in clashes]
        shown = self.baseline(ctx, build=build) if baseline else None
        if shown is not None:
            out.append(shown)
        out += self.fused_runs(ctx, out, problems, build=build, loading=loading)
        return out

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
                lambda r: self.has_scores(ctx, r),
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
        """Drop what was kept for fusions the golden set no longer declares (each keystroke in
        a fusion's `name:` made a new one: a Fuser and a score cache of every question)."""
        declared = {f.name for f in ctx.fusions}
        for fuser in [k for k in self._fusers if k[0] == ctx.path and k[1] not in declared]:
            del self._fusers[fuser]
        golden = resolve(ctx.path)
        for key in list(self._scores):
            run = key[1]
            if (
                key[0] == golden
                and isinstance(run, str)
                and run.removeprefix("fusion ") not in declared
            ):
                del self._scores[key]

    def _fused(self, ctx: QrelsContext, fusion: Fusion, inputs: tuple[RunResult, ...]) -> RunResult:
        scored = METHODS[fusion.method].needs_scores
        given = [Input(r.rankings, self.run_scores(ctx, r) if scored else None) for r in inputs]
        fuser = self._fusers.setdefault((ctx.path, fusion.name), Fuser())
        done = fuser.fuse(fusion.params, given)
        evaluation = self._evaluate(ctx, done.rankings, f"fusion {fusion.name}", done.since)
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

    def has_scores(self, ctx: QrelsContext, result: RunResult) -> bool:
        """Whether every document ``result`` ranks has a score (a fusion by scores needs them)."""
        if not result.from_file:
            return True
        text, _ = self.read(result.path)
        fmt = detect(result.path, text, self.config, "run") if text is not None else None
        if fmt is not None and fmt.scored is not None:
            return fmt.scored
        run = result.run if result.run is not None else self.read_run(result.path, fast=False)[0]
        return run is not None and all(
            d.score is not None for ranking in run.rankings.values() for d in ranking.docs
        )

    def run_scores(self, ctx: QrelsContext, result: RunResult) -> Mapping[str, Sequence[float]]:
        """The scores of ``result``'s rankings (of documents, after any chunk mapping), in their
        order; a run without scores (see :meth:`has_scores`) is never asked."""
        if result.fusion is not None:
            return result.scores or {}
        if result.baseline:
            return self._baselines.scores(ctx.qrels, result.rankings)
        run = result.run if result.run is not None else self.read_run(result.path, fast=False)[0]
        key = resolve(result.path)
        hit = self._run_scores.get(key)
        if hit is not None and hit[0] is run and hit[1] is result.rankings:
            return hit[2]
        doc_of = mapper(ctx.chunks) if ctx.chunks is not None else None
        out: dict[str, list[float]] = {}
        for qid, ranking in (run.rankings if run is not None else {}).items():
            pairs = [(d.doc_id, d.score if d.score is not None else 0.0) for d in ranking.docs]
            given = dict(scored_documents(pairs, doc_of) if doc_of is not None else pairs)
            out[qid] = [given.get(d, 0.0) for d in result.rankings.get(qid, ())]
        self._run_scores[key] = (run, result.rankings, out)
        return out

    def fusions_of(self, ctx: QrelsContext, runs: list[RunResult]) -> list[Fusion]:
        """The context's fusions whose runs are all among ``runs`` (runs named on the command
        line): each name is resolved against all of the golden set's runs, so that a fusion
        means the same runs wherever it is made (`bm25` is not the BM25 baseline just because
        the run file named `bm25` was left out). The BM25 baseline is the golden set's own: a
        fusion naming it needs only its other runs."""
        given = {r.path for r in runs if r.from_file}
        every = [
            RunResult(resolve(p), self._name_of(p), None, Evaluation(), None, {})
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

    def _name_of(self, path: Path) -> str:
        """A run's name without scoring it (a run YAML is read for its `name:`)."""
        if path.suffix.lower() not in (".yaml", ".yml"):
            return run_name(path, None)
        _kind, _text, model, _error = self.load(path, role="run")
        return run_name(path, model if isinstance(model, Run) else None)

    def _named_runs(
        self, ctx: QrelsContext, problems: list[Finding] | None = None
    ) -> list[RunResult]:
        """The golden set's runs by name, unscored (what ``check`` checks fusions against), and
        its BM25 baseline when it has a corpus (its index is not built for that); names that
        clash are said in ``problems`` (QR121), as the scored list says them."""
        out = []
        for p in ctx.run_paths:
            run, rankings, error, name = self.read_run(p, fast=True)
            out.append(RunResult(resolve(p), name, run, Evaluation(), error, rankings))
        out, clashes = distinct(out, (BASELINE_NAME,) if self.config.bm25_baseline else ())
        if problems is not None:
            problems += [_clash(ctx, c) for c in clashes]
        if self.config.bm25_baseline and isinstance(ctx.corpus, Corpus):
            out.append(
                RunResult(ctx.path, BASELINE_NAME, None, Evaluation(), None, {}, baseline=True)
            )
        return out

    def _chunk_findings(self, ctx: QrelsContext, runs: list[RunResult]) -> list[Finding]:
        """QR209 where the golden set writes `chunks:`, for each run whose ids its rule maps to
        no document of the corpus (the rule is probably wrong for that run)."""
        rule = ctx.chunks
        if rule is None or not isinstance(ctx.corpus, Corpus):
            return []
        out = []
        for r in runs:
            if r.from_file and not r.error:
                problem = matches_no_document(r.rankings, rule, ctx.corpus, r.name)
                if problem is not None:
                    span = rule.span if ctx.qrels.chunks is rule else Span(0, 0)
                    out.append(finding(QR209, span, problem))
        return out

    def _suppress(self, found: list[Finding], text: str) -> list[Finding]:
        kept = apply_suppressions(found, text, self.config.ignore)
        return _capped(sorted(kept, key=lambda f: (f.span.start, f.code)))


MAX_FINDINGS = 10_000
"""Findings reported per file: a hundred thousand squiggles help nobody, and each costs the
editor (a diagnostic) and a CI log (a line)."""


def _capped(found: list[Finding]) -> list[Finding]:
    """The first :data:`MAX_FINDINGS` findings, errors first, and one that counts the rest."""
    if len(found) <= MAX_FINDINGS:
        return found
    by_severity = sorted(range(len(found)), key=lambda i: found[i].severity)
    keep = sorted(by_severity[:MAX_FINDINGS])
    rest = len(found) - MAX_FINDINGS
    first_left = found[min(set(range(len(found))) - set(keep))]
    summary = finding(
        "QR006",
        Span(first_left.span.start, first_left.span.start),
        f"{rest:,} more findings in this file are not shown (at most {MAX_FINDINGS:,} are); "
        "fix the ones shown first.",
        severity=Severity.INFO,
    )
    return [*(found[i] for i in keep), summary]


def _unscored(pattern: str, span: Span, errors: list[tuple[Path, str | None]]) -> list[Finding]:
    """A `runs:` entry whose file could not be read (a FIFO, a device, too large, unreadable,
    no ranking in it) is said so where it is written, not scored as zeros in silence. A glob
    matching a file that is not a run (a README beside the runs) is no mistake; naming one
    outright is."""
    out = []
    for path, error in errors:
        if error is None or (has_magic(pattern) and NOT_A_RUN in error):
            continue
        which = "" if pattern == path.name else f" ({path.name})"
        message = f"`{pattern}`{which} is not scored: {error}."
        out.append(finding("QR111", span, message, severity=Severity.ERROR))
    return out


def _replacement_characters(text: str) -> list[Finding]:
    """U+FFFD is what undecodable bytes become (on disk, or in the editor that read the file):
    an id holding it matches nothing, so the first one is pointed at."""
    at = text.find("\ufffd")
    if at == -1:
        return []
    return [
        finding(
            "QR006",
            Span(at, at + 1),
            "U+FFFD (the replacement character) here: the file's bytes were not valid UTF-8 "
            "where it was read, and text holding it matches nothing. Save the file as UTF-8.",
            severity=Severity.WARNING,
        )
    ]


def _attach_topics(qrels: Qrels, topics: Topics) -> None:
    for qid, query in qrels.queries.items():
        topic = topics.get(qid)
        if topic is not None and query.question is None:
            query.question = topic.text


def _fusions(qrels: Qrels, binding: QrelsBinding | None, config: Config) -> list[Fusion]:
    """The fused runs asked for: the golden set's `fusions:`, else its `[[qrels]]` table's,
    else the configuration's `[[fusions]]`."""
    if qrels.fusions is not None:
        return qrels.fusions
    if binding is not None and binding.fusions is not None:
        return list(binding.fusions)
    return list(config.fusions)


def _relative_to(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _clash(ctx: QrelsContext, clash: Clash) -> Finding:
    """QR121 where the golden set names the first of the clashing runs (its `runs:` entry)."""
    first = clash.paths[0]
    span = next(
        (r.span for r in ctx.qrels.runs if first in ctx.run_matches.get(r.value, ())),
        Span(0, 0),
    )
    return finding(QR121, span, clash.message(ctx.path.parent))


def _judgments_stated(
    qrels: Qrels, binding: QrelsBinding | None, config: Config
) -> tuple[Judgments, str] | None:
    """How complete the judgments are said to be, and by whom: the golden set's `judgments:`,
    its `[[qrels]]` table's, the configuration's; None when nothing says (then it is inferred)."""
    if qrels.judgments is not None:
        return cast("Judgments", qrels.judgments.value), "the golden set"
    if binding is not None and binding.judgments is not None:
        return binding.judgments, "its [[qrels]] table"
    if config.judgments is not None:
        return config.judgments, "the configuration"
    return None


def _compare_to(qrels: Qrels, binding: QrelsBinding | None, config: Config) -> Ref | None:
    """The base run asked for: the golden set's `compare_to:`, its `[[qrels]]` table's, the
    configuration's (the last two with no place in this file)."""
    if qrels.compare_to is not None:
        return qrels.compare_to
    name = (binding.compare_to if binding is not None else None) or config.compare_to
    return Ref(name, Span(0, 0)) if name else None


def _read_as(kind: FileKind | None) -> str:
    return f"read as {get(kind).display}" if kind is not None else "of no format qrels-lsp reads"


def _why(found: list[Finding]) -> str:
    """Why a file read as nothing: how much was left out, and the first reason."""
    left = dropping(found)
    if not left:
        return " (no line or entry of one)"
    return f" ({len(left):,} left out; the first: {left[0].message})"


def _union(groups: Iterable[list[Path]]) -> list[Path]:
    """Paths in first-seen order, each once."""
    return list(dict.fromkeys(p for group in groups for p in group))


def _lexical(path: Path) -> Path | None:
    """``path`` made absolute without a look at the disk (None for a NUL byte)."""
    text = str(path)
    return None if "\0" in text else Path(os.path.abspath(text))


def _outside(ctx: QrelsContext, qrels: Qrels) -> list[Finding]:
    """QR112 for the corpus or topics a golden set (or its ``[[qrels]]``) names outside the
    boundary: where ``corpus:`` is written, else at the top of the file."""
    span = qrels.corpus.span if qrels.corpus is not None else Span(0, 0)
    return [finding("QR112", span, f"{why}.") for why in ctx.outside]


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
