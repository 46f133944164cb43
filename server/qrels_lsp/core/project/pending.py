"""What an analysis leaves unread rather than wait for it, and the pure reading of it: the
editor reads large runs and the workspace's run YAML files on a thread of its own, then hands
what it read to the project (:meth:`.runs.RunStore.provide`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..formats.run_yaml import qrels_named
from ..model import Ref

if TYPE_CHECKING:
    from ..formats.format import Format

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


DEFER_CHARS = 1 << 20
"""Runs smaller than this are read in the analysis that needs them (milliseconds); larger ones,
when the analysis may defer them, after the golden set's own findings are out."""
