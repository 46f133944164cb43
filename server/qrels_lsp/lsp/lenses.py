"""Code lenses: recall@k and MRR above each question, the means on the first line.

Every response is complete on its own (titles and commands filled in, no resolve step): Neovim
shows what the codeLens response holds and does not honour refresh requests.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..core.model import Qrels, Run
from ..core.present import (
    UNANSWERABLE_TITLE,
    header_titles,
    lens_values,
    query_hover,
    query_lens_titles,
    run_header_title,
)
from ..core.project import Analysis
from ..core.text import Span
from .convert import Positions, RawJSON

if TYPE_CHECKING:
    from .server import QrelsServer

EXPLAIN_COMMAND = "qrels-lsp.explainQuery"


LensGroup = tuple[Span, tuple[str, ...], str | None]
"""The lenses at one place: where, their titles (one per run), the query they explain (if any)."""


def lens_groups(analysis: Analysis) -> list[LensGroup]:
    """Every lens of a file, grouped by place, in core terms."""
    ctx = analysis.context
    if ctx is None:
        return []
    top = Span(0, 0)
    if isinstance(analysis.model, Qrels):
        out: list[LensGroup] = [(top, tuple(header_titles(ctx, analysis.runs)), None)]
        queries = analysis.model.queries.values()
        for query, titles in query_lens_titles(ctx, queries, analysis.runs):
            out.append((query.span, tuple(titles), query.qid))
        return out
    if isinstance(analysis.model, Run) and analysis.runs:
        result = analysis.runs[0]
        out = [(top, (run_header_title(ctx, result),), None)]
        for qid, ranking in analysis.model.rankings.items():
            if qid not in ctx.qrels.queries:
                title = "not in the golden set · ignored"
            elif qid in ctx.unanswerable:
                title = UNANSWERABLE_TITLE
            else:
                title = lens_values(result.evaluation.per_query.get(qid, {}), ctx.k)
            out.append((ranking.span, (title,), qid))
        return out
    return []


class _Payload:
    """A JSON array kept as ASCII bytes, with where each of its pieces starts.

    A keystroke changes a piece or two of a five-megabyte response, most often to one of the
    same length (a number written with two decimals): that is written over in place, with no
    joining of ten thousand pieces again.
    """

    __slots__ = ("data", "parts", "starts")

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.data = bytearray(b"[" + b",".join(parts) + b"]")
        self.starts = list(itertools.accumulate((len(p) + 1 for p in parts), initial=1))

    def patched(self, changes: dict[int, bytes]) -> _Payload:
        """This array with pieces replaced: itself, changed in place, when their lengths stay."""
        if any(len(part) != len(self.parts[i]) for i, part in changes.items()):
            parts = list(self.parts)
            for i, part in changes.items():
                parts[i] = part
            return _Payload(parts)
        for i, part in changes.items():
            start = self.starts[i]
            self.data[start : start + len(part)] = part
            self.parts[i] = part
        return self


@dataclass(slots=True)
class _Shown:
    """The last lenses of a golden set: their JSON and what they were made from."""

    analysis: Analysis
    encoding: str
    line_count: int
    payload: _Payload  # the header's piece first, then one per question with lenses
    at: dict[str, int]  # query id -> its piece


class LensEncoder:
    """One document's lenses as JSON, each place's lenses encoded once.

    A 10,000-question golden set has 20,000 lenses when two runs are compared, and an editor asks
    for all of them after every keystroke. Building that many lsprotocol objects, or even plain
    dicts, and encoding them costs far more than the analysis; but a keystroke changes one
    question's numbers, and typing within a line moves no lens. So the JSON of each place's
    lenses is kept by what they show (range, titles, query); and when the analysis says it was
    made from the last one shown by an edit of one entry (:meth:`Analysis.changed_since`) and the
    file has as many lines as before, the last response is kept but for the header's and the
    changed questions' pieces, with no pass over the other questions at all.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._encoded: dict[
            tuple[tuple[int, int, int, int], tuple[str, ...], str | None], bytes
        ] = {}
        self._shown: _Shown | None = None

    def encode(self, pos: Positions, analysis: Analysis) -> bytes:
        """The lenses as a JSON array (ASCII): a copy, the encoder keeps patching its own."""
        patched = self._patched(pos, analysis)
        payload, at = patched or self._encode_all(pos, lens_groups(analysis))
        if isinstance(analysis.model, Qrels) and analysis.context is not None:
            self._shown = _Shown(analysis, pos.encoding, pos.lines.line_count, payload, at)
        else:
            self._shown = None
        return bytes(payload.data)

    def _patched(
        self, pos: Positions, analysis: Analysis
    ) -> tuple[_Payload, dict[str, int]] | None:
        """The last response with the header and the changed questions' pieces made anew; None
        when more than that may have changed."""
        shown = self._shown
        ctx = analysis.context
        if shown is None or ctx is None or not isinstance(analysis.model, Qrels):
            return None
        if pos.encoding != shown.encoding or pos.lines.line_count != shown.line_count:
            return None  # lines came or went: the lenses below the edit moved
        before = shown.analysis.context
        changed = analysis.changed_since(shown.analysis)
        if changed is None or before is None or before.k != ctx.k:
            return None
        if len(self._encoded) > 4 * len(shown.at) + 1024:
            self._encoded.clear()  # the titles each keystroke left behind
        queries = analysis.model.queries
        changes = {0: self._part(pos, Span(0, 0), tuple(header_titles(ctx, analysis.runs)), None)}
        edited = [queries[qid] for qid in changed if qid in queries]  # (others: only in a run)
        for query, titles in query_lens_titles(ctx, edited, analysis.runs):
            i = shown.at.get(query.qid)
            if i is None or not titles:
                return None  # a question gained or lost its lenses: the pieces are not the same
            changes[i] = self._part(pos, query.span, tuple(titles), query.qid)
        return shown.payload.patched(changes), shown.at

    def _encode_all(
        self, pos: Positions, groups: list[LensGroup]
    ) -> tuple[_Payload, dict[str, int]]:
        if len(self._encoded) > 4 * len(groups) + 1024:
            self._encoded.clear()  # what a rewrite of the file left behind
        parts: list[bytes] = []
        at: dict[str, int] = {}
        for span, titles, qid in groups:
            if not titles:
                continue
            if qid is not None:
                at[qid] = len(parts)
            parts.append(self._part(pos, span, titles, qid))
        return _Payload(parts), at

    def _part(self, pos: Positions, span: Span, titles: tuple[str, ...], qid: str | None) -> bytes:
        position, enc = pos.lines.position, pos.encoding
        key = ((*position(span.start, enc), *position(span.end, enc)), titles, qid)
        text = self._encoded.get(key)
        if text is None:
            text = self._encoded[key] = self._json(*key).encode("ascii")
        return text

    def _json(
        self, where: tuple[int, int, int, int], titles: tuple[str, ...], qid: str | None
    ) -> str:
        l1, c1, l2, c2 = where
        rng = {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}
        command: dict[str, Any] = {"command": EXPLAIN_COMMAND if qid is not None else ""}
        if qid is not None:
            command["arguments"] = [{"path": self.path, "qid": qid}]
        lenses = [{"range": rng, "command": {"title": t, **command}} for t in titles]
        return ",".join(json.dumps(lens, separators=(",", ":")) for lens in lenses)


