"""A client that writes raw bytes to the real server's stdin: what pytest-lsp cannot send (a wrong
Content-Length, half a message, JSON that is not JSON-RPC) and what it would refuse to send."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve"]


def frame(body: Any) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def message(msg_id: Any, method: str, params: Any = None) -> bytes:
    """A framed request (``msg_id`` None: a notification), to send alone or with others."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        body["id"] = msg_id
    return frame(body)


class RawClient:
    def __init__(
        self,
        root: Path,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.root = root
        self.proc = subprocess.Popen(
            command or SERVER,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._buf = b""
        self.messages: list[dict[str, Any]] = []

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, msg_id: Any, method: str, params: Any = None) -> None:
        self.send(message(msg_id, method, params))

    def notify(self, method: str, params: Any = None) -> None:
        self.send(message(None, method, params))

    def initialize(self, options: Any = None) -> dict[str, Any]:
        uri = self.root.as_uri()
        self.request(
            0,
            "initialize",
            {
                "capabilities": {},
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "ws"}],
                "initializationOptions": options,
            },
        )
        answer = self.answer(0)
        self.notify("initialized", {})
        return answer

    def _pump(self, timeout: float) -> None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if ready:
            chunk = self.proc.stdout.read()
            if chunk:
                self._buf += chunk
        while True:
            end = self._buf.find(b"\r\n\r\n")
            if end == -1:
                return
            header = self._buf[:end].decode("ascii")
            length = int(header.split("Content-Length:")[1].split("\r\n")[0])
            if len(self._buf) < end + 4 + length:
                return
            self.messages.append(json.loads(self._buf[end + 4 : end + 4 + length]))
            self._buf = self._buf[end + 4 + length :]

    def answer(self, msg_id: Any, timeout: float = 30) -> dict[str, Any]:
        """The response to request ``msg_id`` (``None``: the next response with a null id)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.messages:
                if "method" not in m and m.get("id", "absent") == msg_id:
                    self.messages.remove(m)
                    return m
            self._pump(0.05)
        raise AssertionError(f"no answer to request {msg_id!r} within {timeout} s")

    def notification(self, method: str, timeout: float = 30) -> dict[str, Any]:
        """The next notification ``method`` the server sent (and takes it off the list)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.messages:
                if m.get("method") == method and "id" not in m:
                    self.messages.remove(m)
                    return m
            self._pump(0.05)
        raise AssertionError(f"no {method} within {timeout} s")

    def wait_message(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 600
    ) -> dict[str, Any]:
        """The first message ``wanted`` holds of (taken off the list); ``timeout`` is a ceiling
        for a failure, not a clock for a result."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.messages:
                if wanted(m):
                    self.messages.remove(m)
                    return m
            self._pump(0.05)
        raise AssertionError(f"no such message within {timeout} s")

    def close(self) -> None:
        """Ask the server to shut down and exit; kill it if it does not."""
        if self.proc.poll() is None:
            try:
                self.request("close", "shutdown")
                self.notify("exit")
            except OSError:
                pass
            if self.wait_exit(30) is None:
                self.kill()

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace")
