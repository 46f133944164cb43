"""Diagnostics: each document's findings as LSP diagnostics, pushed for the version they were
computed from (or pulled, by clients that pull), and the configuration file's own."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..core.base.files import read_regular
from ..core.base.findings import Finding
from ..core.base.text import decode
from ..core.project.analysis import Analysis
from ..core.project.config import MAX_CONFIG_BYTES
from .client import Client
from .convert import Positions, diagnostic, uri_of
from .session import Session


class Publisher:
    def __init__(self, session: Session, client: Client) -> None:
        self.session = session
        self.client = client
        self._published: set[str] = set()  # documents that were sent diagnostics

    def items(self, uri: str, analysis: Analysis) -> list[types.Diagnostic]:
        if not analysis.findings:  # (no line index made for nothing: a request makes it)
            return []
        pos = self.session.positions(uri, analysis.text)
        related = self._related_positions(analysis.findings)
        return [diagnostic(f, pos, uri, related) for f in analysis.findings]

    def _related_positions(self, findings: list[Finding]) -> dict[str, Positions]:
        out: dict[str, Positions] = {}
        for f in findings:
            for r in f.related:
                if r.path:
                    u = uri_of(Path(r.path))
                    if u not in out:
                        out[u] = self.session.positions(u)
        return out

    def result(self, uri: str, analysis: Analysis | None) -> None:
        """Push a document's diagnostics for its current version (unless the client pulls)."""
        if self.client.pulls_diagnostics:
            return
        if analysis is None:
            self.cleared(uri)
            return
        self._published.add(uri)
        self.client.publish(uri, self.session.version(uri), self.items(uri, analysis))

    def cleared(self, uri: str) -> None:
        """Nothing to show for ``uri`` any more (closed, or not ours): its diagnostics go."""
        if uri in self._published:
            self._published.discard(uri)
            self.client.publish(uri, None, [])

    def config(self) -> None:
        """A broken qrels-lsp.toml is a diagnostic on that file, even when it is not open; sent
        at startup and whenever the configuration is reloaded (so fixing the file clears them)."""
        source = self.session.config.source
        if source is None:
            return
        uri = uri_of(source)
        text = self.session.texts.read(source)[0]
        if text is None:  # refused as binary (a NUL byte): the text the config parser read
            data, _ = read_regular(source, MAX_CONFIG_BYTES)
            text = decode(data)[0] if data is not None else ""
        pos = self.session.positions(uri, text)
        diags = [diagnostic(f, pos, uri, {}) for f in self.session.config.findings]
        if diags or uri in self._published:
            self._published.add(uri)
            self.client.publish(uri, None, diags)
