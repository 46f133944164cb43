"""Which thread owns a piece of mutable state, said in code and checked where it is touched.

The language server runs work on several threads (docs/architecture.md, "Threads"): a structure
without a lock must be touched by one of them only. An :class:`Owner` records the thread that
first touched its structure (or the one it was told) and, in the checking mode, raises
:class:`OwnershipError` when another thread touches it: a race found by the test that makes it,
not by a user months later on free-threaded Python. The mode is on when the environment says
``QRELS_LSP_CHECK_THREADS=1`` (the test suite sets it, for itself and the servers it starts);
off, a check is one attribute read.
"""

from __future__ import annotations

import os
import threading

CHECK_ENV = "QRELS_LSP_CHECK_THREADS"
CHECKING = os.environ.get(CHECK_ENV) == "1"


class OwnershipError(RuntimeError):
    """A structure owned by one thread was touched from another."""


class Owner:
    """The one thread that may touch a structure: the first that does, unless ``thread`` names
    one (by its name prefix, as the server's executors name theirs)."""

    __slots__ = ("_ident", "_prefix", "what")

    def __init__(self, what: str, thread: str | None = None) -> None:
        self.what = what
        self._prefix = thread
        self._ident: int | None = None

    def check(self) -> None:
        if not CHECKING:
            return
        current = threading.current_thread()
        if self._prefix is not None:
            if not current.name.startswith(self._prefix):
                raise OwnershipError(
                    f"{self.what} belongs to the {self._prefix} thread; touched from {current.name}"
                )
            return
        if self._ident is None:
            self._ident = current.ident
        elif self._ident != current.ident:
            raise OwnershipError(
                f"{self.what} belongs to the thread that first touched it; "
                f"touched from {current.name}"
            )

    def hand_over(self) -> None:
        """Forget the owner: the next thread to touch the structure owns it (a structure made on
        one thread and handed whole to another, which keeps it)."""
        self._ident = None
