"""The pygls server: built here, with the transport of ``transport.py`` and the handlers of
``lifecycle.py`` and ``features/``, each given the :class:`~.state.State` (never this object)."""

from __future__ import annotations

import functools
from typing import BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from . import compat, indexing, lifecycle
from .client import Client
from .diagnostics import Publisher
from .features import (
    actions,
    completion,
    folding,
    hover,
    inlay,
    judging,
    lenses,
    links,
    navigation,
    report,
    selection,
    semantic_tokens,
    workspace_diagnostics,
)
from .gate import Gate
from .session import Session
from .state import State
from .transport import run_stdio, serve_socket


class QrelsServer(LanguageServer):
    def __init__(self) -> None:
        self.gate = Gate()  # closed while the editor is answered (see gate.py)
        super().__init__(
            "qrels-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=compat.QrelsProtocol,
        )

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls's stdio server with a framing that survives a broken client (transport.py)."""
        compat.run_stdio(self, functools.partial(run_stdio, gate=self.gate), stdin, stdout)

    def start_tcp(self, host: str, port: int) -> None:
        compat.run_tcp(self, functools.partial(serve_socket, gate=self.gate), host, port)


def create_server() -> QrelsServer:
    server = QrelsServer()
    client = Client(server)
    session = Session(client, server.gate)
    publisher = Publisher(session, client)
    session.on_result.append(publisher.result)
    session.on_close.append(publisher.cleared)
    session.on_config.append(publisher.config)
    session.on_analysis.append(lambda uri, analysis: indexing.on_analysis(session, uri, analysis))
    state = State(session, client, publisher)
    lifecycle.register(server, state)
    for feature in (
        *(lenses, judging, report, inlay, hover, completion, navigation, actions),
        *(folding, selection, links, semantic_tokens, workspace_diagnostics),
    ):
        feature.register(server, state)
    return server


def serve(host: str | None = None, port: int | None = None) -> None:
    server = create_server()
    if port is not None:
        server.start_tcp(host or "127.0.0.1", port)
    else:
        server.start_io()
