"""The links part of a project: owns which runs belong to which golden set, in both directions
(a golden set's `runs:` and `[[qrels]]` tables; a run YAML's `qrels:`, the reverse links), and
which golden sets and runs the workspace holds.

The workspace's run YAML files are scanned once for their `qrels:`; a run that is analysed, or
changes on disk, updates its own entry, so a golden set finds the runs that name it without a
scan per keystroke. :attr:`Links.generation` counts the changes (the editor analyses a golden
set's open runs again when it moves).
"""

from __future__ import annotations

from pathlib import Path

from ..base.files import resolve
from ..base.globs import expand
from ..base.owner import Owner
from ..formats import detect, run_yaml
from ..formats.beir_layout import beir_dataset
from ..model import Qrels, Ref, Run
from .config import QrelsBinding
from .files import Files
from .pending import DEFER_CHARS, Loaded, Pending, read_pending


def union(groups: list[list[Path]]) -> list[Path]:
    """Paths in first-seen order, each once."""
    return list(dict.fromkeys(p for group in groups for p in group))


class Links:
    """The project's graph of files, read through ``files`` (and its boundary)."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self.config = files.config
        self._golden_files: list[Path] | None = None
        self._run_files: list[Path] | None = None
        self._names: dict[Path, Path | None] = {}  # run YAML -> the golden set it names
        self.generation = 0  # bumped whenever an entry of the reverse links changes
        self.owner = Owner("the project's links")

    # -- the golden sets and their tables ------------------------------------------------------
    def binding(self, path: Path) -> QrelsBinding | None:
        resolved = resolve(path)
        return next((b for b in self.config.qrels if b.path == resolved), None)

    def beir_binding(self, path: Path) -> QrelsBinding | None:
        """A BEIR dataset's ``qrels/<split>.tsv`` gets the dataset's ``corpus.jsonl`` and
        ``queries.jsonl`` without configuration (looked for inside the boundary only)."""
        found = beir_dataset(resolve(path), self.files.boundary.allows)
        if found is None:
            return None
        return QrelsBinding(path=resolve(path), topics=found.queries, corpus=found.corpus)

    def golden_files(self) -> list[Path]:
        """Golden sets under the config root (for a run that names none), in the boundary."""
        self.owner.check()
        if self._golden_files is None:
            root, boundary = self.config.root, self.files.boundary
            found: list[Path] = []
            if root is not None:
                for pattern in self.config.golden:
                    found.extend(expand(root, pattern, boundary).paths)
            found.extend(b.path for b in self.config.qrels if boundary.allows(b.path))
            self._golden_files = sorted({resolve(p) for p in found})
        return self._golden_files

    def workspace_files(self) -> list[Path]:
        """Every golden set and run of the workspace, by the configured globs and `[[qrels]]`
        tables, in the boundary: what a check of the whole workspace looks at."""
        self.scan_run_files()
        found = {*self.golden_files(), *(self._run_files or [])}
        for binding in self.config.qrels:
            if self.files.boundary.allows(binding.path):
                found.update(resolve(p) for p in self.bound_runs(binding))
        return sorted(found)

    def bound_runs(self, binding: QrelsBinding) -> list[Path]:
        """The runs a ``[[qrels]]`` table lists (its globs are relative to the config file)."""
        base = self.config.root or binding.path.parent
        return union([expand(base, p, self.files.boundary).paths for p in binding.runs])

    # -- the reverse links ---------------------------------------------------------------------
    def runs_naming(self, golden: Path, pending: Pending | None = None) -> list[Path]:
        """The runs whose ``qrels:`` names ``golden``: the workspace's run YAML files (the
        configured run globs) and any run analysed since, in path order. With ``pending``,
        run YAML files not read yet are left to it (the ones known so far are returned)."""
        self.owner.check()
        target = resolve(golden)
        if pending is None or self._run_files is not None:
            self.scan_run_files()
        else:
            files, unread = self._unscanned()
            if sum(len(text) for _path, text in unread) >= DEFER_CHARS:
                pending.names, pending.files = unread, files
            else:  # small: read now (milliseconds)
                self.provide(read_pending(Pending(names=unread, files=files)))
        return sorted(run for run, named in self._names.items() if named == target)

    def scan_run_files(self) -> None:
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
                found.extend(expand(root, pattern, self.files.boundary).paths)
        files = sorted({resolve(p) for p in found})
        unread: list[tuple[Path, str]] = []
        for path in files:
            if path in self._names or path.suffix.lower() not in (".yaml", ".yml"):
                continue
            text, _ = self.files.peek(path)
            fmt = detect(path, text, self.config, "run") if text is not None else None
            if text is not None and fmt is run_yaml.FORMAT:
                unread.append((path, text))  # its `qrels:` only, not its span model
            else:
                self._names[path] = None
        return files, unread

    def provide(self, loaded: Loaded) -> None:
        """Take the run YAML files' `qrels:` that :func:`.pending.read_pending` read."""
        self.owner.check()
        if loaded.names is not None and self._run_files is None:
            for path, ref in loaded.names:
                if path not in self._names:
                    self.link(path, self._named_by(path, ref))
            self._run_files = loaded.files

    def link(self, run: Path, golden: Path | None) -> None:
        """Record the golden set a run names (None: none)."""
        self.owner.check()
        if self._names.get(run) != golden:  # (a new run naming none changes no golden set)
            self.generation += 1
        self._names[run] = golden

    def _named_by(self, run_path: Path, qrels: Ref | None) -> Path | None:
        """The golden set a run's ``qrels:`` names, if it is a file inside the boundary."""
        if qrels is None:
            return None
        target = self.files.boundary.resolve(resolve(run_path).parent / qrels.value)
        return target if target is not None and target.is_file() else None

    # -- a run's golden set --------------------------------------------------------------------
    def golden_beside(self, run_path: Path) -> tuple[str, ...]:
        """The golden sets in a run's own folder, by file name (what its `qrels:` would say)."""
        folder = resolve(run_path).parent
        return tuple(p.name for p in self.golden_files() if p.parent == folder)

    def golden_of(self, run_path: Path, run: Run) -> tuple[Path | None, str | None]:
        """The golden set a run answers: its ``qrels:``, the config, or a golden set listing it."""
        resolved, boundary = resolve(run_path), self.files.boundary
        if run.qrels is not None:
            target = boundary.resolve(resolved.parent / run.qrels.value)
            if target is None:
                return None, boundary.refusal(run.qrels.value)
            if not target.is_file() and self.files.read(target)[0] is None:
                return None, f"`qrels: {run.qrels.value}` does not exist (looked for {target})."
            return target, None
        for binding in self.config.qrels:
            if boundary.allows(binding.path) and resolved in self.bound_runs(binding):
                return binding.path, None
        for golden in self.golden_files():
            kind, _text, model, _error = self.files.load(golden)
            if kind is None or not isinstance(model, Qrels):
                continue
            if any(resolved in expand(golden.parent, r.value, boundary).paths for r in model.runs):
                return golden, None
        return None, None

    def forget(self, path: Path) -> None:
        """A file changed on disk: glob again, and drop its own reverse link."""
        self.owner.check()
        self._golden_files = None
        self._run_files = None  # a run may have been added or removed
        if self._names.pop(path, None) is not None:
            self.generation += 1
