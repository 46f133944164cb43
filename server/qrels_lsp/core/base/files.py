"""Reading files that may be anything: a FIFO, ``/dev/zero``, a 50 MB log, invalid UTF-8; and
writing files where a repository may have planted a symlink.

Everything the tool reads from disk goes through :func:`read_regular`, so no path can block the
editor or read without bound; everything it writes goes through :func:`output`, so no symlink
committed at an output path can point a write at ``~/.bashrc``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

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
TOO_LARGE = "larger than"  # how the refusal of a file past the cap begins


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


def kind_of(path: Path) -> str | None:
    """``"file"`` (a regular file, symlinks followed), ``"folder"``, ``"other"``, or None when it
    cannot be looked at, for whatever reason: pathlib's ``is_file`` and ``exists`` raise on a
    name too long for the system (a workspace's megabyte ``qrels:``, a 300-character argument)
    or a folder that cannot be searched, where a path someone else wrote must give an answer."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else "other"


def is_file(path: Path) -> bool:
    return kind_of(path) == "file"


def is_folder(path: Path) -> bool:
    return kind_of(path) == "folder"


def exists(path: Path) -> bool:
    return kind_of(path) is not None


def _open_fd(path: Path) -> tuple[int | None, os.stat_result | None, str | None]:
    """A regular file opened for reading, its stat, or why not.

    O_NONBLOCK plus fstat after opening closes the race where a file is swapped for a FIFO
    between a stat and the open: the open cannot block and the FIFO is not read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return None, None, f"unreadable: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        return None, None, f"unreadable: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None, None, f"skipped: {describe_mode(st)}"
    return fd, st, None


def open_regular(path: Path) -> tuple[BinaryIO | None, str | None]:
    """A regular file opened to be read in chunks (a run too large to hold: streamed), or why
    not; the same refusals as :func:`read_regular`."""
    fd, _st, problem = _open_fd(path)
    if fd is None:
        return None, problem
    return os.fdopen(fd, "rb", buffering=0), None


def read_regular(path: Path, limit: int) -> tuple[bytes | None, str | None]:
    """At most ``limit`` bytes of a regular file, or why not."""
    fd, st, problem = _open_fd(path)
    if fd is None or st is None:
        return None, problem
    try:
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


BINARY_TEXT: dict[str, Callable[[bytes], tuple[str | None, str | None]]] = {}
"""Binary files that hold a text format's rows, by suffix: their bytes to that text, or why
not. ``core/formats/parquet.py`` puts Parquet here (as JSONL), so that every reader of files
(the command line's, the editor's disk, the API's) reads a Parquet dataset as the same text."""


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> tuple[str | None, str | None]:
    """A text file's content, or why it cannot be had (too large, not a file, unreadable).

    With a text, the message (if any) is a decoding problem worth reporting (invalid UTF-8).
    """
    try:  # a file known to be too large is not read at all (a FIFO's size is 0: refused below)
        if os.stat(path).st_size > limit:
            return None, f"{TOO_LARGE} {limit // MiB} MiB"
    except OSError:
        pass  # read_regular says why
    data, error = read_regular(path, limit + 1)
    if data is None:
        return None, error
    return text_of(data, path.name, limit)


def text_of(data: bytes, name: str, limit: int = MAX_TEXT_BYTES) -> tuple[str | None, str | None]:
    """The text of a file's bytes (read from disk, or from a git revision) as :func:`read_text`
    gives it: refused past ``limit`` or when it holds NUL bytes, decoded by its name's kind."""
    if len(data) > limit:
        return None, f"{TOO_LARGE} {limit // MiB} MiB"
    convert = BINARY_TEXT.get(os.path.splitext(name)[1].lower())
    if convert is not None:
        return convert(data)
    if b"\x00" in data[:8192]:
        return None, "a binary file (it holds NUL bytes)"
    text, problems = decode(data, keep_bytes=not name.lower().endswith(STRUCTURED_SUFFIXES))
    return text, "; ".join(problems) or None


def cache_root() -> Path:
    """The user's cache folder for qrels-lsp, never the workspace: BM25 indexes and reports are
    derived, large or personal, and a repository under review must not be written to."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qrels-lsp"


class OutputRefused(OSError):
    """An output path not written: a symlink, not a regular file, or led out of the workspace by
    one of its symlinks. An :class:`OSError`, so a writer's ``except OSError`` reports it too."""


def _link_out_of(written: str, inside: Path) -> str | None:
    """The first folder on the way to ``written`` (an output path, ``..`` taken as the kernel
    takes it) that is a symlink in ``inside`` leading out of it, if any."""
    root = resolve(inside)
    parts = [p for p in os.path.join(os.getcwd(), written).split(os.sep) if p not in ("", ".")]
    for n in range(1, len(parts)):
        prefix = os.path.join(os.sep, *parts[:n])
        try:
            if not stat.S_ISLNK(os.lstat(prefix).st_mode):
                continue
        except OSError:
            return None  # not there: the write fails with the system's own message
        link = Path(prefix)
        if resolve(link.parent).is_relative_to(root) and not resolve(link).is_relative_to(root):
            return prefix
    return None


def _refuse(path: Path, inside: Path | None) -> None:
    """Raise :class:`OutputRefused` when ``path`` must not be written (:class:`PermissionError`
    when it is a file this user may not write: renaming over it would replace it all the same)."""
    text = os.fspath(path)
    if "\0" in text:
        raise OutputRefused(f"{text!r} holds a NUL byte, which no file name can")
    try:
        st: os.stat_result | None = os.lstat(text)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        target = resolve(path)
        raise OutputRefused(
            f"{text} is a symlink (to {target}), so it is not written: a repository's symlink "
            f"can lead anywhere; to write {target}, name it itself"
        )
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputRefused(f"{text} is {describe_mode(st)}, so it is not written")
    link = _link_out_of(text, inside) if inside is not None else None
    if link is not None:
        raise OutputRefused(
            f"{text} leads out of {inside} through the symlink {link} (to "
            f"{resolve(Path(link))}), so it is not written; to write there, name "
            f"{resolve(path)} itself"
        )
    if st is not None and not os.access(text, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), text)


_NEW = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def output(
    path: Path,
    *,
    append: bool = False,
    inside: Path | None = None,
    errors: str = "strict",
    keep_mode: bool = False,
) -> Iterator[TextIO]:
    """A text file to write at ``path``, UTF-8, streamed as it is written.

    Refused (:class:`OutputRefused`): a symlink at ``path`` (the file it leads to is written only
    when named itself), a folder, FIFO or device there, and, given ``inside`` (the command line's
    workspace), a path that one of that folder's symlinks leads out of it. The text goes to a new
    file beside ``path`` (``O_EXCL``, the mode a new file gets) renamed over it once complete, so
    a reader sees the old file or the whole new one, and the rename replaces whatever name is at
    ``path`` rather than following it. ``append`` (GitHub's step summary, which steps add to) opens
    ``path`` itself with ``O_APPEND | O_NOFOLLOW`` and writes only to a regular file.
    ``keep_mode``: the new file gets the permissions of the one it replaces (a file rewritten in
    place, ``fmt``'s), not a new file's.
    """
    _refuse(path, inside)
    if append:
        fd = os.open(path, _NEW | os.O_APPEND | getattr(os, "O_NONBLOCK", 0), 0o666)
        try:
            st = os.fstat(fd)  # swapped for a FIFO since the look: not written
            if not stat.S_ISREG(st.st_mode):
                raise OutputRefused(f"{path} is {describe_mode(st)}, so it is not written")
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, "a", encoding="utf-8", errors=errors) as f:
            yield f
        return
    fd, tmp = _new_beside(path)
    try:
        if keep_mode:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(fd, stat.S_IMODE(os.lstat(path).st_mode))
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _new_beside(path: Path) -> tuple[int, str]:
    """A new, empty file in ``path``'s folder (a name of fixed length: ``path``'s own may be
    at the system's limit), created by this call and no other."""
    folder = os.path.dirname(os.fspath(path)) or os.curdir
    for _attempt in range(100):
        tmp = os.path.join(folder, f".qrels-lsp-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, _NEW | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", folder)


def write_output(
    path: Path,
    text: str,
    *,
    inside: Path | None = None,
    errors: str = "strict",
    keep_mode: bool = False,
) -> None:
    """``text`` written to ``path`` as :func:`output` writes."""
    with output(path, inside=inside, errors=errors, keep_mode=keep_mode) as f:
        f.write(text)
