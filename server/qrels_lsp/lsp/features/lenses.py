"""Code lenses: recall@k and MRR above each question, the means on the first line.

Every response is complete on its own (titles and commands filled in, no resolve step): Neovim
shows what the codeLens response holds and does not honour refresh requests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ...core.model import Qrels
from ...core.project.analysis import Analysis, QrelsContext
from ...ide.lenses import LensGroup, comparison_report, explanation, lens_groups, top_groups
from ...ide.present import query_lens_titles
from ..convert import Positions, RawJSON, uri_of
from ..pieces import LINE, Last, PieceCache, Placed, compact_json
from ..state import State

COMPARE_WAIT_S = 1.0
"""How long a lens request waits for a golden set's first comparison (once: the next requests
while it is being made wait ``STALE_WAIT_S``)."""
STALE_WAIT_S = 0.03
"""How long it waits for a comparison brought up to date after an edit (started as the edit's
diagnostics went out: it takes milliseconds, and is usually made), before showing the last one
marked as being updated; the lenses are refreshed when it is made."""
JOIN = " | "
"""A question's lenses (a run each) go out as one lens, its titles joined as VS Code, Neovim and
Emacs join the lenses of a line: the same text on screen and one command, at a fraction of
the bytes (each lens repeats its range and command: 300 bytes; 55 MB a response at 100,000
questions and two runs, before)."""
EXPLAIN_COMMAND = "qrels-lsp.explainQuery"
COMPARE_COMMAND = "qrels-lsp.compareRuns"
JUDGE_NEXT_COMMAND = "qrels-lsp.judgeNext"
REPORT_COMMAND = "qrels-lsp.report"
COMMANDS = {
    "explain": EXPLAIN_COMMAND,
    "compare": COMPARE_COMMAND,
    "judge": JUDGE_NEXT_COMMAND,
    "report": REPORT_COMMAND,
}


class LensEncoder:
    """One document's lenses as JSON, each place's lenses encoded once and the last response
    patched after an edit of one entry (see :mod:`.pieces`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._pieces = PieceCache()

    def sent(self, data: bytes | bytearray) -> None:
        """A response of this encoder was written: its bytes may be patched in place again."""
        self._pieces.sent(data)

    def encode(self, pos: Positions, analysis: Analysis) -> bytearray:
        """The lenses as a JSON array (UTF-8)."""
        ctx = analysis.context
        if isinstance(analysis.model, Qrels) and ctx is not None:
            last = self._pieces.last(pos, analysis)
            before = last.analysis.context if last is not None else None
            if last is not None and before is not None and before.k == ctx.k:
                changes = self._changes(pos, analysis, ctx, last)
                patched = (
                    None
                    if changes is None
                    else self._pieces.patch(pos, analysis, last, changes, extra=last.extra)
                )
                if patched is not None:
                    return patched
        parts: list[Placed] = []
        at: dict[str, int] = {}
        tops = 0
        for group in lens_groups(analysis):
            if not group.titles:
                continue
            if group.qid is not None:
                at[group.qid] = len(parts)
            else:
                tops += 1
            parts.append(self._part(pos, group))
        out = self._pieces.answer(pos, analysis, parts, at, extra=tops)
        if not isinstance(analysis.model, Qrels):
            self._pieces.forget()  # a run's lenses are made whole each time
        return out

    def _changes(
        self, pos: Positions, analysis: Analysis, ctx: QrelsContext, last: Last
    ) -> dict[int, Placed] | None:
        """The first line's and the changed questions' pieces; None when a question gained or
        lost its lenses, or the first line a lens (then the pieces are not the same ones)."""
        assert isinstance(analysis.model, Qrels)
        queries = analysis.model.queries
        tops = [g for g in top_groups(analysis) if g.titles]
        if len(tops) != last.extra:
            return None
        changes = {i: self._part(pos, group) for i, group in enumerate(tops)}
        edited = [queries[qid] for qid in last.changed if qid in queries]  # others: run only
        for query, titles in query_lens_titles(ctx, edited, analysis.runs, analysis.base):
            i = last.at.get(query.qid)
            if i is None and not titles:
                continue  # no lens before, none now (a golden set with no runs yet)
            if i is None or not titles:
                return None
            group = LensGroup(query.span, tuple(titles), query.qid, "explain")
            changes[i] = self._part(pos, group)
        return changes

    def _part(self, pos: Positions, group: LensGroup) -> Placed:
        position, enc = pos.lines.position, pos.encoding
        span = group.span
        (l1, c1), (l2, c2) = position(span.start, enc), position(span.end, enc)
        where = (c1, l2 - l1, c2)  # lines relative to the lens's own
        key = (where, group.titles, group.qid, group.action)
        return self._pieces.piece(key, l1, lambda: self._json(where, group))

    def _json(self, where: tuple[int, int, int], group: LensGroup) -> str:
        c1, lines, c2 = where
        start, end = {"line": LINE, "character": c1}, {"line": LINE + lines, "character": c2}
        rng = {"start": start, "end": end}
        # A question's lenses explain its numbers; the first line's show the comparison, and
        # its judging lens goes to the next pair to judge.
        qid, titles = group.qid, group.titles
        command: dict[str, Any] = {"command": COMMANDS[group.action]}
        command["arguments"] = [{"path": self.path, "qid": qid} if qid else {"path": self.path}]
        if qid is not None:
            titles = (JOIN.join(titles),)
        lenses = [{"range": rng, "command": {"title": t, **command}} for t in titles]
        return ",".join(compact_json(lens) for lens in lenses)


def register(server: LanguageServer, state: State) -> None:
    session, client = state.session, state.client
    encoders: dict[str, LensEncoder] = {}  # per open document: its last response, megabytes
    session.on_close.append(lambda uri: encoders.pop(uri, None))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: LanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return []
        # A comparison not made in time is shown as being made (or the last one, as being
        # updated); the lenses are refreshed then.
        await session.compared(analysis, COMPARE_WAIT_S, STALE_WAIT_S)
        if analysis.context is not None and not analysis.pooled:
            project = session.project
            await session.run(lambda: project.pool(analysis))
        pos = session.positions(uri, analysis.text)
        path = str(analysis.path)
        encoder = encoders.get(uri)
        if encoder is None or encoder.path != path:
            encoder = encoders[uri] = LensEncoder(path)
        return RawJSON(encoder.encode(pos, analysis), encoder.sent)  # type: ignore[return-value]

    # pygls reads a command handler's annotations when it is called, to convert the arguments
    # (a dict here: anything else is answered with InvalidParams).
    @server.command(EXPLAIN_COMMAND)
    async def explain(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What a lens's numbers are made of: the same table as the hover, as a message."""
        uri = uri_of(Path(str(args.get("path", ""))))
        qid = str(args.get("qid", ""))
        analysis = await session.analysis_if_ours(uri)
        text = explanation(analysis, qid) if analysis is not None else ""
        if text:
            client.inform(text)
        return text

    @server.command(COMPARE_COMMAND)
    async def compare(ls: LanguageServer, args: dict[str, Any]) -> str:
        """The whole comparison of a golden set's runs (or of one run file), as a message."""
        uri = uri_of(Path(str(args.get("path", ""))))
        analysis = await session.analysis_if_ours(uri)
        if analysis is None:
            return ""
        await session.compared(analysis)
        project = session.project
        text = await session.run(lambda: comparison_report(project, analysis))
        if text:
            client.inform(text)
        return text
