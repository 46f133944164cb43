"""Reading JSON-RPC from the client, so that a broken or hostile client cannot wedge the server.

pygls's own loop trusts the stream: a ``Content-Length`` larger than the body swallows every
message after it (the server then never answers again, not even ``shutdown``); one that is not a
number leaves it waiting; a request whose parameters fail to convert (a negative position, a
string for a number, an integer past 2^31) is reported in a pop-up but never answered, so the
client waits on it forever.

Here the stream is framed by :class:`Framer`, which resynchronises on the next header it sees
(a header cannot occur inside a valid JSON body: it would need a raw line break, which JSON
strings cannot hold), and each body is answered per JSON-RPC: a parse error, an invalid request or
invalid parameters get an error response with the request's id (or null), never silence.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO

from cattrs.errors import ClassValidationError
from pygls.protocol import JsonRPCProtocol

from ..core.base.patterns import CONTENT_LENGTH
from .compat import send_error, shutting_down, structure
from .gate import Gate

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
"""A message this large is no editor's (a 64 MB buffer encodes to well under it)."""
MAX_HEADER_BYTES = 8192
_HEADER_TAIL = len(b"Content-Length: 123456789012 \r\n")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


@dataclass(frozen=True, slots=True)
class Skipped:
    """Bytes that were not a message, and why (logged; there is no request to answer)."""

    size: int
    why: str


