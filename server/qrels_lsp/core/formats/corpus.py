"""Corpora: the documents a golden set's ids point at.

A corpus is a folder (every text file is a document, its id the path relative to the folder with
``/``, or that path without its extension when ids are stems: :data:`IdStyle`), a JSONL file, a
TSV file or a TREC ``<DOC>`` file. Loading never raises and never blocks:
the path is stat-ed before it is opened, only regular files are read (a FIFO, a device or a socket
is refused without reading a byte), reads are capped, symlinked folders are not followed (so a
link loop cannot recurse) and bytes are decoded with :func:`.text.decode`, which cannot fail.

In a folder, hidden names (``.git``) and files with a binary suffix (``.png``, ``.pdf``, ``.zip``,
...) are not documents; a file found to hold NUL bytes is indexed as empty, with a problem noted.

Folder corpora are lazy: loading only walks and stats, so the ids (all that the unknown-id check
and completion need) are known without reading 10^5 files; a document's text is read the first
time it is asked for. Single-file corpora are parsed in one pass and held in memory.

Limits (each said in :attr:`Corpus.limits` when it cuts work short, and in :attr:`Corpus.partial`
when documents may be missing because of it): a folder walk looks at :data:`MAX_WALKED` entries,
a corpus is read up to :data:`DEFAULT_MAX_BYTES`, a folder's file up to
:data:`DEFAULT_MAX_FILE_BYTES`; BM25 adds its own (:mod:`.bm25`, :mod:`.tokens`).

A folder holding nothing but recognised multi-document files (``.jsonl``, ``.trec``, e.g. the
Vaswani ``corpus/doc-text.trec``), or a BEIR folder with a ``corpus.jsonl``, is loaded as those
files rather than as one document per file: a 3 MB TREC file is never a single document.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..base.files import MiB, describe_mode, read_regular
from ..base.patterns import DOC_BLOCK, DOCNO_CLOSE, DOCNO_OPEN, HTML_TAG, TITLE_CLOSE, TITLE_OPEN
from ..base.text import LineIndex, Span, decode
from . import parquet
from .sgml import blocks

DEFAULT_MAX_BYTES = 100 * MiB
"""Total bytes read for one corpus; a bigger corpus is truncated, with a problem noted (and
QR106/QR206 say an id may be in the part not read). Memory is what sets it: loaded and indexed
for BM25, a corpus of ordinary English costs 4.5 (JSONL), 4.9 (TSV), 5.2 (TREC) and 2.8 (folder)
bytes per byte read (measured at 128 MiB: peaks of 630-725 MB), and a TREC file whose one
astral character makes its decoded text four bytes a character costs some 8. At 100 MiB the
worst stays under 1 GB; at the former 512 MiB a 495 MB corpus had taken 5.6 GB."""
MAX_WALKED = 50_000
"""Files and folders a folder corpus's walk looks at (hidden and skipped ones included); the
walk stops there, with a problem noted. Walking 50,000 files takes about a second, and reading
them all for BM25 two more (a folder is a hand-kept corpus; large ones come as JSONL or TREC);
``corpus: /`` no longer walks the disk (it took 19.6 s). In a folder holding more entries than
are left to look at, which ones are read is the file system's order."""
DEFAULT_MAX_FILE_BYTES = 64 * MiB
"""Bytes read per file of a folder corpus; bigger files are skipped (they are not prose)."""
LOADER_VERSION = 1
"""Part of the fingerprint: bump when parsing changes what a file yields."""

CorpusFormat = Literal["folder", "jsonl", "tsv", "trec", "multi"]
IdStyle = Literal["path", "stem"]
"""A folder corpus's ids: the path relative to the folder (``kb/1410.txt``), or that path
without its file extension (``kb/1410``: setting ``corpus_ids = "stem"``)."""
Progress = Callable[[int, int], None]
Inside = Callable[[str], bool]
Cancel = Callable[[], bool]

