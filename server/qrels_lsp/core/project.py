"""The project graph: which golden set, runs, topics and corpus belong together, and the
analysis of one file in that context (its findings, and the numbers of every run it touches).

Files are read through a :data:`Reader`, so the language server can put its unsaved buffers in
front of the disk (an unsaved buffer wins) while the CLI reads straight from disk. Parses and
corpora are cached; the owner invalidates them when files change.
"""

from __future__ import annotations

import glob
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .checks import CorpusState, check_golden, check_run
from .config import Config, QrelsBinding
from .corpus import Corpus, CorpusError, load_corpus
from .files import read_text
from .findings import Finding, finding
from .kinds import FileKind, kind_of, parse_as
from .metrics import Evaluation, Metric, default_metrics, evaluate, parse_metric
from .model import Qrels, Run
from .suppress import apply_suppressions
from .trec import (
    Topics,
    parse_queries_jsonl,
    parse_queries_tsv,
    parse_trec_topics,
    read_trec_run_ids,
)

Reader = Callable[[Path], tuple[str | None, str | None]]
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class RunResult:
    """A run scored against a golden set."""

    path: Path
    name: str
    run: Run | None  # None when the file could not be read
    evaluation: Evaluation
    error: str | None = None


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


def run_name(path: Path, run: Run | None) -> str:
    """A run's name: its YAML ``name:``, else the file name without ``.run``/``.trec``."""
    if run is not None and run.format == "yaml" and run.name:
        return run.name
    name = path.name
    for suffix in (".yaml", ".yml", ".trec", ".txt", ".run", ".tsv"):
        name = name.removesuffix(suffix)
    return name or path.name


def _disk_reader(path: Path) -> tuple[str | None, str | None]:
    return read_text(path)


