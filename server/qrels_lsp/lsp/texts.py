"""Files as the server's project reads them: an open document's buffer wins over the file on
disk, and a file on disk is read again only when it changes.

On the analysis thread the buffers are those the running job was given (a snapshot of the
editor's documents taken when it was scheduled: the loop goes on applying the next changes
meanwhile); on the event loop, the editor's current ones. The disk cache and that snapshot are
the analysis thread's (the checking mode asserts it).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..core.base.files import read_text
from ..core.base.owner import Owner
from .client import Client
from .convert import uri_of
from .workers import ANALYSIS_THREAD

Read = tuple[str | None, str | None]
StatKey = tuple[int, int, int, int]


class Texts:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.buffers: dict[str, tuple[str, int | None]] = {}  # the running job's documents
        self._disk: dict[Path, tuple[StatKey, Read]] = {}
        self.owner = Owner("the session's texts", ANALYSIS_THREAD)

    def read(self, path: Path, *, keep: bool = True) -> Read:
        """An open buffer wins over the file on disk."""
        uri = uri_of(path)
        if threading.current_thread() is threading.main_thread():
            opened = self.client.open_document(uri)
            return (opened[0], None) if opened is not None else read_text(path)
        opened = self.buffers.get(uri)
        if opened is not None:
            return opened[0], None
        return self.read_disk(path, keep=keep)

    def peek(self, path: Path) -> Read:
        """:meth:`read` for a look taken once: a file on disk read is not kept (the reverse
        links read every run of the workspace for its `qrels:`, and kept a copy of each)."""
        return self.read(path, keep=False)

    def on_disk(self, path: Path) -> str | None:
        """A file's text on disk (what was read of it is not kept), on the analysis thread."""
        return self.read_disk(path, keep=False)[0]

    def read_disk(self, path: Path, *, keep: bool = True) -> Read:
        """A file on disk, read again only when its size, mtime or inode change: a 1M-line run
        beside the golden set being edited is read once, not on every keystroke (and the same
        text object keeps the project's caches valid by identity). ``keep=False``: read for a
        look taken once, and not kept (the copy kept is still used if it is current)."""
        self.owner.check()
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            self._disk.pop(path, None)
            return read_text(path)
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
        hit = self._disk.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        result = read_text(path)
        if keep:
            self._disk[path] = (key, result)
        return result

    def given(self, buffers: dict[str, tuple[str, int | None]]) -> None:
        """The documents the job now starting on the analysis thread was scheduled with."""
        self.owner.check()
        self.buffers = buffers

    def clear(self) -> None:
        self.owner.check()
        self._disk.clear()