_ID_KEYS = ("_id", "id", "doc_id", "docid")
_TEXT_KEYS = ("text", "contents", "content", "body")
_MULTI_SUFFIXES = {".jsonl": "jsonl", ".trec": "trec"}
_BINARY_SUFFIX_TEXT = (
    ".png .jpg .jpeg .gif .bmp .ico .webp .pdf .zip .gz .tgz .bz2 .xz .zst .7z .tar .jar .whl "
    ".so .dll .dylib .exe .bin .o .a .pyc .class .npz .npy .pkl .pickle .parquet .sqlite .db "
    ".mp3 .mp4 .wav .ogg .mov .avi .woff .woff2 .ttf .otf"
)
_BINARY_SUFFIXES = frozenset(_BINARY_SUFFIX_TEXT.split())


@dataclass(slots=True)
class Document:
    """One document. ``line``/``id_span`` locate its id inside a multi-document file.

    ``id_span`` holds code point *columns* on line ``line`` (0-based), so an editor can jump to
    the id; both are None for a folder document, whose file is the document.
    """

    doc_id: str
    title: str
    text: str
    path: Path
    line: int | None = None
    id_span: Span | None = None
    title_in_text: bool = False  # the title was taken from the text, so indexing it twice is wrong

    @property
    def searchable_text(self) -> str:
        """What BM25 indexes: the title counts once, whether given apart or taken from the text."""
        if self.title_in_text or not self.title:
            return self.text
        return f"{self.title}\n{self.text}"

    def searchable_prefix(self, limit: int) -> str:
        """The first ``limit`` characters of :attr:`searchable_text`, without copying the rest
        (a 30 MB document is copied whole by ``searchable_text``)."""
        if self.title_in_text or not self.title:
            return self.text[:limit]
        return f"{self.title[:limit]}\n{self.text[:limit]}"[:limit]


class CorpusError:
    """Why a corpus could not be loaded at all (missing path, FIFO, unsupported, cancelled)."""

    __slots__ = ("cancelled", "message")

    def __init__(self, message: str, *, cancelled: bool = False) -> None:
        self.message = message
        self.cancelled = cancelled

    def __repr__(self) -> str:
        return f"CorpusError({self.message!r})"

    def __str__(self) -> str:
        return self.message


@dataclass(slots=True)
class _FolderFile:
    path: str  # a Path only when the document is read: a walk makes 50,000 of these
    size: int


