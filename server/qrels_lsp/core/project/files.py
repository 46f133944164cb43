"""The files part of a project: owns the texts it reads and what each parses to (span models, the
one-entry edit that made a model, corpora, topics), read through a :data:`Reader` so that the
editor's unsaved buffers win over the disk, and never outside the boundary.

Touched by one thread (the editor's analysis thread; the command line's only one): the checking
mode of :mod:`..base.owner` asserts it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..base.boundary import Boundary
from ..base.files import read_text, resolve
from ..base.owner import Owner
from ..formats import detect, parse_as
from ..formats.corpus import Corpus, CorpusError, load_corpus
from ..formats.format import Role
from ..formats.topics import Topics, parse_topics
from ..model import EntryEdit, FileKind, Qrels, Run
from .config import Config
from .incremental import reparse

Reader = Callable[[Path], tuple[str | None, str | None]]
"""A file's (text, None), or (None, why it cannot be read)."""
Progress = Callable[[str, int, int], None]


def disk_reader(path: Path) -> tuple[str | None, str | None]:
    return read_text(path)


class Files:
    """Texts through ``read`` (and ``peek``, for a look taken once: the editor keeps no copy of
    what it peeks at), only inside ``boundary``; parses and corpora kept until ``forget``."""

    def __init__(
        self,
        config: Config,
        read: Reader,
        boundary: Boundary,
        *,
        peek: Reader | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.config = config
        self.boundary = boundary
        self.progress = progress
        self._reader = read
        self._peeker = peek or read
        self._parsed: dict[Path, tuple[str, Qrels | Run]] = {}
        self._edits: dict[Path, tuple[Qrels, EntryEdit]] = {}
        self._corpora: dict[Path, Corpus | CorpusError] = {}
        self._topics: dict[Path, Topics] = {}
        self.owner = Owner("the project's files")

    def read(self, path: Path) -> tuple[str | None, str | None]:
        """A file's text through the reader, or why not; nothing outside the boundary."""
        if not self.boundary.allows(path):
            return None, self.boundary.refusal(path)
        return self._reader(path)

    def peek(self, path: Path) -> tuple[str | None, str | None]:
        """:meth:`read` for a look taken once."""
        if not self.boundary.allows(path):
            return None, self.boundary.refusal(path)
        return self._peeker(path)

    def parsed(self, path: Path, kind: FileKind, text: str) -> Qrels | Run:
        """The model of ``text``, re-parsed by one entry when the last text of a golden set
        differs from it inside one entry (:mod:`.incremental`)."""
        self.owner.check()
        path = resolve(path)
        hit = self._parsed.get(path)
        if hit is not None and hit[0] == text and hit[1].format == kind:
            return hit[1]
        model: Qrels | Run | None = None
        self._edits.pop(path, None)
        if hit is not None and kind == "golden" and isinstance(hit[1], Qrels):
            reparsed = reparse(hit[0], hit[1], text)
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

    def load(
        self, path: Path, kind: FileKind | None = None, role: Role | None = None
    ) -> tuple[FileKind | None, str | None, Qrels | Run | None, str | None]:
        """(kind, text, model, error) of a file; ``role``: what the caller uses it as, when
        content alone cannot tell (a JSON object of integers)."""
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
        self.owner.check()
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
        self.owner.check()
        path = resolve(path)
        if path not in self._topics:
            text, _ = self.read(path)
            self._topics[path] = Topics() if text is None else parse_topics(path.name, text)
        return self._topics[path]

    def forget(self, path: Path) -> None:
        """A file changed: its model, and any corpus or topics it is (or is inside of)."""
        self.owner.check()
        self.drop_model(path)
        self._topics.pop(path, None)
        for root in list(self._corpora):
            if path == root or root in path.parents:
                del self._corpora[root]

    def drop_model(self, path: Path) -> None:
        """The file's span model (the file itself is unchanged, or changed: either way, read
        again when asked)."""
        self.owner.check()
        self._parsed.pop(path, None)
        self._edits.pop(path, None)

    def drop_models(self) -> None:
        """Every span model; corpora and topics stay (a corpus takes seconds to load again)."""
        self.owner.check()
        self._parsed.clear()
        self._edits.clear()
