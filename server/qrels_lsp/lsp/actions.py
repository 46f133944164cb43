"""Edits: quick fixes from the core's findings, "judge this document" from a run, and renaming a
query id across a golden set and its runs. The edits are computed in core
(:mod:`~qrels_lsp.core.judge`, :mod:`~qrels_lsp.core.rename`); this module converts them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..core.corpus import Corpus
from ..core.findings import Finding, Fix, TextEdit
from ..core.judge import JudgeError, judge_golden, judge_trec
from ..core.model import Run
from ..core.project import Analysis
from ..core.rename import RenameError, RenameTarget, query_id_at, rename_query
from ..core.text import Span
from .convert import Positions, code_action, diagnostic, uri_of, workspace_edit

if TYPE_CHECKING:
    from .server import QrelsServer

JUDGE_KIND = types.CodeActionKind.RefactorRewrite
REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed
JUDGE_GRADES = (1, 2, 3, 0)


def wants(only: object, kind: str) -> bool:
    """Whether a code action of ``kind`` passes the client's ``context.only`` filter."""
    if not only:
        return True
    return any(kind == str(o) or kind.startswith(f"{o}.") for o in only)  # type: ignore[attr-defined]


def _overlaps(a: Span, b: Span) -> bool:
    return a.start <= b.end and b.start <= a.end


def retrieved_at(analysis: Analysis, span: Span) -> tuple[str, str] | None:
    """(query id, document id) of the retrieved id under ``span`` in a run."""
    model = analysis.model
    if not isinstance(model, Run):
        return None
    for ranking in model.rankings.values():
        if not _overlaps(ranking.block, span):
            continue
        for doc in ranking.docs:
            if _overlaps(doc.span, span):
                return ranking.qid, doc.doc_id
    return None


def judge_fixes(analysis: Analysis, span: Span, golden_text: str) -> list[Fix]:
    """The "Judge `doc` as ..." actions for a retrieved id the golden set does not judge."""
    ctx = analysis.context
    hit = retrieved_at(analysis, span)
    if ctx is None or hit is None:
        return []
    qid, doc = hit
    query = ctx.qrels.queries.get(qid)
    if query is None or doc in query.grades():
        return []
    if isinstance(ctx.corpus, Corpus) and doc not in ctx.corpus:
        return []  # judging an id the corpus lacks would only add an unknown-document warning
    fixes = []
    for grade in JUDGE_GRADES:
        try:
            if ctx.kind == "golden":
                edits = judge_golden(golden_text, qid, doc, grade)
            elif ctx.kind in ("trec-qrels", "beir-qrels"):
                edits = judge_trec(golden_text, qid, doc, grade, beir=ctx.kind == "beir-qrels")
            else:
                return []
        except JudgeError:
            return []
        what = f"relevant (grade {grade})" if grade else "not relevant (grade 0)"
        fixes.append(
            Fix(
                f"Judge `{doc}` as {what} for `{qid}`",
                tuple(TextEdit(e.span, e.new_text, str(ctx.path)) for e in edits),
            )
        )
    return fixes


def _match(diags: object, f: Finding, pos: Positions) -> types.Diagnostic | None:
    rng = pos.range(f.span)
    for d in diags or ():  # type: ignore[attr-defined]
        if str(d.code) == f.code and d.range == rng:
            return d  # type: ignore[no-any-return]
    return None


def register(server: QrelsServer) -> None:
    def positions_for(
        ls: QrelsServer, uri: str, pos: Positions, edits: list[TextEdit], texts: dict[str, str]
    ) -> tuple[dict[str, Positions], dict[str, int | None]]:
        positions = {uri: pos}
        versions = {uri: ls.session.version(uri)}
        for e in edits:
            target = uri_of(Path(e.path)) if e.path else uri
            if target not in positions:
                positions[target] = ls.session.positions(target, texts.get(target))
                versions[target] = ls.session.version(target)
        return positions, versions

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, JUDGE_KIND]),
    )
    async def code_actions(
        ls: QrelsServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = ls.session.positions(uri, analysis.text)
        span = pos.span(params.range)
        only = params.context.only
        actions: list[types.CodeAction] = []
        if wants(only, types.CodeActionKind.QuickFix):
            for f in analysis.findings:
                if not f.fixes or not _overlaps(f.span, span):
                    continue
                diag = _match(params.context.diagnostics, f, pos) or diagnostic(f, pos, uri, {})
                for fix in f.fixes:
                    positions, versions = positions_for(ls, uri, pos, list(fix.edits), {})
                    actions.append(code_action(fix, diag, uri, positions, versions))
        ctx = analysis.context
        if wants(only, JUDGE_KIND) and ctx is not None and retrieved_at(analysis, span):
            golden_path = ctx.path
            loaded = await ls.session.run(lambda: ls.session.project.load(golden_path))
            golden_text = loaded[1]
            if golden_text is not None:
                texts = {uri_of(golden_path): golden_text}
                for fix in judge_fixes(analysis, span, golden_text):
                    positions, versions = positions_for(ls, uri, pos, list(fix.edits), texts)
                    action = code_action(fix, None, uri, positions, versions)
                    action.kind = JUDGE_KIND
                    actions.append(action)
        return actions

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare_rename(
        ls: QrelsServer, params: types.PrepareRenameParams
    ) -> types.PrepareRenamePlaceholder | None:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = ls.session.positions(uri, analysis.text)
        hit = query_id_at(analysis.kind, analysis.text, pos.offset(params.position))
        if hit is None:
            return None
        qid, span = hit
        return types.PrepareRenamePlaceholder(range=pos.range(span), placeholder=qid)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def rename(ls: QrelsServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return None
        pos = ls.session.positions(uri, analysis.text)
        hit = query_id_at(analysis.kind, analysis.text, pos.offset(params.position))
        if hit is None:
            raise JsonRpcException("There is no query id here to rename.", REQUEST_FAILED)
        ctx = analysis.context
        if ctx is None:
            raise JsonRpcException(
                "This run is not tied to a golden set: add `qrels:` first, then rename.",
                REQUEST_FAILED,
            )
        paths = [ctx.path, *ctx.run_paths]
        if analysis.path.resolve() not in paths:
            paths.append(analysis.path.resolve())

        def gather() -> list[RenameTarget]:
            out = []
            for p in paths:
                kind, text, _model, _error = ls.session.project.load(p)
                if kind is not None and text is not None:
                    out.append(RenameTarget(p, kind, text))
            return out

        targets = await ls.session.run(gather)
        try:
            edits = rename_query(targets, hit[0], params.new_name)
        except RenameError as exc:
            raise JsonRpcException(str(exc), REQUEST_FAILED) from exc
        texts = {uri_of(t.path): t.text for t in targets}
        positions, versions = positions_for(ls, uri, pos, edits, texts)
        return workspace_edit(edits, uri, positions, versions)