class Corpus:
    """Documents by id, in file order. Build with :func:`load_corpus`."""

    def __init__(
        self,
        path: Path,
        format: CorpusFormat,
        fingerprint: str,
        problems: list[str] | None = None,
    ) -> None:
        self.path = path
        self.format: CorpusFormat = format
        self.fingerprint = fingerprint
        self.problems: list[str] = problems if problems is not None else []
        self._docs: dict[str, Document | _FolderFile] = {}
        self._ids_list: list[str] | None = None
        self.max_file_bytes = DEFAULT_MAX_FILE_BYTES
        # Each limit that cut loading or indexing short, said once (also among ``problems``).
        self.limits: list[str] = []
        # Why documents may be missing (a walk or a read stopped at its limit), or None.
        self.partial: str | None = None
        # The multi-document files a folder was read as (empty for a folder of documents).
        self.sources: list[Path] = [path] if format in ("jsonl", "tsv", "trec") else []
        # Files of a folder corpus read by stem whose stems clash (``a.txt``, ``a.md``): each
        # (id, the file kept, the file left out).
        self.clashes: list[tuple[str, str, str]] = []

    # -- building (loader only) -----------------------------------------------------------
    def _add(self, doc_id: str, doc: Document | _FolderFile, where: str) -> None:
        if doc_id in self._docs:
            self.problems.append(
                f"{where}: duplicate document id {doc_id!r}; the first one is kept"
            )
            return
        self._docs[doc_id] = doc
        self._ids_list = None

    def note_limit(self, message: str, *, partial: bool = False) -> None:
        """Say that a limit cut work short; ``partial``: documents may be missing because of it."""
        if message not in self.limits:
            self.limits.append(message)
            self.problems.append(message)
        if partial and self.partial is None:
            self.partial = message

    # -- queries ---------------------------------------------------------------------------
    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def __iter__(self) -> Iterator[Document]:
        return self.documents()

    @property
    def ids(self) -> list[str]:
        """Ids in insertion (file / walk) order; the same list object until the corpus changes."""
        if self._ids_list is None:
            self._ids_list = list(self._docs)
        return self._ids_list

    def get(self, doc_id: str) -> Document | None:
        """The document, reading a folder document's file on first access."""
        entry = self._docs.get(doc_id)
        if entry is None or isinstance(entry, Document):
            return entry
        doc = self._read_folder_document(doc_id, entry)
        self._docs[doc_id] = doc
        return doc

    def file_of(self, doc_id: str) -> Path | None:
        """The file that is the document, in a folder corpus (None in one-file corpora, where a
        document is a line): known from the walk, without reading it."""
        entry = self._docs.get(doc_id)
        if isinstance(entry, _FolderFile):
            return Path(entry.path)
        if entry is not None and entry.line is None:
            return entry.path
        return None

    def peek(self, doc_id: str) -> Document | None:
        """The document, read afresh from a folder document's file and not kept: for one pass
        over every document (indexing), which would otherwise hold the whole folder in memory."""
        entry = self._docs.get(doc_id)
        if entry is None or isinstance(entry, Document):
            return entry
        return self._read_folder_document(doc_id, entry)

    def documents(self) -> Iterator[Document]:
        for doc_id in self.ids:
            doc = self.get(doc_id)
            if doc is not None:
                yield doc

    def closest(self, doc_id: str, n: int = 3) -> list[str]:
        """The ``n`` ids most like ``doc_id``, best first, for "did you mean" fixes.

        Indel similarity (``fuzz.ratio``) suits ids: typos, a wrong extension or folder. It is a
        single vectorised pass, ~10 ms over 10^5 ids; WRatio's partial matching would prefer any
        short id contained in the query and is several times slower.
        """
        if n <= 0 or not self._docs:
            return []
        from rapidfuzz import fuzz, process  # only when a fix is wanted, not at start-up

        hits = process.extract(doc_id, self.ids, scorer=fuzz.ratio, limit=n, score_cutoff=1)
        return [choice for choice, _score, _index in hits]

    def _read_folder_document(self, doc_id: str, entry: _FolderFile) -> Document:
        """The file as it is now. One that was empty when walked is not read: /proc's files say
        0 bytes and hold gigabytes (``corpus: /`` read them); a large one is refused from its
        first bytes when they hold a NUL, before up to 64 MiB of it are read."""
        path = Path(entry.path)
        if entry.size == 0:
            return Document(doc_id, "", "", path, title_in_text=True)
        data, problem = read_regular(path, 8192)
        if data is not None and len(data) == 8192 and b"\0" not in data:  # there may be more
            data, problem = read_regular(path, self.max_file_bytes)
        if problem is None and data is not None and b"\0" in data[:8192]:
            problem = "binary file (NUL byte); indexed as empty"
            data = None
        if problem is not None or data is None:
            self.problems.append(f"{doc_id}: {problem}")
            return Document(doc_id, "", "", path)
        text, decode_problems = decode(data)
        self.problems.extend(f"{doc_id}: {p}" for p in decode_problems)
        return Document(doc_id, _first_line_title(text), text, path, title_in_text=True)


# ---------------------------------------------------------------------------------------------
# Loading


def load_corpus(
    path: str | Path,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    inside: Inside | None = None,
    ids: IdStyle = "path",
) -> Corpus | CorpusError:
    """Load a corpus, or say why not. Never raises, never blocks on a special file.

    ``inside`` says whether a symlinked file of a folder corpus may be followed (the workspace
    boundary): a link that leads out is skipped without looking at what it names. ``ids`` is
    what a folder corpus's documents are called (:data:`IdStyle`)."""
    try:
        return _load(Path(path), progress, cancel, max_bytes, max_file_bytes, inside, ids)
    except _Cancelled:
        return CorpusError("loading the corpus was cancelled", cancelled=True)
    except Exception as exc:  # a loader bug must not take the server down
        return CorpusError(f"cannot load corpus {path}: {type(exc).__name__}: {exc}")


class _Cancelled(Exception):
    pass