class Framer:
    """Splits a byte stream into message bodies, resynchronising after garbage or a wrong
    ``Content-Length``. Each byte is scanned for a header at most a few times, however the
    stream is cut into chunks."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scanned = 0  # bytes of the pending body already known to hold no header

    def feed(self, data: bytes) -> list[bytes | Skipped]:
        self._buf += data
        out: list[bytes | Skipped] = []
        while True:
            item = self._next()
            if item is None:
                return out
            out.append(item)

    def _next(self) -> bytes | Skipped | None:
        buf = self._buf
        m = CONTENT_LENGTH.search(buf)
        if m is None:
            keep = min(len(buf), _HEADER_TAIL)  # a header may be arriving cut in two
            if len(buf) > keep:
                dropped = len(buf) - keep
                del buf[:dropped]
                return Skipped(dropped, "not a message (no Content-Length header)")
            return None
        if m.start() > 0:
            head = bytes(buf[: m.start()])
            del buf[: m.start()]
            if head.lower().startswith(b"content-type:") and head.endswith(b"\r\n"):
                return self._next()  # a header before Content-Length: allowed
            return Skipped(len(head), "not a message (bytes before a header)")
        end = buf.find(b"\r\n\r\n", m.start())
        if end == -1 or end > MAX_HEADER_BYTES:
            if end == -1 and len(buf) <= MAX_HEADER_BYTES:
                return None
            del buf[: m.end()]
            return Skipped(m.end(), "a header block without its blank line")
        again = CONTENT_LENGTH.search(buf, m.end(), end + 2)
        if again is not None:  # a header left without its blank line, then the real one
            del buf[: again.start()]
            return Skipped(again.start(), "a header block without its blank line")
        start = end + 4
        length = int(m.group(1))
        if length > MAX_MESSAGE_BYTES:
            del buf[:start]
            self._scanned = 0
            return Skipped(start, f"Content-Length {length:,} is more than a message may be")
        scan_from = max(start, start + self._scanned - _HEADER_TAIL)
        within = CONTENT_LENGTH.search(buf, scan_from, min(len(buf), start + length))
        if within is not None:  # the declared length runs into the next message: it was wrong
            del buf[: within.start()]
            self._scanned = 0
            return Skipped(within.start(), f"Content-Length {length} was wrong (a header inside)")
        if len(buf) < start + length:
            self._scanned = len(buf) - start
            return None
        body = bytes(buf[start : start + length])
        del buf[: start + length]
        self._scanned = 0
        return body


def _error(protocol: JsonRPCProtocol, msg_id: Any, code: int, message: str) -> None:
    if _valid_id(msg_id):
        send_error(protocol, msg_id, code, message)
        return
    # No id to answer (unparsable JSON, an id of the wrong type): JSON-RPC's `"id": null`,
    # which lsprotocol's converter would leave out.
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    ).encode()
    if protocol.writer is not None:
        protocol.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


def _valid_id(msg_id: object) -> bool:
    return isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)


def dispatch(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Handle one message body; anything wrong with it is answered, not dropped."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        _error(protocol, None, PARSE_ERROR, f"Parse error: {exc}")
        return
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        msg_id = data.get("id") if isinstance(data, dict) else None
        _error(protocol, msg_id, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
        return
    if "id" in data and not _valid_id(data["id"]):
        _error(protocol, None, INVALID_REQUEST, "Invalid request: an id must be a number or text")
        return
    is_request = "id" in data and "method" in data
    if is_request and shutting_down(protocol) and data.get("method") != "exit":
        _error(protocol, data["id"], INVALID_REQUEST, "The server is shutting down.")
        return
    try:
        message = structure(protocol, data)
    except (ClassValidationError, TypeError, ValueError, KeyError):
        if is_request:
            method = str(data.get("method"))[:100]
            _error(protocol, data["id"], INVALID_PARAMS, f"Invalid params for {method}")
        else:
            log.warning("dropped a malformed %s message", str(data.get("method"))[:100])
        return
    except Exception as exc:  # a converter bug must not end the server
        if is_request:
            _error(protocol, data.get("id"), INTERNAL_ERROR, f"Cannot read the request: {exc}")
        return
    protocol.handle_message(message)


class Inbox:
    """Chunks of bytes from the client, in order; the :class:`~.gate.Gate` is closed from the
    moment a chunk arrives until it is handled, so a long job never holds the interpreter while
    the editor's message waits (see ``gate.py``). ``put`` may be called from any thread through
    the loop (``call_soon_threadsafe``) or on it."""

    def __init__(self, gate: Gate | None) -> None:
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._gate = gate

    def arriving(self) -> None:
        """Bytes are about to be put (called on the reading thread, before the loop wakes)."""
        if self._gate is not None:
            self._gate.enter()

    def put(self, data: bytes) -> None:
        self._queue.put_nowait(data)

    async def get(self) -> bytes:
        return await self._queue.get()

    def handled(self) -> None:
        if self._gate is not None:
            self._gate.leave()


async def serve(protocol: JsonRPCProtocol, inbox: Inbox, stop: threading.Event) -> None:
    """Feed chunks from ``inbox`` (empty bytes: the stream ended) through framing and dispatch."""
    framer = Framer()
    while not stop.is_set():
        data = await inbox.get()
        try:
            if not data:
                return
            for item in framer.feed(data):
                if isinstance(item, Skipped):
                    log.error("skipped %d bytes from the client: %s", item.size, item.why)
                else:
                    dispatch(protocol, item)
        finally:
            inbox.handled()


def read_in_thread(
    stream: BinaryIO, loop: asyncio.AbstractEventLoop, inbox: Inbox
) -> threading.Thread:
    """Read ``stream`` on a daemon thread (it never holds up the process's exit)."""

    def run() -> None:
        read = getattr(stream, "read1", stream.read)
        while True:
            try:
                data = read(65536)
            except (OSError, ValueError):
                data = b""
            inbox.arriving()
            loop.call_soon_threadsafe(inbox.put, data)
            if not data:
                return

    thread = threading.Thread(target=run, name="qrels-stdin", daemon=True)
    thread.start()
    return thread


def run_stdio(
    protocol: JsonRPCProtocol,
    stop: threading.Event,
    stdin: BinaryIO | None,
    gate: Gate | None = None,
) -> None:
    """The server's stdio loop (see :func:`serve`)."""
    source = stdin or sys.stdin.buffer

    async def main() -> None:
        inbox = Inbox(gate)
        read_in_thread(source, asyncio.get_running_loop(), inbox)
        await serve(protocol, inbox, stop)

    asyncio.run(main())


async def serve_socket(
    protocol: JsonRPCProtocol,
    reader: asyncio.StreamReader,
    stop: threading.Event,
    gate: Gate | None = None,
) -> None:
    """The same loop over a TCP connection."""
    inbox = Inbox(gate)

    async def pump() -> None:
        while True:
            data = await reader.read(65536)
            inbox.arriving()
            inbox.put(data)
            if not data:
                return

    task = asyncio.ensure_future(pump())
    try:
        await serve(protocol, inbox, stop)
    finally:
        task.cancel()
