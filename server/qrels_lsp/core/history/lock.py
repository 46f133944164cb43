"""A golden set's lock: what each judged document held when it was judged, so that a judgment
made on a document that has since changed is noticed (docs/history.md, "Stale judgments").

``qrels-lsp lock GOLDEN`` writes ``GOLDEN.lock`` (JSON, one document a line, so a change to
it reads as a change to the documents it concerns): the corpus's fingerprint and, for every
judged document the corpus has, its content hash, size and a short hash per line
(:mod:`.hashes`); for a judged passage (an id the golden set's chunk rule maps to another
document), the document and how many passages it had. The check (``core/checks/
stale_judgment.py``) then says which judged documents were deleted, changed (by how many bytes,
from which line) or cut into passages differently; the judging queue lists them first; an
editor's action accepts a change by rewriting that document's line of the lock.

A lock is read as any file of the workspace is: untrusted, never raising. An unchanged corpus
(the same fingerprint) is not looked at document by document at all.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..base.findings import TextEdit
from ..base.text import Span
from ..chunks import ChunkRule, mapper
from ..formats.corpus import Corpus
from ..model import Qrels
from .hashes import MAX_LINES, Content, Hashes

SUFFIX = ".lock"
FORMAT = "qrels-lsp lock"
VERSION = 1
MAX_LOCKED = 1_000_000
"""Documents read from a lock (a golden set holds up to 100,000 questions)."""

QR130, QR131, QR132, QR133 = "QR130", "QR131", "QR132", "QR133"  # (declared by the check)


def lock_path(golden: Path) -> Path:
    return golden.with_name(golden.name + SUFFIX)


@dataclass(frozen=True, slots=True)
class Locked:
    """A judged document as the lock records it."""

    content: Content
    document: str | None = None  # a passage's document (by the chunk rule)
    passages: int | None = None  # how many passages that document had

    def json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "sha256": self.content.sha256,
            "bytes": self.content.size,
            "lines": self.content.lines,
        }
        if self.document is not None:
            out |= {"document": self.document, "passages": self.passages}
        return out


@dataclass(frozen=True, slots=True)
class Lock:
    """A lock file read: the corpus's fingerprint, each document's record and where its value
    is written (for an edit of that line alone)."""

    fingerprint: str | None
    documents: Mapping[str, Locked]
    places: Mapping[str, Span] = field(default_factory=dict)
    problem: str | None = None
    text: str = ""


def entry_line(doc_id: str, locked: Locked | None) -> str:
    """A document's value, as one line of JSON (``null``: accepted as deleted)."""
    return "null" if locked is None else json.dumps(locked.json(), sort_keys=True)


def lock_text(fingerprint: str, documents: Mapping[str, Locked]) -> str:
    """The lock file: a header, then one document a line, by id."""
    lines = [
        "{" + f'"{FORMAT}": {VERSION},',
        f' "corpus": {json.dumps(fingerprint)},',
        ' "documents": {',
    ]
    entries = [f"  {json.dumps(d)}: {entry_line(d, documents[d])}" for d in sorted(documents)]
    lines.append(",\n".join(entries))
    lines.append(" }}")
    return "\n".join(line for line in lines if line) + "\n"