def _load(
    path: Path,
    progress: Progress | None,
    cancel: Cancel | None,
    max_bytes: int,
    max_file_bytes: int,
    inside: Inside | None,
    ids: IdStyle = "path",
) -> Corpus | CorpusError:
    try:
        st = path.stat()
    except FileNotFoundError:
        return CorpusError(f"corpus path does not exist: {path}")
    except OSError as exc:
        return CorpusError(f"cannot access corpus path {path}: {exc.strerror or exc}")
    if stat.S_ISDIR(st.st_mode):
        return _load_folder(path, progress, cancel, max_bytes, max_file_bytes, inside, ids)
    if not stat.S_ISREG(st.st_mode):
        return CorpusError(
            f"corpus path is not a regular file or folder: {path} ({describe_mode(st)})"
        )
    fmt = _file_format(path)
    if fmt is None:
        return CorpusError(
            f"unsupported corpus file {path.name}: expected a folder, .jsonl, .tsv or TREC file"
        )
    corpus = Corpus(path, fmt, "")
    sha = hashlib.sha256(f"v{LOADER_VERSION}\0{fmt}\0".encode())
    err = _load_file_into(corpus, path, fmt, path.name, max_bytes, sha, progress, cancel)
    if err is not None:
        return err
    corpus.fingerprint = sha.hexdigest()
    return corpus


def _file_format(path: Path) -> CorpusFormat | None:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", parquet.SUFFIX):  # Parquet: read as the JSONL of its rows
        return "jsonl"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    if suffix in (".trec", ".sgml", ".xml", ".txt", ""):
        return "trec" if _looks_trec(path) else None
    return None


def _looks_trec(path: Path) -> bool:
    data, _ = read_regular(path, 4096)
    return data is not None and b"<DOC>" in data.upper()


def _load_file_into(
    corpus: Corpus,
    path: Path,
    fmt: CorpusFormat,
    where: str,
    limit: int,
    sha: hashlib._Hash,
    progress: Progress | None,
    cancel: Cancel | None,
) -> CorpusError | None:
    """Parse one multi-document file into ``corpus``; hashing its bytes into ``sha``.

    Memory is what bounds a corpus (see :data:`DEFAULT_MAX_BYTES`), so nothing is held twice:
    a file cut at the limit is a view of the bytes read, not a copy; JSONL and TSV are decoded
    line by line (never the whole text: one emoji would make all of it four bytes a character);
    a TREC file is decoded whole and its bytes are let go before it is parsed.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        return CorpusError(f"cannot access corpus file {path}: {exc.strerror or exc}")
    if path.suffix.lower() == parquet.SUFFIX:  # its rows as JSONL, cut at the limit as a file is
        data, problem = parquet.parquet_jsonl(path, limit)
        size = len(data) if data is not None else 0
        data = data[:limit] if data is not None else None  # (its text may be the longer)
    else:
        # A binary file (a disk image, a 2 GB sparse file) is refused from its first bytes,
        # before up to `limit` of it is read and decoded for nothing.
        head, problem = read_regular(path, 8192)
        if head is not None and b"\0" in head:
            return CorpusError(
                f"corpus file {path}: a binary file (it holds NUL bytes), not a corpus"
            )
        data, problem = read_regular(path, limit)
    if data is None:
        return CorpusError(f"corpus file {path}: {problem}")
    end = len(data)
    if size > limit:
        corpus.note_limit(
            f"{where}: larger than the corpus limit of {limit:,} bytes ({limit / MiB:.0f} MiB); "
            "only the first part was read",
            partial=True,
        )
        end = data.rfind(b"\n") + 1
    view = memoryview(data)[:end]
    sha.update(where.encode() + b"\0" + str(end).encode() + b"\0")
    sha.update(view)
    view.release()
    if fmt == "trec":
        text, problems = decode(data if end == len(data) else data[:end])
        del data
        corpus.problems.extend(f"{where}: {p}" for p in problems)
        _parse_trec(corpus, text, path, where, progress, cancel)
        return None
    lines = _byte_lines(data, end, where, corpus, progress, cancel)
    (_parse_jsonl if fmt == "jsonl" else _parse_tsv)(corpus, lines, path, where)
    return None


def _check(cancel: Cancel | None) -> None:
    if cancel is not None and cancel():
        raise _Cancelled


_TICK = 4096  # lines between progress / cancel checks


def _byte_lines(
    data: bytes,
    end: int,
    where: str,
    corpus: Corpus,
    progress: Progress | None,
    cancel: Cancel | None,
) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of ``data[:end]``, each decoded on its own.

    The same lines as decoding the whole text and splitting it at ``\\n``, ``\\r\\n`` and a lone
    ``\\r`` (as :class:`LineIndex` counts them): a line feed is never part of a UTF-8 sequence,
    so invalid bytes are replaced line by line exactly as in the whole text, and the first is
    reported at the same byte. A BOM is dropped.
    """
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    bom = start
    lineno = 0
    reported = False
    while start <= end:
        stop = data.find(b"\n", start, end)
        stop = end if stop == -1 else stop
        raw = data[start:stop]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not reported:
                reported = True
                corpus.problems.append(
                    f"{where}: invalid UTF-8 at byte {start - bom + exc.start}; "
                    "undecodable bytes shown as U+FFFD"
                )
            line = raw.decode("utf-8", "replace")
        if "\r" in line:
            pieces = (line[:-1] if line.endswith("\r") and stop < end else line).split("\r")
        else:
            pieces = [line]
        for piece in pieces:
            if lineno % _TICK == 0:
                _check(cancel)
                if progress is not None:
                    progress(start, end)
            yield lineno, piece
            lineno += 1
        start = stop + 1
    if progress is not None:
        progress(end, end)


