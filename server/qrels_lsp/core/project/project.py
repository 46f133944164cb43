"""A project: the workspace's golden sets, runs, topics and corpora, and the analysis of one file
in it. Built the same way by the command line (once per command) and by the language server
(kept between keystrokes), from parts that each own one kind of state:

| part | owns |
| --- | --- |
| :class:`.files.Files` | texts read (buffers before the disk), their parses, corpora, topics |
| :class:`.links.Links` | which runs belong to which golden set, both ways; the workspace's files |
| :class:`.contexts.Contexts` | what a golden set points at, resolved; its grades between edits |
| :class:`.runs.RunStore` | what is read of each run for scoring |
| :class:`.scoring.Scoring` | each run's evaluation against each golden set, and its caches |
| :class:`.derived.Derived` | the BM25 baseline and the fused runs |
| :class:`.decisions.Decisions` | comparisons with the base, judging queues |
| :class:`.histories.Histories` | what changed since the ``diff_base`` revision, per golden set |

Data flows one way: files -> links -> contexts -> runs -> scoring -> derived -> decisions (and
histories, beside them), and :func:`.analyse.analyse_golden` / :func:`.analyse.analyse_run` read
them to make an :class:`.analysis.Analysis`. Each part is touched by one thread (see :mod:`..base.owner`).
"""

from __future__ import annotations

from pathlib import Path

from ..base.boundary import Boundary
from ..base.files import resolve
from ..base.owner import Owner
from ..base.text import forget_line_indexes
from ..checks import CheckCache
from ..formats import run_yaml_lines
from ..formats.corpus import Corpus, CorpusError
from ..formats.format import Role
from ..model import FileKind, Qrels, Run
from ..search.indexes import IndexCache
from .analyse import analyse_golden, analyse_run
from .analysis import Analysis
from .config import Config, QrelsBinding
from .contexts import Contexts
from .decisions import Decisions
from .derived import Derived
from .files import Files, Progress, Reader, disk_reader
from .histories import Histories
from .links import Links
from .pending import Loaded, Pending
from .results import QrelsContext
from .runs import RunStore
from .scoring import Scoring


class Project:
    """Files read through ``read`` and only inside ``boundary`` (see :mod:`..base.boundary`): a
    path in a golden set, a run or the configuration that leads out of it is refused, with a
    finding (QR112) where it is written."""

    def __init__(
        self,
        config: Config,
        read: Reader = disk_reader,
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
        self.files = Files(config, read, boundary, peek=peek, progress=progress)
        self.links = Links(self.files)
        self.contexts = Contexts(self.files, self.links, lens_metrics=lens_metrics)
        self.runs = RunStore(self.files, stream_over=stream_over)
        self.scoring = Scoring(self.runs)
        self.derived = Derived(self.scoring, indexes, build_indexes=build_indexes)
        self.decisions = Decisions(self.derived)
        self.histories = Histories(self.contexts, self.runs)
        self._checks: dict[Path, CheckCache] = {}  # per golden set: each entry's findings
        self.owner = Owner("the project's check caches")

    @property
    def boundary(self) -> Boundary:
        return self.files.boundary

    @boundary.setter
    def boundary(self, boundary: Boundary) -> None:
        self.files.boundary = boundary

    @property
    def indexes(self) -> IndexCache:
        return self.derived.indexes

    # -- one file ------------------------------------------------------------------------------
    def analyse(
        self, path: Path, *, with_runs: bool = True, defer: bool = False
    ) -> Analysis | None:
        """Findings (suppressed as configured) and numbers for one file; None if not ours.

        ``defer``: a golden set's large runs not read yet, and the workspace's run YAML files
        the reverse links need, are left to the analysis's ``pending`` (the editor reads them
        on another thread and analyses again): the golden set's own findings (syntax, shape,
        corpus ids) need none of them, and the lens of each such run says it is loading."""
        kind, text, model, _error = self.files.load(path)
        if kind is None or model is None or text is None:
            return None
        if isinstance(model, Qrels):
            self.owner.check()
            checks = self._checks.setdefault(resolve(path), CheckCache())
            return analyse_golden(
                self, path, kind, text, model, with_runs=with_runs, defer=defer, checks=checks
            )
        return analyse_run(self, path, kind, text, model)

    def context(
        self, path: Path, kind: FileKind, qrels: Qrels, pending: Pending | None = None
    ) -> QrelsContext:
        return self.contexts.context(path, kind, qrels, pending)

    def load(
        self, path: Path, kind: FileKind | None = None, role: Role | None = None
    ) -> tuple[FileKind | None, str | None, Qrels | Run | None, str | None]:
        return self.files.load(path, kind, role)

    def read(self, path: Path) -> tuple[str | None, str | None]:
        return self.files.read(path)

    def corpus(self, path: Path) -> Corpus | CorpusError:
        return self.files.corpus(path)

    def binding(self, path: Path) -> QrelsBinding | None:
        return self.links.binding(path)

    def golden_files(self) -> list[Path]:
        return self.links.golden_files()

    def workspace_files(self) -> list[Path]:
        return self.links.workspace_files()

    # -- what an analysis leaves for later -----------------------------------------------------
    def provide(self, loaded: Loaded) -> None:
        """Take what :func:`.pending.read_pending` read for an analysis that deferred it."""
        self.runs.provide(loaded)
        self.links.provide(loaded)

    def compare(self, analysis: Analysis) -> Analysis:
        return self.decisions.compare(analysis)

    def pool(self, analysis: Analysis) -> Analysis:
        return self.decisions.pool(analysis)

    def history(self, analysis: Analysis) -> Analysis:
        return self.histories.history(analysis)

    # -- what changed --------------------------------------------------------------------------
    def forget(self, path: Path) -> None:
        """A file changed: drop what was derived from it (but the per-entry check cache, keyed
        by each entry's text: a golden set saved is not checked whole again)."""
        path = resolve(path)
        self.files.forget(path)
        self.runs.forget(path)
        self.scoring.forget(path)
        self.contexts.forget(path)
        self.links.forget(path)
        self.histories.forget(path)

    def release(self, path: Path) -> None:
        """Drop what was made from a file's span model (the file itself is unchanged): a check of
        the whole workspace must not keep every file's spans in memory once its findings are
        made, nor the editor a closed document's. What scoring keeps of a run (its rankings, read
        without spans) stays, for the golden sets that score it."""
        path = resolve(path)
        self.files.drop_model(path)
        self.runs.drop(path)
        self.scoring.forget(path)
        self.owner.check()
        self._checks.pop(path, None)

    def release_all(self) -> None:
        """Drop what was made from every file (no document is open in the editor): models,
        rankings, scores, comparisons, judging queues. What the workspace is stays: the reverse
        links, corpora and topics (a corpus takes seconds to load again)."""
        self.files.drop_models()
        self.runs.clear()
        self.scoring.clear()
        self.contexts.clear()
        self.derived.clear()
        self.decisions.clear()
        self.histories.clear()
        self.owner.check()
        self._checks.clear()
        forget_line_indexes()
        run_yaml_lines.forget()

    def claim(self, thread: str) -> None:
        """Say that ``thread`` (a name prefix) owns every part: the editor's session gives its
        project to its analysis thread, so that the checking mode catches a touch from the
        event loop even before the analysis thread has touched the part."""
        for part in (
            self.files,
            self.links,
            self.contexts,
            self.runs,
            self.scoring,
            self.derived,
            self.decisions,
            self.histories,
            self,
        ):
            part.owner = Owner(part.owner.what, thread)
