"""A blocking handle on the real server over stdio, for fuzzing and robustness tests.

The server is the installed ``qrels-lsp serve`` in a subprocess; the client is pytest-lsp's, driven
from an event loop on a background thread so that synchronous code (hypothesis, the fuzz command)
can send a request and wait for its answer with a deadline. Nothing in the server is patched.

What counts as a failure (:meth:`Server.problems`): an internal error answered to a request, an
error logged or shown to the user, a Python traceback on the server's stderr, a request left
unanswered past its deadline, or the process gone.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import sys
import threading
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

T = TypeVar("T")

SERVER = [sys.executable, "-m", "qrels_lsp.cli", "serve", "--stdio"]
PROFILES = ["visual-studio-code", "neovim@0.11", "emacs@29.1", "pull"]
INTERNAL_ERROR = -32603
# Errors a correct server may answer with: RequestFailed (rename refused), RequestCancelled,
# ContentModified, InvalidParams (junk arguments to a command).
EXPECTED_ERRORS = {-32803, -32800, -32801, -32602}


def capabilities(profile: str) -> types.ClientCapabilities:
    """A recorded real client's capabilities; ``pull`` is VS Code's with pull diagnostics."""
    if profile != "pull":
        return client_capabilities(profile)
    caps = copy.deepcopy(client_capabilities("visual-studio-code"))
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=True
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Params|Failed)\b")
_EXPECTED_RAISE = re.compile(
    r"^pygls\.exceptions\.(JsonRpcException|JsonRpcInvalidParams|JsonRpcRequestCancelled)\b"
)


def stderr_problems(text: str) -> list[str]:
    """Tracebacks on the server's stderr that are not an expected error answer.

    pygls logs a traceback for every request answered with an error, expected ones included
    (a rename refused with RequestFailed, junk command arguments with InvalidParams): those are
    accepted when the last exception of the block is such an error; anything else is a problem.
    """
    out = []
    for i, chunk in enumerate(re.split(r"(?m)^Exception occurred for message .*$", text)):
        if "Traceback" not in chunk and not (i and chunk.strip()):
            continue
        raised = [line for line in chunk.splitlines() if _EXCEPTION_LINE.match(line)]
        if i and raised and _EXPECTED_RAISE.match(raised[-1]):
            continue
        if "Traceback" in chunk:
            out.append(f"server stderr:\n{chunk.strip()[-4000:]}")
    return out


@dataclass
class Answer:
    result: Any = None
    error: JsonRpcException | None = None
    timed_out: bool = False

    @property
    def code(self) -> int | None:
        return getattr(self.error, "code", None) if self.error is not None else None


@dataclass
class Server:
    root: Path
    profile: str = "visual-studio-code"
    command: Sequence[str] = tuple(SERVER)
    env: dict[str, str] | None = None
    init_options: Any = None
    configuration: Any = None  # the `qrels` settings answered to workspace/configuration
    secret: str | None = None  # text outside the workspace: no answer may hold it
    client: LanguageClient = field(init=False)
    encoding: str = field(init=False, default="utf-16")
    stderr: list[str] = field(init=False, default_factory=list)
    failures: list[str] = field(init=False, default_factory=list)
    pid: int = field(init=False, default=0)
    result: types.InitializeResult = field(init=False)

    def __post_init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.run(self._start(), timeout=60)

    # -- plumbing ---------------------------------------------------------------------------
    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _start(self) -> None:
        client = make_test_lsp_client()
        self.client = client
        client.versions: dict[str, int | None] = {}  # type: ignore[misc]

        client.protocol.fm.features.pop(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, None)

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diags(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
            ls.diagnostics[params.uri] = params.diagnostics
            ls.versions[params.uri] = params.version  # type: ignore[attr-defined]

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def _lens_refresh(ls: LanguageClient, params: None) -> None:
            return None

        @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
        def _hint_refresh(ls: LanguageClient, params: None) -> None:
            return None

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def _register(ls: LanguageClient, params: types.RegistrationParams) -> None:
            return None

        if self.configuration is not None:
            client.set_configuration(self.configuration, section="qrels")
        env = dict(os.environ, **(self.env or {}))
        await client.start_io(*self.command, env=env)
        if client._stderr_forwarder is not None:  # keep the server's stderr, do not echo it
            client._stderr_forwarder.cancel()
        proc = client._server
        assert proc is not None
        self.pid = proc.pid
        self._stderr_task = asyncio.ensure_future(self._read_stderr(proc))
        uri = self.root.as_uri()
        self.result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(self.profile),
                root_uri=uri,
                workspace_folders=[types.WorkspaceFolder(uri=uri, name=self.root.name)],
                initialization_options=self.init_options,
            )
        )
        enc = self.result.capabilities.position_encoding
        self.encoding = str(getattr(enc, "value", enc or "utf-16"))

    async def _read_stderr(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        while line := await proc.stderr.readline():
            self.stderr.append(line.decode("utf-8", "replace"))

    # -- requests and notifications ----------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 30) -> Answer:
        async def go() -> Answer:
            # Wait without cancelling: a late answer must still find its future pending.
            future = asyncio.wrap_future(self.client.protocol.send_request(method, params))
            done, _ = await asyncio.wait({future}, timeout=timeout)
            if not done:
                return Answer(timed_out=True)
            try:
                return Answer(result=future.result())
            except JsonRpcException as exc:
                return Answer(error=exc)

        answer = self.run(go(), timeout=timeout + 5)
        if self.secret is not None and self.secret in repr(answer.result):
            self.failures.append(f"{method}: the answer holds text from outside the workspace")
        if answer.timed_out:
            self.failures.append(f"{method}: no answer within {timeout} s")
        elif answer.error is not None and answer.code not in EXPECTED_ERRORS:
            self.failures.append(f"{method}: error {answer.code}: {answer.error}")
        return answer

    def notify(self, method: str, params: Any) -> None:
        async def go() -> None:
            self.client.protocol.notify(method, params)

        self.run(go())

    def configure(self, settings: Any, push: bool = False) -> None:
        """Answer ``settings`` to workspace/configuration from now on, and say they changed: the
        server pulls them, or (``push``) finds them in the notification."""

        async def go() -> None:
            self.client.set_configuration(settings, section="qrels")
            self.client.protocol.notify(
                types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                types.DidChangeConfigurationParams(settings={"qrels": settings} if push else None),
            )

        self.run(go())

    def open(self, uri: str, text: str, version: int = 1, language: str = "yaml") -> None:
        self.forget_diagnostics(uri)
        self.notify(
            types.TEXT_DOCUMENT_DID_OPEN,
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)
            ),
        )

    def change(self, uri: str, version: int, text: str) -> None:
        self.notify(
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            ),
        )

    def close_doc(self, uri: str) -> None:
        self.notify(
            types.TEXT_DOCUMENT_DID_CLOSE,
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        )

    def forget_diagnostics(self, uri: str) -> None:
        """Drop what was published for ``uri`` (a reopened document starts over at version 1)."""

        async def go() -> None:
            self.client.diagnostics.pop(uri, None)
            self.client.versions.pop(uri, None)  # type: ignore[attr-defined]

        self.run(go())

    @property
    def pulls(self) -> bool:
        return self.result.capabilities.diagnostic_provider is not None

    def diagnostics(
        self, uri: str, version: int | None, timeout: float = 30, *, required: bool = True
    ) -> list[types.Diagnostic] | None:
        """The document's diagnostics for ``version``: pulled, or waited for as pushed."""
        if self.pulls:
            answer = self.request(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)),
                timeout,
            )
            report = answer.result
            return list(getattr(report, "items", None) or []) if report is not None else None

        async def wait() -> list[types.Diagnostic] | None:
            # Polled: a cancelled wait_for_notification future would break pytest-lsp's client.
            client = self.client
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if uri in client.diagnostics and client.versions.get(uri) == version:  # type: ignore[attr-defined]
                    return list(client.diagnostics[uri])
                await asyncio.sleep(0.01)
            return None

        found = self.run(wait(), timeout + 5)
        if found is None and required:
            self.failures.append(f"no diagnostics for {uri} version {version} in {timeout} s")
        return found

    # -- health --------------------------------------------------------------------------------
    def alive(self) -> bool:
        proc = self.client._server
        return proc is not None and proc.returncode is None

    def problems(self) -> list[str]:
        out = list(self.failures)
        client = self.client
        if self.secret is not None and self.secret in repr(dict(client.diagnostics)):
            out.append("a diagnostic holds text from outside the workspace")
        for m in client.log_messages:
            if m.type == types.MessageType.Error:
                out.append(f"logged error: {m.message[:2000]}")
        for m in client.messages:
            if m.type == types.MessageType.Error:
                out.append(f"shown error: {m.message[:2000]}")
        out += stderr_problems("".join(self.stderr))
        if not self.alive():
            out.append("the server process is gone")
        return out

    def reset_problems(self) -> None:
        self.failures.clear()
        self.client.log_messages.clear()
        self.client.messages.clear()
        self.stderr.clear()

    def close(self, timeout: float = 20) -> int | None:
        """shutdown, exit, and the process's return code (None if it had to be killed)."""

        async def go() -> int | None:
            client = self.client
            proc = client._server
            assert proc is not None
            code: int | None = None
            try:
                if proc.returncode is None:
                    await asyncio.wait_for(client.shutdown_async(None), timeout)
                    client.exit(None)
                    code = await asyncio.wait_for(proc.wait(), timeout)
                else:
                    code = proc.returncode
            except (asyncio.TimeoutError, Exception):
                proc.kill()
                await proc.wait()
                code = None
            self._stderr_task.cancel()
            await client.stop()
            return code

        try:
            return self.run(go(), timeout=2 * timeout + 10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
