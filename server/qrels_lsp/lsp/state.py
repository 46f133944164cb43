"""What every handler is given: the session (state and analyses), the client (the editor) and
the publisher of diagnostics. Handlers never see pygls's server object."""

from __future__ import annotations

from dataclasses import dataclass

from .client import Client
from .diagnostics import Publisher
from .session import Session


@dataclass(frozen=True, slots=True)
class State:
    session: Session
    client: Client
    publisher: Publisher