def parse_lock(text: str) -> Lock:
    """A lock file's records; a file that is not one says why (``problem``), a bad record is
    left out."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Lock(None, {}, problem=f"not valid JSON ({exc})", text=text)
    if not isinstance(data, dict) or data.get(FORMAT) != VERSION:
        return Lock(
            None, {}, problem=f'not a lock of this version (`"{FORMAT}": {VERSION}`)', text=text
        )
    documents = data.get("documents")
    fingerprint = data.get("corpus")
    if not isinstance(documents, dict) or not isinstance(fingerprint, str):
        return Lock(None, {}, problem="`corpus` and `documents` are missing", text=text)
    found = {}
    for doc_id, value in list(documents.items())[:MAX_LOCKED]:
        locked = _locked(value)
        if locked is not None:
            found[doc_id] = locked
    return Lock(fingerprint, found, _places(text, len(found)), text=text)


def _locked(value: object) -> Locked | None:
    if not isinstance(value, dict):
        return None
    sha, size, lines = value.get("sha256"), value.get("bytes"), value.get("lines", "")
    if not isinstance(sha, str) or not isinstance(size, int) or not isinstance(lines, str):
        return None
    document, passages = value.get("document"), value.get("passages")
    if not isinstance(document, str) or not isinstance(passages, int):
        document, passages = None, None
    return Locked(Content(sha, size, lines), document, passages)


def _places(text: str, limit: int) -> dict[str, Span]:
    """Where each document's value is written, on the lines :func:`lock_text` writes
    (``  "ID": VALUE,``), at most ``limit`` of them: read with JSON's own string reader, going
    from one such line to the next (no regular expression, no pass over other lines)."""
    out: dict[str, Span] = {}
    decoder = json.JSONDecoder()
    start = 0 if text.startswith('  "') else text.find('\n  "') + 1
    tries = 0
    while start != 0 or (tries == 0 and text.startswith('  "')):
        tries += 1
        if len(out) >= limit or tries > 2 * limit + 16:
            break
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]  # (a decoding error counts the lines before it: one line)
        doc_id, after = None, len(line)
        if '": ' in line:
            with contextlib.suppress(ValueError):
                doc_id, after = decoder.raw_decode(line, 2)
        if isinstance(doc_id, str) and line.startswith(": ", after):
            stop = len(line) - 1 if line.endswith(",") else len(line)
            out[doc_id] = Span(start + after + 2, start + stop)
        start = text.find('\n  "', end) + 1  # (0: there is none)
    return out


def passage_counts(corpus: Corpus, rule: ChunkRule) -> dict[str, int]:
    """How many of the corpus's ids each document has by the chunk rule (one pass)."""
    doc_of = mapper(rule)
    counts: dict[str, int] = {}
    for doc_id in corpus.ids:
        document = doc_of(doc_id)
        counts[document] = counts.get(document, 0) + 1
    return counts


def record(
    corpus: Corpus,
    doc_id: str,
    hashes: Hashes,
    rule: ChunkRule | None,
    counts: Callable[[], Mapping[str, int]],
) -> Locked | None:
    """A judged document as it is now (None: the corpus has no such document)."""
    content = hashes.of(corpus, doc_id)
    if content is None:
        return None
    document = rule.document(doc_id) if rule is not None else doc_id
    if document == doc_id:
        return Locked(content)
    return Locked(content, document, counts().get(document, 0))


def make_lock(
    qrels: Qrels, corpus: Corpus, hashes: Hashes, rule: ChunkRule | None
) -> tuple[str, int, list[str]]:
    """The lock of every judged document of ``qrels`` the corpus has: its text, how many
    documents it records and the judged ids the corpus lacks."""
    judged = sorted({d for q in qrels.queries.values() for d in q.grades()})
    counts = _lazy(lambda: passage_counts(corpus, rule) if rule is not None else {})
    documents: dict[str, Locked] = {}
    missing = []
    for doc_id in judged:
        locked = record(corpus, doc_id, hashes, rule, counts)
        if locked is None:
            missing.append(doc_id)
        else:
            documents[doc_id] = locked
    return lock_text(corpus.fingerprint, documents), len(documents), missing


def _lazy(make: Callable[[], Mapping[str, int]]) -> Callable[[], Mapping[str, int]]:
    made: list[Mapping[str, int]] = []

    def get() -> Mapping[str, int]:
        if not made:
            made.append(make())
        return made[0]

    return get


@dataclass(frozen=True, slots=True)
class Stale:
    """Why a judged document's judgment may no longer hold: its code and what to say."""

    code: str
    message: str


