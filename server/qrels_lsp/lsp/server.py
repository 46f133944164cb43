"""The pygls server: built here, with the transport of ``transport.py`` and the handlers of
``lifecycle.py`` and ``features/``, each given the :class:`~.state.State` (never this object).

Nothing imported here imports the core beyond ``core/base``: the server answers ``initialize``
as soon as lsprotocol and pygls are loaded, and the session comes after (``state.py``)."""

from __future__ import annotations

import functools
from typing import BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from . import compat, lifecycle
from .client import Client
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
    state = State(Client(server), server.gate)
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
