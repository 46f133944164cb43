"""The BM25 index kept on disk between sessions, in the user's cache folder (never the
workspace): an index is derived, large and personal, and rebuilding one for a big corpus takes
seconds. The cache holds at most :data:`MAX_CACHE_BYTES` (least recently used files go first)
and no file over :data:`MAX_INDEX_FILE_BYTES`; nothing in it is unpickled."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..base.files import cache_root
from ..formats.corpus import Corpus
from .bm25 import EPSILON, INDEX_FORMAT_VERSION, K1, B, BM25Index, Cancel, Progress, build_index
from .tokens import TOKENIZER_VERSION


def default_cache_dir() -> Path:
    """The user's cache folder, never the workspace: indexes are derived, large and personal."""
    return cache_root()


def cache_key(corpus: Corpus) -> str:
    """What an index depends on: the corpus content and everything that shapes tokens/scores."""
    parts = {
        "corpus": corpus.fingerprint,
        "tokenizer": TOKENIZER_VERSION,
        "format": INDEX_FORMAT_VERSION,
        "params": [K1, B, EPSILON],
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def cache_path(corpus: Corpus, cache_dir: str | Path | None = None) -> Path:
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return root / "bm25" / f"{cache_key(corpus)[:40]}.npz"


def load_or_build(
    corpus: Corpus,
    cache_dir: str | Path | None = None,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> BM25Index | None:
    """The cached index for this corpus content, or a fresh one (then cached); None if cancelled.

    A missing, stale, corrupt or foreign cache file is ignored and rebuilt; a cache folder that
    cannot be written only costs the next session a rebuild. Nothing is unpickled.
    """
    path = cache_path(corpus, cache_dir)
    key = cache_key(corpus)
    notes: list[str] = []
    cached = _read_cache(path, key, corpus.ids, notes)
    if cached is not None:
        for note in notes:  # what building it had noted (documents indexed in part)
            corpus.note_limit(note)
        _touch(path)
        return cached
    known = len(corpus.limits)
    index = build_index(corpus, progress=progress, cancel=cancel)
    if index is not None and not (cancel is not None and cancel()):  # the write: one step
        _write_cache(path, key, index, corpus.limits[known:])
        _evict(path.parent, keep=path)
    return index


MAX_CACHE_BYTES = 2 * 1024**3
"""The BM25 disk cache's total size: past it, the least recently used index files are removed
(each use touches its file). Every corpus ever opened left an index behind, without bound."""
MAX_INDEX_FILE_BYTES = 512 * 1024**2
"""An index file bigger than this is not written (a corpus at its 100 MiB limit makes some
150 MB); the index is then rebuilt each session. A 495 MB corpus had left a 927 MB file."""


def _touch(path: Path) -> None:
    """Mark a cache file as used now, for :func:`_evict` (access times are often not kept)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _evict(folder: Path, keep: Path, budget: int = MAX_CACHE_BYTES) -> None:
    """Remove the least recently used index files until the folder holds at most ``budget``
    bytes (``keep``, just written, stays), and temporary files a crashed write left behind."""
    files: list[tuple[float, int, Path]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        path = Path(entry.path)
        if entry.name.startswith(".tmp-"):
            if now - st.st_mtime > 3600:  # a write in progress takes seconds, not an hour
                path.unlink(missing_ok=True)
            continue
        if entry.name.endswith(".npz"):
            files.append((st.st_mtime, st.st_size, path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):  # oldest use first
        if total <= budget:
            break
        if path == keep:
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            total -= size


_ARRAYS = {
    "idf": np.float64,
    "offsets": np.int64,
    "post_docs": np.int32,
    "post_tf": np.int32,
    "doc_len": np.int64,
}


def _write_cache(
    path: Path, key: str, index: BM25Index, notes: Sequence[str] = (), limit: int | None = None
) -> bool:
    """Write the index (unless it would pass ``limit`` bytes); whether it was written."""
    limit = MAX_INDEX_FILE_BYTES if limit is None else limit
    vocab = sorted(index.vocab, key=index.vocab.__getitem__)
    meta = {"key": key, "doc_ids": index.doc_ids, "vocab": vocab, "notes": list(notes)}
    blob = np.frombuffer(json.dumps(meta, ensure_ascii=False).encode(), dtype=np.uint8)
    size = blob.nbytes + sum(getattr(index, name).nbytes for name in _ARRAYS)
    if size > limit:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, meta=blob, **{name: getattr(index, name) for name in _ARRAYS})
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def _read_cache(
    path: Path, key: str, doc_ids: list[str], notes: list[str] | None = None
) -> BM25Index | None:
    """The cached index, if it is this corpus's and sound; its notes are added to ``notes``."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in (*_ARRAYS, "meta")}
        meta = json.loads(arrays.pop("meta").tobytes().decode())
        if meta.get("key") != key or meta.get("doc_ids") != doc_ids:
            return None
        vocab_list = meta["vocab"]
        meta_notes = meta.get("notes", [])
        if not all(isinstance(t, str) for t in (*vocab_list, *meta_notes)):
            return None
        index = BM25Index(
            doc_ids=doc_ids,
            vocab={t: i for i, t in enumerate(vocab_list)},
            **{name: arrays[name] for name in _ARRAYS},
        )
    except Exception:  # any damage means rebuild; a cache never breaks the server
        return None
    if not _consistent(index, arrays):
        return None
    if notes is not None:
        notes.extend(meta_notes)
    return index


def _consistent(index: BM25Index, arrays: dict[str, np.ndarray]) -> bool:
    """Reject a file whose arrays would index out of bounds or disagree with each other."""
    for name, dtype in _ARRAYS.items():
        a = arrays[name]
        if a.dtype != dtype or a.ndim != 1:
            return False
    n, v = len(index.doc_ids), len(index.vocab)
    offs = index.offsets
    if len(index.idf) != v or len(offs) != v + 1 or len(index.doc_len) != n:
        return False
    if offs[0] != 0 or offs[-1] != len(index.post_docs) or len(index.post_tf) != offs[-1]:
        return False
    if np.any(np.diff(offs) < 0):
        return False
    docs = index.post_docs
    return not (len(docs) and (docs.min() < 0 or docs.max() >= n))
