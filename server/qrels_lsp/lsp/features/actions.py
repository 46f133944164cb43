"""Edits as LSP actions: the quick fixes of findings, "judge this document" from a run, and
renaming a query id across a golden set and its runs. The edits are the editor layer's
(``ide/actions.py``, ``ide/rename.py``); this module converts them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from ..commands import JUDGE_NEXT_COMMAND
from ..convert import Positions, code_action, diagnostic, uri_of, workspace_edit
from ..state import State

if TYPE_CHECKING:
    from ...core.base.findings import Finding, Fix, TextEdit
    from ...core.base.text import Span
    from ...core.coverage.pool import Pair
    from ...core.project.analysis import Analysis
    from ..session import Session

JUDGE_KIND = types.CodeActionKind.RefactorRewrite
REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed


def wants(only: object, kind: str) -> bool:
    """Whether a code action of ``kind`` passes the client's ``context.only`` filter."""
    if not only:
        return True
    return any(kind == str(o) or kind.startswith(f"{o}.") for o in only)  # type: ignore[attr-defined]


def _match(diags: object, f: Finding, pos: Positions) -> types.Diagnostic | None:
    rng = pos.range(f.span)
    for d in diags or ():  # type: ignore[attr-defined]
        if str(d.code) == f.code and d.range == rng:
            return d  # type: ignore[no-any-return]
    return None


def edit_of(
    session: Session, uri: str, pos: Positions, edits: list[TextEdit]
) -> types.WorkspaceEdit:
    """Edits of this and other files, each in its own positions and at its own version."""
    positions, versions = {uri: pos}, {uri: session.version(uri)}
    for e in edits:
        target = uri_of(Path(e.path)) if e.path else uri
        if target not in positions:
            positions[target] = session.positions(target)
            versions[target] = session.version(target)
    return workspace_edit(edits, uri, positions, versions)


async def _judge_next(
    session: Session, uri: str, pos: Positions, analysis: Analysis, span: Span
) -> list[types.CodeAction]:
    """At a question's id: judge its next pair of the queue, then go to the next one."""
    from ...ide.judging import next_fixes

    judging = session.judging.get(uri)
    pooled = await session.decided.pooled(analysis)

    def fixes() -> list[tuple[Pair, Fix]]:  # a parse of the question's entry: not on the loop
        return next_fixes(pooled, span.start, pooled.text, judging)

    out = []
    for pair, fix in await session.run(fixes):
        action = code_action(fix, None, edit_of(session, uri, pos, list(fix.edits)))
        action.kind = JUDGE_KIND
        after: dict[str, object] = {"path": str(analysis.path), "after": [pair.query, pair.doc]}
        action.command = types.Command("Judge next", JUDGE_NEXT_COMMAND, arguments=[after])
        out.append(action)
    return out


def _config_fixes(
    session: Session, uri: str, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    """The quick fixes of the configuration file's own findings (an unknown metric's closest
    names), which no analysis holds: the diagnostics of that file are the configuration's."""
    source = session.config.source
    if source is None or uri_of(source) != uri:
        return None
    pos = session.positions(uri)
    span = pos.span(params.range)
    actions = []
    for f in session.config.findings:
        if f.span.start <= span.end and span.start <= f.span.end:
            diag = _match(params.context.diagnostics, f, pos) or diagnostic(f, pos, uri, {})
            for fix in f.fixes:
                actions.append(code_action(fix, diag, edit_of(session, uri, pos, list(fix.edits))))
    return actions or None


def _judge_again(
    analysis: Analysis, span: Span, pos: Positions, uri: str, diags: object
) -> list[types.CodeAction]:
    """On a stale judgment (QR130-QR132): open the judging view on it (the judge-next
    command, given the pair), where the grade actions also take the document into the lock."""
    from ...ide.actions import stale_at

    out = []
    for qid, doc, f in stale_at(analysis, span):
        args: dict[str, object] = {"path": str(analysis.path), "pair": [qid, doc]}
        title = f"Judge `{doc}` again for `{qid}`"
        command = types.Command(title, JUDGE_NEXT_COMMAND, arguments=[args])
        diag = _match(diags, f, pos) or diagnostic(f, pos, uri, {})
        out.append(types.CodeAction(title, kind=JUDGE_KIND, diagnostics=[diag], command=command))
    return out


def register(server: LanguageServer, state: State) -> None:
    _register_actions(server, state)
    _register_rename(server, state)


def _register_actions(server: LanguageServer, state: State) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, JUDGE_KIND]),
    )
    async def code_actions(
        ls: LanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        from ...core.model import Qrels
        from ...ide.actions import fixes_at, judge_fixes, retrieved_at

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return _config_fixes(session, uri, params)
        pos = session.positions(uri, analysis.text)
        span, only = pos.span(params.range), params.context.only
        actions: list[types.CodeAction] = []
        if wants(only, types.CodeActionKind.QuickFix):
            for f, fix in fixes_at(analysis, span):
                diag = _match(params.context.diagnostics, f, pos) or diagnostic(f, pos, uri, {})
                actions.append(code_action(fix, diag, edit_of(session, uri, pos, list(fix.edits))))
        ctx = analysis.context
        if wants(only, JUDGE_KIND) and ctx is not None and retrieved_at(analysis, span):
            golden_path = ctx.path
            golden_text = await session.run(lambda: session.text_of(golden_path))
            for fix in judge_fixes(analysis, span, golden_text) if golden_text else []:
                action = code_action(fix, None, edit_of(session, uri, pos, list(fix.edits)))
                action.kind = JUDGE_KIND
                actions.append(action)
        if wants(only, JUDGE_KIND) and isinstance(analysis.model, Qrels):
            actions += await _judge_next(session, uri, pos, analysis, span)
            actions += _judge_again(analysis, span, pos, uri, params.context.diagnostics)
        return actions


def _register_rename(server: LanguageServer, state: State) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: LanguageServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        from ...ide.rename import query_id_at

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        hit = query_id_at(analysis.kind, analysis.text, pos.offset(params.position))
        if hit is None:
            return None
        return types.PrepareRenamePlaceholder(range=pos.range(hit[1]), placeholder=hit[0])

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def rename(ls: LanguageServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        from ...ide.rename import RenameError, rename_in_project

        session, uri = state.session, params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = session.positions(uri, analysis.text)
        offset, project = pos.offset(params.position), session.project
        try:
            edits = await session.run(
                lambda: rename_in_project(project, analysis, offset, params.new_name)
            )
        except RenameError as exc:
            raise JsonRpcException(str(exc), REQUEST_FAILED) from exc
        return edit_of(session, uri, pos, edits)