def _parse_jsonl(corpus: Corpus, lines: Iterable[tuple[int, str]], path: Path, where: str) -> None:
    loads = json.loads
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except ValueError as exc:
            corpus.problems.append(f"{where}:{lineno + 1}: not valid JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            corpus.problems.append(f"{where}:{lineno + 1}: not a JSON object")
            continue
        doc_id = _first_value(obj, _ID_KEYS)
        if doc_id is None or isinstance(doc_id, (dict, list, bool)):
            corpus.problems.append(f"{where}:{lineno + 1}: no document id (_id, id, doc_id, docid)")
            continue
        doc_id = str(doc_id)
        title = obj.get("title")
        body = _first_value(obj, _TEXT_KEYS)
        doc = Document(
            doc_id,
            title if isinstance(title, str) else "",
            body if isinstance(body, str) else "",
            path,
            lineno,
            _json_id_span(line, doc_id),
        )
        corpus._add(doc_id, doc, f"{where}:{lineno + 1}")


def _first_value(obj: dict[str, object], keys: tuple[str, ...]) -> object:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


def _json_id_span(line: str, doc_id: str) -> Span | None:
    """Where the id's value is written on its line (a heuristic: the first key that holds it)."""
    for key in _ID_KEYS:
        k = line.find(f'"{key}"')
        if k == -1:
            continue
        encoded = (
            f'"{doc_id}"'  # what json.dumps writes for a plain id, without its cost per line
            if doc_id.isprintable() and '"' not in doc_id and "\\" not in doc_id
            else json.dumps(doc_id, ensure_ascii=False)
        )
        v = line.find(encoded, k + len(key) + 2)
        if v != -1:
            return Span(v + 1, v + len(encoded) - 1)
        v = line.find(doc_id, k + len(key) + 2)  # a number id, or an escaped string
        if v != -1:
            return Span(v, v + len(doc_id))
    return None


def _parse_tsv(corpus: Corpus, lines: Iterable[tuple[int, str]], path: Path, where: str) -> None:
    """``id<TAB>text`` or ``id<TAB>title<TAB>text``; a header naming an id column is skipped."""
    for lineno, line in lines:
        if not line.strip():
            continue
        fields = line.split("\t")
        if lineno == 0 and fields[0].strip().lower() in _ID_KEYS:
            continue
        if len(fields) < 2:
            corpus.problems.append(f"{where}:{lineno + 1}: expected id<TAB>text")
            continue
        raw_id = fields[0]
        doc_id = raw_id.strip()
        if not doc_id:
            corpus.problems.append(f"{where}:{lineno + 1}: empty document id")
            continue
        start = len(raw_id) - len(raw_id.lstrip())
        title, body = ("", fields[1]) if len(fields) == 2 else (fields[1], "\t".join(fields[2:]))
        doc = Document(doc_id, title, body, path, lineno, Span(start, start + len(doc_id)))
        corpus._add(doc_id, doc, f"{where}:{lineno + 1}")


# Only literal tags are searched for: a pattern such as ``<DOCNO>\s*(.*?)\s*</DOCNO>`` backtracks
# cubically on a document without ``</DOCNO>`` (6 KB of spaces froze the server for minutes), so
# the tags are found with linear searches and the text between them is stripped in Python.


def _docno(body: str) -> tuple[int, int, int, int] | None:
    r"""Where ``<DOCNO> id </DOCNO>`` is: (tag start, id start, id end, closing tag end).

    The same as the first match of ``<DOCNO>\s*(.*?)\s*</DOCNO>``: its first ``<DOCNO>`` is the
    first one that has a ``</DOCNO>`` after it (if the first has none, no later one has), the lazy
    group ends at the first ``</DOCNO>``, and ``\s`` is what ``str.strip`` strips.
    """
    opening = DOCNO_OPEN.search(body)
    if opening is None:
        return None
    closing = DOCNO_CLOSE.search(body, opening.end())
    if closing is None:
        return None
    inner = body[opening.end() : closing.start()]
    start = opening.end() + len(inner) - len(inner.lstrip())
    return opening.start(), start, start + len(inner.strip()), closing.end()


def _title(text: str) -> str | None:
    """The first ``<TITLE>``/``<HEADLINE>``/``<HEAD>`` section's text, as
    ``<(TITLE|HEADLINE|HEAD)>(.*?)</\\1>`` (case-insensitive, dot matching all) finds it, in
    linear time and without a backreference: an opening tag's section ends at the first closing
    tag with the same name.

    An opening whose name failed once fails again later (fewer closings lie after it), so each
    name is scanned for at most once.
    """
    failed: set[str] = set()
    for opening in TITLE_OPEN.finditer(text):
        name = opening.group(1)
        key = name.lower() if name.isascii() else name  # ASCII names match closings by lower()
        if key in failed:
            continue
        for closing in TITLE_CLOSE.finditer(text, opening.end()):
            if _same_name(closing.group(1), name):
                return text[opening.end() : closing.start()]
        failed.add(key)
    return None


def _same_name(a: str, b: str) -> bool:
    """Whether a closing tag's name is the opening's as a case-insensitive backreference
    compares them: character by character, each lowered by its simple mapping (İ is i)."""
    return len(a) == len(b) and all(_lower(x) == _lower(y) for x, y in zip(a, b, strict=True))


def _lower(c: str) -> str:
    return "i" if c == "\u0130" else c.lower()


def _strip_tags(text: str) -> str:
    """``_TAG.sub(" ", text)`` without rescanning the tail: every tag ends at a ``>``, so after
    the last ``>`` there is none, and each ``<`` there would otherwise scan to the end."""
    cut = text.rfind(">") + 1
    if cut == len(text):
        return HTML_TAG.sub(" ", text)
    return HTML_TAG.sub(" ", text[:cut]) + text[cut:]


def _parse_trec(
    corpus: Corpus,
    text: str,
    path: Path,
    where: str,
    progress: Progress | None,
    cancel: Cancel | None,
) -> None:
    index = LineIndex(text)
    total = len(text)
    for n, block in enumerate(blocks(text, DOC_BLOCK)):
        if n % _TICK == 0:
            _check(cancel)
            if progress is not None:
                progress(block.start, total)
        body = text[block.body : block.body_end]
        line = index.line_of(block.start)
        if not block.closed:
            corpus.problems.append(f"{where}:{line + 1}: <DOC> without </DOC>")
        no = _docno(body)
        if no is None or no[1] == no[2]:
            corpus.problems.append(f"{where}:{line + 1}: <DOC> without <DOCNO>")
            continue
        tag_start, id_start, id_end, tag_end = no
        doc_id = body[id_start:id_end]
        id_line, id_col = index.position(block.body + id_start)
        rest = body[:tag_start] + body[tag_end:]
        title_text = _title(rest)
        title = _strip_tags(title_text).strip() if title_text is not None else ""
        content = _strip_tags(rest).strip()
        doc = Document(
            doc_id,
            title or _first_line_title(content),
            content,
            path,
            id_line,
            Span(id_col, id_col + len(doc_id)),
            title_in_text=True,
        )
        corpus._add(doc_id, doc, f"{where}:{id_line + 1}")
    if progress is not None:
        progress(total, total)


def _first_line_title(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped:
            return stripped[:200]
    return ""


# ---------------------------------------------------------------------------------------------
# Folders


@dataclass(slots=True)
class _Walk:
    files: list[tuple[str, str, int, int]] = field(default_factory=list)  # id, path, size, mtime
    problems: list[str] = field(default_factory=list)
    stopped: bool = False  # the walk reached MAX_WALKED entries: later files were not looked at


def _walk(
    root: Path, cancel: Cancel | None, limit: int = MAX_WALKED, inside: Inside | None = None
) -> _Walk:
    """Regular, visible files under ``root``, in the order of a top-down ``os.walk`` with sorted
    names (each folder's files, then its subfolders), looking at no more than ``limit`` entries.

    Symlinked folders are not entered, so a link loop cannot recurse; symlinked files are
    followed but must be regular files. Hidden names are skipped. Folders are read entry by
    entry, so neither ``corpus: /`` nor one folder of ten million files is listed whole, and the
    walk keeps its own stack, so no depth of nesting overflows Python's.
    """
    out = _Walk()
    left = limit
    stack: list[tuple[str, str]] = [(str(root), "")]  # a folder and its id prefix ("a/b/")
    while stack:
        _check(cancel)
        folder, prefix = stack.pop()
        listed = _list_folder(folder, left, out)
        if listed is None:
            continue
        dirs, files, seen = listed
        left -= seen
        for name, link in sorted(files):
            full = os.path.join(folder, name)
            if link and inside is not None and not inside(full):
                out.problems.append(f"{prefix + name}: skipped: a link out of the workspace")
                continue
            _walk_file(full, prefix + name, out)
        stack.extend((os.path.join(folder, d), f"{prefix}{d}/") for d in sorted(dirs, reverse=True))
        if left <= 0:
            out.stopped = True
            break
    return out


def _list_folder(
    folder: str, left: int, out: _Walk
) -> tuple[list[str], list[tuple[str, bool]], int] | None:
    """A folder's visible subfolders (not symlinks) and files (with whether each is a symlink):
    at most ``left`` entries read."""
    dirs: list[str] = []
    files: list[tuple[str, bool]] = []
    seen = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                seen += 1
                if not entry.name.startswith("."):
                    if entry.is_symlink():
                        # Not looked through here: `_walk` follows a link only inside the
                        # workspace, and a link to a folder is never entered.
                        files.append((entry.name, True))
                    elif _is_folder(entry):
                        dirs.append(entry.name)
                    else:
                        files.append((entry.name, False))
                if seen >= left:
                    break
    except OSError as exc:
        out.problems.append(f"{exc.filename}: unreadable folder: {exc.strerror or exc}")
        return None
    return dirs, files, seen


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """As ``os.walk`` decides (a symlink to a folder is a folder; an error means a file)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _walk_file(full: str, rel: str, out: _Walk) -> None:
    """Keep a regular file with a text suffix (strings, not Paths: this runs 50,000 times)."""
    if os.path.splitext(rel)[1].lower() in _BINARY_SUFFIXES:
        return
    try:
        st = os.stat(full)
    except OSError as exc:
        out.problems.append(f"{rel}: skipped: {exc.strerror or exc}")
        return
    if stat.S_ISDIR(st.st_mode):
        return  # a symlinked folder: not entered, so a link loop cannot recurse
    if not stat.S_ISREG(st.st_mode):
        out.problems.append(f"{rel}: skipped: {describe_mode(st)}")
        return
    out.files.append((rel, full, st.st_size, st.st_mtime_ns))


def _walk_note(walk: _Walk, corpus: Corpus) -> None:
    if walk.stopped:
        corpus.note_limit(
            f"the folder walk stopped after {MAX_WALKED:,} files and folders (its limit); "
            "files after them are not in the corpus",
            partial=True,
        )


def _multi_file_format(walk: _Walk, root: Path) -> tuple[CorpusFormat, list[Path]] | None:
    """The multi-document files a folder stands for, if it is a container rather than a corpus."""
    names = {rel: full for rel, full, _size, _mtime in walk.files}
    if "corpus.jsonl" in names:  # BEIR layout: corpus.jsonl beside queries.jsonl and qrels/
        return "jsonl", [Path(names["corpus.jsonl"])]
    if not names:
        return None
    kinds = {_MULTI_SUFFIXES.get(os.path.splitext(rel)[1].lower()) for rel in names}
    if len(kinds) == 1 and None not in kinds:
        kind = kinds.pop()
        assert kind is not None
        return kind, [Path(full) for full in names.values()]  # type: ignore[return-value]
    return None


def _parquet_shards(root: Path) -> list[Path]:
    """The Parquet files of a folder that holds nothing else to read (a dataset split in shards,
    ``corpus-00000-of-00002.parquet``...), in name order; none for any other folder."""
    try:
        with os.scandir(root) as entries:
            names = sorted(e.name for e in entries if not e.name.startswith(".") and e.is_file())
    except OSError:
        return []
    if not names or not all(n.lower().endswith(parquet.SUFFIX) for n in names):
        return []
    return [root / n for n in names]


def _load_folder(
    root: Path,
    progress: Progress | None,
    cancel: Cancel | None,
    max_bytes: int,
    max_file_bytes: int,
    inside: Inside | None = None,
    ids: IdStyle = "path",
) -> Corpus | CorpusError:
    try:
        with os.scandir(root):
            pass
    except OSError as exc:
        return CorpusError(f"cannot read corpus folder {root}: {exc.strerror or exc}")
    walk = _walk(root, cancel, inside=inside)
    shards = _parquet_shards(root) if not walk.files else []
    if shards:  # Hugging Face's corpus/ folder: Parquet files alone
        return _load_multi(root, "jsonl", shards, walk, progress, cancel, max_bytes)
    multi = _multi_file_format(walk, root)
    if multi is not None:
        return _load_multi(root, multi[0], multi[1], walk, progress, cancel, max_bytes)
    corpus = Corpus(root, "folder", "", list(walk.problems))
    _walk_note(walk, corpus)
    corpus.max_file_bytes = max_file_bytes
    style = "" if ids == "path" else f"{ids}\0"  # (path ids keep the fingerprints they had)
    sha = hashlib.sha256(f"v{LOADER_VERSION}\0folder\0{style}".encode())
    total_bytes = 0
    total = len(walk.files)
    named: dict[str, str] = {}  # id -> the file that has it (for clashing stems)
    for n, (rel, full, size, mtime) in enumerate(walk.files):
        if n % _TICK == 0:
            _check(cancel)
            if progress is not None:
                progress(n, total)
        if size > max_file_bytes:
            corpus.problems.append(f"{rel}: skipped: larger than {max_file_bytes // MiB} MiB")
            continue
        if total_bytes + size > max_bytes:
            corpus.problems.append(
                f"{rel} and later files skipped: the corpus exceeds {max_bytes // MiB} MiB"
            )
            break
        doc_id = rel if ids == "path" else os.path.splitext(rel)[0]
        if doc_id in named:
            corpus.clashes.append((doc_id, named[doc_id], rel))
            continue
        named[doc_id] = rel
        total_bytes += size
        sha.update(f"{rel}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
        corpus._add(doc_id, _FolderFile(full, size), rel)
    if progress is not None:
        progress(total, total)
    corpus.fingerprint = sha.hexdigest()
    return corpus


def _load_multi(
    root: Path,
    fmt: CorpusFormat,
    files: list[Path],
    walk: _Walk,
    progress: Progress | None,
    cancel: Cancel | None,
    max_bytes: int,
) -> Corpus | CorpusError:
    corpus = Corpus(root, "multi" if len(files) > 1 else fmt, "", list(walk.problems))
    _walk_note(walk, corpus)
    corpus.sources = list(files)
    sha = hashlib.sha256(f"v{LOADER_VERSION}\0multi\0{fmt}\0".encode())
    budget = max_bytes
    for f in files:
        if budget <= 0:
            corpus.problems.append(f"{f.name}: skipped: the corpus exceeds {max_bytes // MiB} MiB")
            continue
        budget_used = budget
        with contextlib.suppress(OSError):
            budget_used = min(f.stat().st_size, budget)
        rel = f.relative_to(root).as_posix()
        err = _load_file_into(corpus, f, fmt, rel, budget, sha, progress, cancel)
        if err is not None:
            corpus.problems.append(err.message)
            continue
        budget -= budget_used
    corpus.fingerprint = sha.hexdigest()
    return corpus
