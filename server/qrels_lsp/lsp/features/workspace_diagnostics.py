"""workspace/diagnostic: every golden set and run of the workspace the editor has not opened,
with the findings `qrels-lsp check` reports, for clients that pull (VS Code asks every two
seconds). A file's report is made again only when the configuration or a file on disk changed
since (its result id says which); otherwise it is reported unchanged, after one `stat`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..convert import uri_of
from ..state import State

if TYPE_CHECKING:
    from ..diagnostics import Publisher
    from ..session import Session

Report = (
    types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport
)


def result_id(session: Session, path: Path) -> str | None:
    """What a file's findings were made from: the configuration, the disk, the file itself."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return f"{session.generation}.{session.disk_changes}.{st.st_mtime_ns}.{st.st_size}"


async def report(
    session: Session, publisher: Publisher, path: Path, previous: str | None
) -> Report | None:
    uri, made = uri_of(path), result_id(session, path)
    if made is None:
        return None
    if made == previous:
        return types.WorkspaceUnchangedDocumentDiagnosticReport(
            uri=uri, result_id=made, version=None
        )
    analysis = await session.analysis_on_disk(path)
    items = publisher.items(uri, analysis) if analysis is not None else []
    return types.WorkspaceFullDocumentDiagnosticReport(
        uri=uri, items=items, result_id=made, version=None
    )


def register(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(
        ls: LanguageServer, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        session, publisher = state.session, state.publisher
        previous = {p.uri: p.value for p in params.previous_result_ids}
        files = await session.run(session.project.workspace_files)
        opened = set(client.open_uris())  # the document pulls report those
        items: list[Report] = []
        for path in files:
            uri = uri_of(path)
            if uri not in opened:
                made = await report(session, publisher, path, previous.pop(uri, None))
                if made is not None:
                    items.append(made)
        for uri in previous.keys() - opened:  # gone, or no longer ours: cleared
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None)
            )
        return types.WorkspaceDiagnosticReport(items=items)
