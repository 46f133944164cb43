"""The values the parts of a project hand each other and the views read: a golden set with what
it points at (:class:`QrelsContext`) and a run scored against it (:class:`RunResult`). Plain data,
made by the parts of :mod:`.project`, read by the editor layer and the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import CorpusState
from ..coverage.judgments import Completeness
from ..metrics import Evaluation, Metric, RunCut, Since
from ..model import FileKind, Qrels, Ref, Run

if TYPE_CHECKING:
    from ..chunks import ChunkRule
    from ..fusion import Fusion
    from ..history.lock import LockState
    from ..presets import Chosen


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


EXHAUSTIVE = Completeness("exhaustive", None)
"""A context made without a golden set's judgments to look at (the judgments are said to be or
read as exhaustive until the project's ``context`` says otherwise)."""


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
    preset: Chosen | None = None  # a known benchmark's conventions in force (core/presets.py)
    lock: LockState | None = None  # its lock against the corpus (core/history/lock.py)


def run_name(path: Path, run: Run | None) -> str:
    """A run's name: its YAML ``name:``, else the file name without ``.run``/``.trec``."""
    if run is not None and run.format == "run-yaml" and run.name:
        return run.name
    name = path.name
    for suffix in (".yaml", ".yml", ".json", ".jsonl", ".trec", ".txt", ".tsv", ".run"):
        name = name.removesuffix(suffix)
    return name or path.name