def register(server: QrelsServer) -> None:
    encoders: dict[str, LensEncoder] = {}

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: QrelsServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        analysis = await ls.session.analysis_if_ours(uri)
        if analysis is None:
            return []
        pos = ls.session.positions(uri, analysis.text)
        path = str(analysis.path)
        encoder = encoders.get(uri)
        if encoder is None or encoder.path != path:
            for gone in [u for u in encoders if u not in ls.workspace.text_documents]:
                del encoders[gone]
            encoder = encoders[uri] = LensEncoder(path)
        return RawJSON(encoder.encode(pos, analysis))  # type: ignore[return-value]

    # pygls evaluates a command handler's annotations at call time (to convert the arguments),
    # in this module's globals: `QrelsServer` is imported for type checking only, so annotating
    # `ls` with it made every executeCommand fail with InvalidParams. The closure's `server` is
    # the same object, typed.
    @server.command(EXPLAIN_COMMAND)
    async def explain(ls: LanguageServer, args: dict[str, Any]) -> str:
        """What a lens's numbers are made of: the same table as the hover, as a message."""
        from pathlib import Path

        from .convert import uri_of

        path = Path(str(args.get("path", "")))
        qid = str(args.get("qid", ""))
        analysis = await server.session.analysis(uri_of(path))
        if analysis is None or analysis.context is None:
            return ""
        ctx = analysis.context
        query = ctx.qrels.queries.get(qid)
        if query is None:
            return ""
        runs = [(r.name, r.rankings.get(qid)) for r in analysis.runs]
        text = query_hover(ctx, query, runs)
        server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=text)
        )
        return text
