"""What a check is: a module that declares its codes, what it looks at and the inputs it reads,
registered in ``core/checks/__init__.py``.

Per-query checks are cached per query entry (see :mod:`.cache`): a cached finding may be reused
only while everything it was computed from is unchanged, so each check says what it reads beyond
its query's own entry, and the cache keys on exactly those inputs. A check that reads what it did
not declare is caught by a test (``tests/test_check_registry.py``) that hands every check only its
declared inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..base.findings import Finding
from ..base.text import LineIndex
from ..chunks import ChunkRule
from ..coverage.judgments import Completeness
from ..formats.corpus import Corpus, CorpusError
from ..model import Qrels, Query, Run
from .suggestions import SuggestionBudget

if TYPE_CHECKING:
    from ..history.lock import LockState
    from ..model import EntryEdit

Input = Literal["corpus", "level", "newline", "yaml", "lock"]
"""What a per-query check may read beyond its entry: the corpus, the relevance level, the file's
line break (a fix that adds a line uses it), whether the file takes YAML edits (fixes), the
golden set's lock against the corpus (``history/lock.py``)."""

CorpusState = Corpus | CorpusError | None  # None: the file names no corpus


@dataclass(frozen=True, slots=True)
class QueryInputs:
    """Everything a per-query check may be given. ``query``, ``text`` and ``lines`` (the query's
    own entry, read through the whole text) and ``budget`` are always there; the rest only when
    the check declares it."""

    query: Query
    text: str
    lines: LineIndex
    budget: SuggestionBudget
    corpus: Corpus | None
    level: int
    newline: str
    yaml: bool
    lock: LockState | None = None


ALWAYS = frozenset({"query", "text", "lines", "budget"})


@dataclass(frozen=True, slots=True)
class QueryCheck:
    """A check of one query of a golden set (or TREC/BEIR qrels), cached per entry."""

    codes: tuple[str, ...]
    reads: frozenset[Input]
    run: Callable[[QueryInputs], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class GoldenInputs:
    """What a check of a whole golden set reads (it is not cached: it runs on every analysis)."""

    qrels: Qrels
    text: str
    corpus: CorpusState
    level: int
    # How ``qrels`` was made from the last golden set checked, when by an edit of one entry: a
    # check that keeps state between edits (QR108) then updates that entry only.
    edit: EntryEdit | None = None
    judgments: Completeness | None = None  # how complete its judgments are (None: not known)
    lock: LockState | None = None  # its lock against the corpus (None: it has none)


@dataclass(frozen=True, slots=True)
class GoldenCheck:
    codes: tuple[str, ...]
    run: Callable[[GoldenInputs], Iterable[Finding]]
    after_queries: bool = False  # its findings follow the per-query ones


@dataclass(frozen=True, slots=True)
class RunInputs:
    """What a check of a run reads: the run and its text, the golden set it answers (None:
    unbound, and why; ``beside`` names the golden sets in its folder that it could answer) and
    that golden set's corpus and settings (``chunks``: how the run's ids map to documents)."""

    run: Run
    text: str
    qrels: Qrels | None
    corpus: Corpus | None
    k: int
    level: int
    unbound_reason: str | None
    budget: SuggestionBudget
    beside: tuple[str, ...] = ()
    chunks: ChunkRule | None = None
    name: str = ""  # the run's name, as its file says it
    namesakes: tuple[str, ...] = ()  # the golden set's other run files of that name
    shown: str = ""  # the name it is shown by, then (core/project/naming.py)


@dataclass(frozen=True, slots=True)
class RunCheck:
    codes: tuple[str, ...]
    run: Callable[[RunInputs], Iterable[Finding]]
