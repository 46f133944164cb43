"""The service: the session and the publisher of diagnostics, wired together and configured from
what ``initialize`` said. It is made once the initialize answer is sent (see ``state.py``):
this module imports the session, and with it the whole core, which the handshake does without.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .client import Client
from .diagnostics import Publisher
from .gate import Gate
from .indexing import on_analysis
from .session import Session

if TYPE_CHECKING:
    from .state import Handshake


@dataclass(frozen=True, slots=True)
class Service:
    session: Session
    publisher: Publisher

    def configure(self, handshake: Handshake) -> None:
        """The session configured from what ``initialize`` said; the problems in the editor's
        settings are shown in one pop-up."""
        session = self.session
        session.allowance = handshake.allowance
        problems = session.configure(handshake.root, handshake.settings, handshake.folders)
        session.client.warn_settings(problems)


def start(
    client: Client, gate: Gate, handshake: Handshake, on_close: Sequence[Callable[[str], object]]
) -> Service:
    """The session, configured from ``handshake``, and the publisher told of every result, close
    and reloaded configuration."""
    session = Session(client, gate)
    publisher = Publisher(session, client)
    session.on_result.append(publisher.result)
    session.on_close.append(publisher.cleared)
    session.on_close.extend(on_close)
    session.on_config.append(publisher.config)
    session.on_analysis.append(lambda uri, analysis: on_analysis(session, uri, analysis))
    service = Service(session, publisher)
    service.configure(handshake)
    return service
