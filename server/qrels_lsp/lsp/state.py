"""What every handler is given: the client (the editor) and the service (the session, with its
state and analyses, and the publisher of diagnostics). Handlers never see pygls's server object.

The server answers ``initialize`` before the core is imported (docs/architecture.md,
"Start-up"): the handlers are registered against this object when the server is built, and
the service, whose modules import the whole core, is made from what ``initialize`` said once
its answer is sent (``lifecycle.py``), or by the first handler that asks for the session
before that (messages that came in the same read as ``initialize``), whichever is first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .client import Client
from .gate import Gate
from .heap import kept_for_good

if TYPE_CHECKING:
    from .diagnostics import Publisher
    from .service import Service
    from .session import Session


@dataclass(slots=True)
class Handshake:
    """What ``initialize`` said that the service is made from: the workspace, the editor's
    start-up settings and the ``allow_outside`` they hold (the one source of it)."""

    root: Path | None = None
    folders: list[Path] = field(default_factory=list)
    settings: dict[str, Any] | None = None
    allowance: Any = None


class State:
    def __init__(self, client: Client, gate: Gate) -> None:
        self.client = client
        self.gate = gate
        self.handshake = Handshake()
        # Called with each closed document: what features keep per document is dropped.
        self.on_close: list[Callable[[str], object]] = []
        self._service: Service | None = None

    def start(self) -> Service:
        """The service, made at the first call (see the module's docstring)."""
        if self._service is None:
            with kept_for_good():  # the core's classes and tables live as long as the process
                from .service import start

            self._service = start(self.client, self.gate, self.handshake, self.on_close)
        return self._service

    @property
    def started(self) -> Service | None:
        """The service if it was made (``shutdown`` and ``exit`` make none to stop)."""
        return self._service

    @property
    def session(self) -> Session:
        return self.start().session

    @property
    def publisher(self) -> Publisher:
        return self.start().publisher