class Project:
    def __init__(
        self,
        config: Config,
        read: Reader = _disk_reader,
        progress: Progress | None = None,
        *,
        lens_metrics: bool = False,
    ) -> None:
        self.config = config
        self.lens_metrics = lens_metrics  # always compute recall@k and mrr (the lenses' numbers)
        self.read = read
        self.progress = progress
        self._parsed: dict[Path, tuple[str, Qrels | Run]] = {}
        self._corpora: dict[Path, Corpus | CorpusError] = {}
        self._topics: dict[Path, Topics] = {}
        self._golden_files: list[Path] | None = None

    # -- caches -------------------------------------------------------------------------------
    def forget(self, path: Path) -> None:
        """A file changed: drop what was derived from it."""
        path = path.resolve()
        self._parsed.pop(path, None)
        self._topics.pop(path, None)
        for root in list(self._corpora):
            if path == root or root in path.parents:
                del self._corpora[root]
        self._golden_files = None

    def parsed(self, path: Path, kind: FileKind, text: str) -> Qrels | Run:
        path = path.resolve()
        hit = self._parsed.get(path)
        if hit is not None and hit[0] == text:
            return hit[1]
        model = parse_as(kind, text)
        self._parsed[path] = (text, model)
        return model

    def load(
        self, path: Path, kind: FileKind | None = None
    ) -> tuple[FileKind | None, str | None, Qrels | Run | None, str | None]:
        """(kind, text, model, error) of a file through the reader."""
        text, message = self.read(path)
        if text is None:
            return None, None, None, message
        kind = kind or kind_of(path, text, self.config)
        if kind is None:
            return None, text, None, None
        return kind, text, self.parsed(path, kind, text), None

    def corpus(self, path: Path) -> Corpus | CorpusError:
        path = path.resolve()
        if path not in self._corpora:
            progress = self.progress
            callback = (
                (lambda done, total: progress("Loading corpus", done, total)) if progress else None
            )
            self._corpora[path] = load_corpus(path, progress=callback)
        return self._corpora[path]

    def topics(self, path: Path) -> Topics:
        path = path.resolve()
        if path not in self._topics:
            text, _ = self.read(path)
            name = path.name.lower()
            if text is None:
                topics = Topics()
            elif name.endswith(".jsonl"):
                topics = parse_queries_jsonl(text)
            elif name.endswith((".tsv", ".tab")):
                topics = parse_queries_tsv(text)
            else:
                topics = parse_trec_topics(text)
            self._topics[path] = topics
        return self._topics[path]

    # -- the graph ----------------------------------------------------------------------------
    def binding(self, path: Path) -> QrelsBinding | None:
        resolved = path.resolve()
        return next((b for b in self.config.qrels if b.path == resolved), None)

    def golden_files(self) -> list[Path]:
        """Golden sets under the config root (for a run that names none)."""
        if self._golden_files is None:
            root = self.config.root
            found: list[Path] = []
            if root is not None:
                for pattern in self.config.golden:
                    found.extend(Path(p) for p in glob.glob(str(root / pattern), recursive=True))
            found.extend(b.path for b in self.config.qrels)
            self._golden_files = sorted({p.resolve() for p in found})
        return self._golden_files

    def context(self, path: Path, kind: FileKind, qrels: Qrels) -> QrelsContext:
        folder = path.resolve().parent
        binding = self.binding(path)
        corpus_path: Path | None = None
        if qrels.corpus is not None:
            corpus_path = (folder / qrels.corpus.value).resolve()
        elif binding is not None and binding.corpus is not None:
            corpus_path = binding.corpus
        k = qrels.k or (binding.k if binding else None) or self.config.k
        level = (
            qrels.relevance_level
            if qrels.relevance_level is not None
            else self.config.relevance_level
        )
        if binding is not None and binding.topics is not None:
            _attach_topics(qrels, self.topics(binding.topics))
        patterns = [r.value for r in qrels.runs] or list(binding.runs if binding else ())
        base = folder if qrels.runs else (self.config.root or folder)
        metrics = [parse_metric(m) for m in self.config.metrics] or default_metrics(k)
        if self.lens_metrics:
            metrics += [m for m in (Metric("recall", k), Metric("mrr")) if m not in metrics]
        return QrelsContext(
            path=path.resolve(),
            kind=kind,
            qrels=qrels,
            k=k,
            level=level,
            metrics=metrics,
            corpus_path=corpus_path,
            corpus=self.corpus(corpus_path) if corpus_path is not None else None,
            run_paths=_expand(base, patterns),
        )

    def golden_of(self, run_path: Path, run: Run) -> tuple[Path | None, str | None]:
        """The golden set a run answers: its ``qrels:``, the config, or a golden set listing it."""
        resolved = run_path.resolve()
        if run.qrels is not None:
            target = (resolved.parent / run.qrels.value).resolve()
            if not target.is_file() and self.read(target)[0] is None:
                return None, f"`qrels: {run.qrels.value}` does not exist (looked for {target})."
            return target, None
        for binding in self.config.qrels:
            if any(
                p == resolved
                for p in _expand(self.config.root or binding.path.parent, list(binding.runs))
            ):
                return binding.path, None
        for golden in self.golden_files():
            kind, _text, model, _error = self.load(golden)
            if kind is None or not isinstance(model, Qrels):
                continue
            patterns = [r.value for r in model.runs]
            if resolved in _expand(golden.parent, patterns):
                return golden, None
        return None, None

    # -- analysis -----------------------------------------------------------------------------
    def score_run(self, ctx: QrelsContext, path: Path, *, fast: bool = False) -> RunResult:
        """Score one run file. ``fast`` reads a TREC run without spans or findings (the CLI's
        ``score`` on a million-line run needs the ranking, not the editor's model)."""
        if fast:
            text, _ = self.read(path)
            if text is not None and kind_of(path, text, self.config) == "trec-run":
                return self._scored(ctx, path, None, read_trec_run_ids(text), None)
        kind, _text, model, error = self.load(path)
        run = model if isinstance(model, Run) else None
        if run is None and error is None:
            error = f"{path.name} is not a run file ({kind or 'unknown format'})"
        return self._scored(ctx, path, run, run.ranked_ids() if run is not None else {}, error)

    def _scored(
        self,
        ctx: QrelsContext,
        path: Path,
        run: Run | None,
        rankings: dict[str, list[str]],
        error: str | None,
    ) -> RunResult:
        evaluation = evaluate(
            ctx.qrels.grades(),
            rankings,
            ctx.metrics,
            level=ctx.level,
            unanswerable=ctx.qrels.unanswerable(),
        )
        return RunResult(path.resolve(), run_name(path, run), run, evaluation, error)

    def analyse(self, path: Path, *, with_runs: bool = True) -> Analysis | None:
        """Findings (suppressed as configured) and numbers for one file; None if not ours."""
        kind, text, model, error = self.load(path)
        if error is not None and text is None:
            return None
        if kind is None or model is None or text is None:
            return None
        if isinstance(model, Qrels):
            own = self.context(path, kind, model)
            found = list(model.findings) + check_golden(model, text, own.corpus, level=own.level)
            runs = [self.score_run(own, p) for p in own.run_paths] if with_runs else []
            folder = path.resolve().parent
            for ref in model.runs:
                if not _expand(folder, [ref.value]):
                    found.append(finding("QR111", ref.span, f"No run file matches `{ref.value}`."))
            return Analysis(path, kind, text, self._suppress(found, text), model, own, runs)
        golden_path, reason = self.golden_of(path, model)
        ctx: QrelsContext | None = None
        if golden_path is not None:
            gkind, _gtext, gmodel, _gerr = self.load(golden_path)
            if gkind is not None and isinstance(gmodel, Qrels):
                ctx = self.context(golden_path, gkind, gmodel)
        found = list(model.findings)
        found += check_run(
            model,
            ctx.qrels if ctx else None,
            ctx.corpus if ctx else None,
            k=ctx.k if ctx else self.config.k,
            level=ctx.level if ctx else self.config.relevance_level,
            unbound_reason=reason,
        )
        runs = [self.score_run(ctx, path)] if ctx is not None else []
        return Analysis(path, kind, text, self._suppress(found, text), model, ctx, runs)

    def _suppress(self, found: list[Finding], text: str) -> list[Finding]:
        kept = apply_suppressions(found, text, self.config.ignore)
        return sorted(kept, key=lambda f: (f.span.start, f.code))


def _attach_topics(qrels: Qrels, topics: Topics) -> None:
    for qid, query in qrels.queries.items():
        topic = topics.get(qid)
        if topic is not None and query.question is None:
            query.question = topic.text


def _expand(base: Path, patterns: list[str]) -> list[Path]:
    out: list[Path] = []
    for pattern in patterns:
        full = pattern if Path(pattern).is_absolute() else str(base / pattern)
        hits = sorted(glob.glob(full, recursive=True)) if glob.has_magic(pattern) else [full]
        for hit in hits:
            p = Path(hit).resolve()
            if p not in out and (glob.has_magic(pattern) or p.exists()):
                out.append(p)
    return out
