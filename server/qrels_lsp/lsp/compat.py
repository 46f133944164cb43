"""Everything qrels-lsp takes from pygls beyond its public API, in one place.

Each use is here for a measured reason (named below); ``tests/lsp/test_compat.py`` checks that
every attribute and method relied on still exists in the installed pygls, so an upgrade that
changes one fails one test instead of the server.

- Sending a result that is already JSON (lens and outline responses of megabytes) as it is.
- Applying an editor's change to an open document with two slices instead of pygls's rewrite of
  every line (10 ms per keystroke in a 30,000-line golden set).
- Reading JSON-RPC with framing that survives a broken client (``transport.py``): it answers a
  message pygls could not convert, and knows whether ``shutdown`` was received.
- Withdrawing a registered feature (pull diagnostics) from clients that cannot use it.
- Dropping the future pygls keeps for each notification's handler once it is done (pygls 2.1
  keeps it under an id of its own making that nothing removes: every keystroke left a future,
  its lock and its result behind).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import stat
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from lsprotocol import types
from lsprotocol.types import ResponseError, ResponseErrorMessage
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)
from pygls.workspace import TextDocument, Workspace

from ..core.base.text import line_index, line_index_after
from .convert import RawJSON, encoding_of

log = logging.getLogger(__name__)


class QrelsProtocol(LanguageServerProtocol):
    """pygls's protocol, sending a :class:`RawJSON` result as the JSON text it already is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sending: set[asyncio.Future[Any]] = set()

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls's, once the futures of the handlers that are done are forgotten. A request's
        is popped when its answer is sent; a notification's (and each step of a built-in
        generator handler's: didOpen, didChange, didClose) was kept for good. (Forgotten here,
        not in a done callback: ``shutdown`` cancels every future while it walks them.)"""
        futures = self._request_futures
        for done in [key for key, future in futures.items() if future.done()]:
            del futures[done]
        super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        if not isinstance(result, RawJSON) or self.writer is None:
            super()._send_data(data)
            return
        head = f'{{"jsonrpc":"2.0","id":{json.dumps(data.id)},"result":'.encode("ascii")
        length = len(head) + len(result.data) + 1
        header = (
            f"Content-Length: {length}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            if self._include_headers
            else ""
        ).encode("ascii")
        try:
            res = self._write(header + head, result.data)
        except BrokenPipeError:  # the client is gone: as pygls does, let it end the server
            raise
        except (OSError, ValueError) as exc:  # stdout closed by `exit` while it was in flight
            log.warning("could not send the response to request %s: %s", data.id, exc)
            return
        finally:  # written, or copied into the message: its maker may change it again
            if result.sent is not None:
                result.sent(result.data)
        if inspect.isawaitable(res):  # a websocket's send; stdio and TCP write at once
            task = asyncio.ensure_future(res)
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    def _write(self, head: bytes, data: bytes | bytearray) -> Any:
        """One message: on stdio written in three parts, each to the pipe before this returns
        (no copy of a 30 MB result, which costs about 16 ms); other writers get it as one
        copy, since they may keep what they are given (a websocket's message, a transport's
        buffer)."""
        writer = self.writer
        assert writer is not None, "checked by _send_data"
        if isinstance(writer, StdoutWriter):
            for part in (head, data, b"}"):
                writer.write(part)  # type: ignore[arg-type]
            return None
        return writer.write(b"".join((head, data, b"}")))


# -- documents ------------------------------------------------------------------------------------


class IndexedTextDocument(TextDocument):
    """A change names one range; with the text's line starts (the index the analysis and the
    position conversion share, see :func:`~qrels_lsp.core.base.text.line_index`) it is two
    slices. The index counts lines as LSP does (``\\n``, ``\\r\\n``, ``\\r``)."""

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self.source
        lines = line_index(text)
        encoding = encoding_of(self._position_codec.encoding)
        rng = change.range
        start = lines.offset(rng.start.line, rng.start.character, encoding)
        end = max(start, lines.offset(rng.end.line, rng.end.character, encoding))
        self._source = line_index_after(lines, start, end, change.text).text


class IndexedWorkspace(Workspace):
    """pygls's workspace, holding :class:`IndexedTextDocument` s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return IndexedTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def use_indexed_documents(workspace: Any) -> None:
    """Make the workspace pygls created at ``initialize`` create indexed documents.

    pygls builds its Workspace inside its own initialize handling, with no way to name another
    class; it holds no documents yet at that point, so switching its class changes only how
    documents are made from then on.
    """
    if type(workspace) is Workspace:
        workspace.__class__ = IndexedWorkspace


# -- the protocol -----------------------------------------------------------------------------


def shutting_down(protocol: JsonRPCProtocol) -> bool:
    """Whether the client has sent ``shutdown``."""
    return bool(getattr(protocol, "_shutdown", False))


def send_error(protocol: JsonRPCProtocol, msg_id: int | str, code: int, message: str) -> None:
    protocol._send_response(msg_id, None, ResponseError(code=code, message=message))


def structure(protocol: JsonRPCProtocol, data: dict[str, Any]) -> Any:
    """The message as lsprotocol's type for its method (pygls's ``structure_message``, without
    its logging of a traceback for every malformed message: here that is an answer, not a bug)."""
    method = data.get("method")
    if "id" in data:
        if "error" in data:
            kind: Any = ResponseErrorMessage
        elif method is not None:
            kind = protocol.get_message_type(method) or JsonRPCRequestMessage
        else:
            kind = protocol._result_types.pop(data["id"], None) or JsonRPCResponseMessage
    else:
        kind = protocol.get_message_type(str(method or "")) or JsonRPCNotification
    return protocol._converter.structure(data, kind)


def drop_feature(server: LanguageServer, method: str) -> None:
    """Withdraw a registered handler (and so the capability it advertises)."""
    server.protocol.fm.features.pop(method, None)


# -- running ----------------------------------------------------------------------------------

Loop = Callable[[JsonRPCProtocol, threading.Event, BinaryIO | None], None]


def run_stdio(
    server: LanguageServer, loop: Loop, stdin: BinaryIO | None, stdout: BinaryIO | None
) -> None:
    """pygls's stdio server, reading with ``loop`` (our framing) instead of pygls's."""
    server._stop_event = threading.Event()
    out = stdout or sys.stdout.buffer
    widen_pipe(out)
    server.protocol.set_writer(StdoutWriter(out))
    try:
        loop(server.protocol, server._stop_event, stdin)
    except BrokenPipeError:
        log.error("the client is gone; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


PIPE_BYTES = 1 << 20
"""What the pipe to the editor is widened to (Linux's default most a user may ask for)."""


def widen_pipe(stream: BinaryIO) -> None:
    """Widen the pipe ``stream`` writes into, when it is one and the system lets us.

    A pipe holds 64 KiB by default: the lenses of 100,000 questions (30 MB) cross it in 500
    turns of writer and reader, a megabyte pipe in 30, and the editor has them sooner. Where
    it cannot be (not a pipe, not Linux, over the limit) nothing changes."""
    try:
        fd = stream.fileno()
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            import fcntl  # (not on Windows)

            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, ValueError, AttributeError, ImportError):
        return


def run_tcp(server: LanguageServer, serve: Any, host: str, port: int) -> None:
    """pygls's TCP server with the same framing (``serve`` reads one connection)."""
    server._stop_event = stop = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await serve(server.protocol, reader, stop)
        server.shutdown()  # type: ignore[no-untyped-call]

    async def main() -> None:
        listening = await asyncio.start_server(connection, host, port)
        async with listening:
            await listening.serve_forever()

    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        asyncio.run(main())
