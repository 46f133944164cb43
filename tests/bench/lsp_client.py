"""A raw JSON-RPC language-server client over stdio, for timing servers as an editor drives them.

No LSP library: both our server and yaml-language-server are driven by the same ~150 lines, so
neither pays for the other's client. A reader thread timestamps every message (``perf_counter``)
when its body has been read, before it is decoded, and answers the server's requests
(``workspace/configuration`` from the given settings, anything else with ``null``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

Settings = Callable[[str | None], Any]


def capabilities() -> dict[str, Any]:
    """What a typical editor (VS Code-like, push diagnostics) announces, minus refresh requests."""
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": False, "didSave": True},
            "publishDiagnostics": {
                "relatedInformation": True,
                "versionSupport": True,
                "codeDescriptionSupport": True,
                "dataSupport": True,
                "tagSupport": {"valueSet": [1, 2]},
            },
            "codeLens": {"dynamicRegistration": False},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
        },
        "workspace": {
            "configuration": True,
            "didChangeConfiguration": {"dynamicRegistration": False},
            "workspaceFolders": True,
        },
        "window": {"workDoneProgress": True},
    }


class Client:
    def __init__(
        self,
        cmd: list[str],
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        settings: Settings | None = None,
        log: IO[bytes] | None = None,
    ) -> None:
        self.settings = settings or (lambda section: None)
        self.notifications: list[tuple[float, dict[str, Any]]] = []
        self.responses: dict[int, tuple[float, dict[str, Any]]] = {}
        self.server_requests: list[tuple[float, str]] = []
        self.closed = False
        self._ids = 0
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log if log is not None else subprocess.DEVNULL,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # -- wire -----------------------------------------------------------------------------
    def _send(self, msg: dict[str, Any]) -> float:
        body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        assert self.proc.stdin is not None
        with self._write_lock:
            t = time.perf_counter()
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        return t

    def _read(self) -> None:
        f = self.proc.stdout
        assert f is not None
        try:
            while True:
                length = None
                while True:
                    line = f.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if length is None:
                    continue
                body = f.read(length)
                t = time.perf_counter()
                msg = json.loads(body)
                if "method" in msg and "id" in msg:
                    self._answer(msg)
                    with self._cond:
                        self.server_requests.append((t, msg["method"]))
                        self._cond.notify_all()
                elif "method" in msg:
                    with self._cond:
                        self.notifications.append((t, msg))
                        self._cond.notify_all()
                else:
                    with self._cond:
                        self.responses[msg.get("id")] = (t, msg)
                        self._cond.notify_all()
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _answer(self, msg: dict[str, Any]) -> None:
        result: Any = None
        if msg["method"] == "workspace/configuration":
            items = (msg.get("params") or {}).get("items", [])
            result = [self.settings(item.get("section")) for item in items]
        with contextlib.suppress(BrokenPipeError, OSError):
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    # -- API ------------------------------------------------------------------------------
    def notify(self, method: str, params: Any) -> float:
        """Send a notification; returns when it was written."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> tuple[int, float]:
        self._ids += 1
        t = self._send({"jsonrpc": "2.0", "id": self._ids, "method": method, "params": params})
        return self._ids, t

    def response(self, rid: int, timeout: float = 120.0) -> tuple[float, dict[str, Any]]:
        deadline = time.perf_counter() + timeout
        with self._cond:
            while rid not in self.responses:
                left = deadline - time.perf_counter()
                if left <= 0 or self.closed:
                    raise TimeoutError(f"no response to request {rid}")
                self._cond.wait(left)
            return self.responses.pop(rid)  # large results (10k lenses) are not kept

    def call(self, method: str, params: Any, timeout: float = 120.0) -> Any:
        rid, _ = self.request(method, params)
        _, msg = self.response(rid, timeout)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg.get("result")

    def mark(self) -> int:
        """The index of the next notification to arrive."""
        with self._cond:
            return len(self.notifications)

    def wait_notification(
        self,
        pred: Callable[[dict[str, Any]], bool],
        start: int = 0,
        timeout: float = 120.0,
    ) -> tuple[float, dict[str, Any], int]:
        """The first notification from index ``start`` on that satisfies ``pred``."""
        deadline = time.perf_counter() + timeout
        i = start
        with self._cond:
            while True:
                while i < len(self.notifications):
                    t, msg = self.notifications[i]
                    i += 1
                    if pred(msg):
                        return t, msg, i
                left = deadline - time.perf_counter()
                if left <= 0 or self.closed:
                    raise TimeoutError("notification not received")
                self._cond.wait(left)

    def wait_server_request(self, method: str, timeout: float) -> bool:
        deadline = time.perf_counter() + timeout
        with self._cond:
            while not any(m == method for _, m in self.server_requests):
                left = deadline - time.perf_counter()
                if left <= 0 or self.closed:
                    return False
                self._cond.wait(left)
            return True

    def initialize(self, root: Path, options: Any = None) -> tuple[float, Any]:
        """initialize + initialized; returns (seconds from spawn to the result, the result)."""
        rid, _ = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "qrels-lsp-bench", "version": "1"},
                "rootUri": root.as_uri(),
                "rootPath": str(root),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": capabilities(),
                "initializationOptions": options,
            },
        )
        t, msg = self.response(rid, timeout=60)
        self.notify("initialized", {})
        return t - self.started, msg.get("result")

    def close(self, timeout: float = 5.0) -> None:
        try:
            if not self.closed:
                self.call("shutdown", None, timeout=timeout)
                self.notify("exit", None)
        except (TimeoutError, RuntimeError, BrokenPipeError, OSError):
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def diagnostics_for(uri: str, version: int | None = None) -> Callable[[dict[str, Any]], bool]:
    """A predicate: publishDiagnostics for ``uri`` (and ``version`` when the server sends one)."""

    def pred(msg: dict[str, Any]) -> bool:
        if msg.get("method") != "textDocument/publishDiagnostics":
            return False
        params = msg.get("params") or {}
        if params.get("uri") != uri:
            return False
        sent = params.get("version")
        return version is None or sent is None or sent == version

    return pred