class LockState:
    """A lock against the corpus as it is now: which judged documents went stale, and the edit
    of the lock that accepts each change. Made once per lock text and loaded corpus (the check
    cache compares it by identity); each document is looked at once."""

    def __init__(
        self, path: Path, lock: Lock, corpus: Corpus | None, hashes: Hashes, rule: ChunkRule | None
    ) -> None:
        self.path = path
        self.lock = lock
        self.corpus = corpus
        self.hashes = hashes
        self.rule = rule
        self.unchanged = corpus is None or lock.fingerprint == corpus.fingerprint
        self._memo: dict[str, Stale | None] = {}
        self._counts = _lazy(lambda: passage_counts(corpus, rule) if corpus and rule else {})

    def staleness(self, doc_id: str) -> Stale | None:
        """Why ``doc_id``'s judgments may no longer hold (None: they hold, or it is not locked)."""
        if self.unchanged or doc_id not in self.lock.documents:
            return None
        if doc_id not in self._memo:
            self._memo[doc_id] = self._stale(doc_id, self.lock.documents[doc_id])
        return self._memo[doc_id]

    def code(self, doc_id: str) -> str | None:
        """The code of ``doc_id``'s staleness (the judging queue's order), None when fresh."""
        stale = self.staleness(doc_id)
        return stale.code if stale is not None else None

    def deleted(self, doc_id: str) -> bool:
        """Whether the lock says ``doc_id`` was judged and the corpus lost it (QR130 says so,
        where QR106 would only say the id is unknown)."""
        stale = self.staleness(doc_id)
        return (
            stale is not None and stale.code in (QR130, QR132) and doc_id not in (self.corpus or ())
        )

    def _stale(self, doc_id: str, locked: Locked) -> Stale | None:
        assert self.corpus is not None
        now = record(self.corpus, doc_id, self.hashes, self.rule, self._counts)
        passages = self._counts().get(locked.document, 0) if locked.document else 0
        if now is None:
            if locked.document is not None and passages:
                return Stale(QR132, _recut(doc_id, locked, passages, gone=True))
            return Stale(QR130, f"`{doc_id}` was judged and is no longer in the corpus: judge "
                         "its question again, or accept the change (the lock forgets it).")  # fmt: skip
        if now.content.sha256 == locked.content.sha256:
            return None
        if locked.document is not None and passages != locked.passages:
            return Stale(QR132, _recut(doc_id, locked, passages, gone=False))
        line = locked.content.first_difference(now.content)
        where = (
            f"first difference at line {line}" if line else f"the same first {MAX_LINES:,} lines"
        )
        sizes = f"{locked.content.size:,} → {now.content.size:,} bytes"
        return Stale(QR131, f"`{doc_id}` changed since it was judged ({sizes}, {where}): judge "
                     "it again, or accept the change (the lock takes it as it is).")  # fmt: skip

    def accept(self, doc_id: str) -> TextEdit:
        """The edit of the lock that takes ``doc_id`` as it is now (``null`` when it is gone):
        its line alone where the lock was written by qrels-lsp, else the whole lock again."""
        assert self.corpus is not None
        now = record(self.corpus, doc_id, self.hashes, self.rule, self._counts)
        place = self.lock.places.get(doc_id)
        if place is not None:
            return TextEdit(place, entry_line(doc_id, now), str(self.path))
        documents = dict(self.lock.documents)
        if now is None:
            documents.pop(doc_id, None)
        else:
            documents[doc_id] = now
        text = lock_text(self.corpus.fingerprint, documents)
        return TextEdit(Span(0, len(self.lock.text)), text, str(self.path))


def _recut(doc_id: str, locked: Locked, passages: int, *, gone: bool) -> str:
    what = "is no longer in the corpus" if gone else "changed"
    return (
        f"The passage `{doc_id}` {what}, and its document `{locked.document}` is cut into "
        f"{passages:,} passages now ({locked.passages:,} when judged): the document was cut "
        "differently. Judge its passages again, or accept the change."
    )


class Locks:
    """Each golden set's lock state, kept while its lock's text, its corpus and its chunk rule
    are the same; one :class:`Hashes` for every corpus."""

    def __init__(self) -> None:
        self.hashes = Hashes()
        self._texts: dict[Path, tuple[str | None, str | None]] = {}
        self._states: dict[Path, LockState | None] = {}
        self._keys: dict[Path, tuple[object, ...]] = {}

    def state(
        self,
        golden: Path,
        corpus: object,
        rule: ChunkRule | None,
        read: Callable[[Path], tuple[str | None, str | None]],
    ) -> LockState | None:
        """The lock state of the golden set at ``golden`` (None: it has no lock)."""
        path = lock_path(golden)
        if path not in self._texts:
            self._texts[path] = read(path)
        text, _problem = self._texts[path]
        known = corpus if isinstance(corpus, Corpus) else None
        key = (text, known, rule)
        hit = self._keys.get(golden)
        if hit is not None and all(a is b or a == b for a, b in zip(hit, key, strict=True)):
            return self._states[golden]
        state = None
        if text is not None:
            state = LockState(path, parse_lock(text), known, self.hashes, rule)
        self._keys[golden], self._states[golden] = key, state
        return state

    def forget(self, paths: Iterable[Path]) -> None:
        """Files changed on disk: a lock among them is read again."""
        for path in paths:
            self._texts.pop(path, None)
