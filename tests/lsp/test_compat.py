"""What lsp/compat.py takes from pygls beyond its public API is still there, with the shape it
relies on: a pygls upgrade that changes any of it fails here, by name, not somewhere in the server.
"""

from __future__ import annotations

import asyncio
import inspect
import io

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.workspace import TextDocument, Workspace
from qrels_lsp.lsp import compat


def params(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def test_protocol_internals() -> None:
    server = LanguageServer("probe", "0", protocol_cls=compat.QrelsProtocol)
    protocol = server.protocol
    assert isinstance(protocol, LanguageServerProtocol)
    assert params(JsonRPCProtocol._send_data) == ["self", "data"]
    assert params(JsonRPCProtocol._send_response)[:4] == ["self", "msg_id", "result", "error"]
    protocol.set_writer(io.BytesIO())  # type: ignore[arg-type]
    assert protocol._include_headers is True
    assert isinstance(protocol._result_types, dict)
    assert hasattr(protocol._converter, "structure")
    assert compat.shutting_down(protocol) is False  # reads `_shutdown`
    assert types.TEXT_DOCUMENT_HOVER in [*protocol.fm.features, types.TEXT_DOCUMENT_HOVER]
    assert isinstance(protocol.fm.features, dict)
    message = compat.structure(
        protocol,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": types.TEXT_DOCUMENT_HOVER,
            "params": {
                "textDocument": {"uri": "file:///x"},
                "position": {"line": 0, "character": 0},
            },
        },
    )
    assert isinstance(message.params, types.HoverParams)


def test_server_internals() -> None:
    server = LanguageServer("probe", "0")
    assert hasattr(server, "_stop_event")
    assert callable(getattr(server, "shutdown", None))


def test_document_internals() -> None:
    assert params(TextDocument._apply_incremental_change) == ["self", "change"]
    assert params(Workspace._create_text_document)[:5] == [
        "self",
        "doc_uri",
        "source",
        "version",
        "language_id",
    ]
    workspace = Workspace(None)
    assert hasattr(workspace, "_sync_kind") and hasattr(workspace, "_position_codec")
    compat.use_indexed_documents(workspace)
    assert type(workspace) is compat.IndexedWorkspace
    workspace.put_text_document(
        types.TextDocumentItem(uri="file:///x", language_id="yaml", version=1, text="a\nbc\n")
    )
    doc = workspace.get_text_document("file:///x")
    assert isinstance(doc, compat.IndexedTextDocument) and doc._source == "a\nbc\n"
    workspace.update_text_document(
        types.VersionedTextDocumentIdentifier(uri="file:///x", version=2),
        types.TextDocumentContentChangePartial(
            range=types.Range(
                start=types.Position(line=1, character=1), end=types.Position(line=1, character=2)
            ),
            text="Z",
        ),
    )
    assert doc.source == "a\nbZ\n"


def test_notification_futures_are_forgotten() -> None:
    """pygls keeps the future of each notification's handler under an id of its own making that
    nothing removes: every keystroke's didChange left one behind (and each step of a built-in
    generator handler, didOpen's and didClose's, another). The protocol forgets those that are
    done when the next message comes: the futures kept are the ones still running, and the last."""
    server = LanguageServer("probe", "0", protocol_cls=compat.QrelsProtocol)
    protocol = server.protocol
    protocol.set_writer(io.BytesIO())  # type: ignore[arg-type]
    handled: list[str] = []

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        handled.append("open")

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        handled.append("close")

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configured(ls: LanguageServer, params: types.DidChangeConfigurationParams) -> None:
        handled.append("configured")

    doc = {"uri": "file:///x.run.yaml", "languageId": "yaml", "version": 1, "text": "results:\n"}
    cycle = [
        {"method": "textDocument/didOpen", "params": {"textDocument": doc}},
        {"method": "workspace/didChangeConfiguration", "params": {"settings": {}}},
        {"method": "textDocument/didClose", "params": {"textDocument": {"uri": doc["uri"]}}},
    ]
    kept: list[int] = []

    async def exchange() -> None:
        start = {"id": 1, "method": "initialize", "params": {"capabilities": {}}}
        protocol.handle_message(compat.structure(protocol, {"jsonrpc": "2.0", **start}))
        for _ in range(50):
            for message in cycle:
                protocol.handle_message(compat.structure(protocol, {"jsonrpc": "2.0", **message}))
                count = len(handled) + 1
                for _turn in range(100):  # loop turns (no clock): until its handler has run
                    if len(handled) == count:
                        break
                    await asyncio.sleep(0)  # not a wait: a loop turn
            kept.append(len(protocol._request_futures))

    asyncio.run(exchange())
    assert handled == ["open", "configured", "close"] * 50
    assert max(kept) < 10, kept  # (pygls alone: four more every cycle, 200 in the end)
