"""Reading files that may be anything: a FIFO, ``/dev/zero``, a 50 MB log, invalid UTF-8.

Everything the tool reads from disk goes through :func:`read_regular`, so no path can block the
editor or read without bound.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .findings import Severity, declare
from .text import decode

QR006 = declare(
    "QR006",
    "file-unreadable",
    Severity.ERROR,
    "any",
    "The file is too large, binary or not UTF-8.",
    drops=True,
)


MiB = 1024 * 1024
MAX_TEXT_BYTES = 64 * MiB  # a 1M-line TREC run is ~50 MB


def describe_mode(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def resolve(path: Path) -> Path:
    """``path.resolve()``, except that a symlink loop (``a -> b -> a``) is not an exception: the
    absolute path is kept, and reading it later fails with a message instead."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" before Python 3.13
        return Path(os.path.abspath(path))


def read_regular(path: Path, limit: int) -> tuple[bytes | None, str | None]:
    """At most ``limit`` bytes of a regular file, or why not.

    O_NONBLOCK plus fstat after opening closes the race where a file is swapped for a FIFO
    between a stat and the open: the open cannot block and the FIFO is not read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"skipped: {describe_mode(st)}"
        chunks: list[bytes] = []
        remaining = limit
        # The size stat gives first, then more if it grew: one chunk, which join returns as it
        # is (8 MiB chunks had a 50 MB run copied once more).
        want = st.st_size + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, want))
            want = 8 * MiB
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks), None
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    finally:
        os.close(fd)


STRUCTURED_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".toml")
"""Files whose parsers read text, not bytes: their BOM is dropped and invalid UTF-8 shown as
U+FFFD. Any other file may be a TREC file (they carry any name), read as trec_eval reads it:
bytes kept (see :func:`~.text.decode`)."""


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> tuple[str | None, str | None]:
    """A text file's content, or why it cannot be had (too large, not a file, unreadable).

    With a text, the message (if any) is a decoding problem worth reporting (invalid UTF-8).
    """
    try:  # a file known to be too large is not read at all (a FIFO's size is 0: refused below)
        if os.stat(path).st_size > limit:
            return None, f"larger than {limit // MiB} MiB"
    except OSError:
        pass  # read_regular says why
    data, error = read_regular(path, limit + 1)
    if data is None:
        return None, error
    if len(data) > limit:
        return None, f"larger than {limit // MiB} MiB"
    if b"\x00" in data[:8192]:
        return None, "a binary file (it holds NUL bytes)"
    text, problems = decode(data, keep_bytes=not path.name.lower().endswith(STRUCTURED_SUFFIXES))
    return text, "; ".join(problems) or None


def cache_root() -> Path:
    """The user's cache folder for qrels-lsp, never the workspace: BM25 indexes and reports are
    derived, large or personal, and a repository under review must not be written to."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qrels-lsp"
