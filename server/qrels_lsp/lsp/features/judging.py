"""Judge next: the first-line lens's command goes to the next pair of the judging queue
(``ide/judging.py``), keeps it as the pair being judged (``Session.judging``) and selects its
question's id, where the hover shows the document, an inlay hint names it and code actions
(``features/actions.py``) write its grade and come back here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer

from ...core.base.escape import for_log
from ..commands import JUDGE_NEXT_COMMAND
from ..convert import uri_of
from ..state import State


def register(server: LanguageServer, state: State) -> None:
    client = state.client
    state.on_close.append(lambda uri: state.session.judging.pop(uri, None))

    @server.command(JUDGE_NEXT_COMMAND)
    async def judge_next(ls: LanguageServer, args: dict[str, Any]) -> dict[str, Any] | None:
        """Select the next pair's question; its pair, and how many are left, as the result."""
        from ...core.model import Qrels
        from ...ide.judging import next_pair

        session, uri = state.session, uri_of(Path(str(args.get("path", ""))))
        analysis = await session.analysis_if_ours(uri)
        if analysis is None or not isinstance(analysis.model, Qrels):
            return None
        skip = _pair(args.get("after"))
        wanted = _pair(args.get("pair"))  # a stale judgment's "judge it again"
        pooled = await session.decided.pooled(analysis)
        pool = pooled.pool
        pair = await session.run(lambda: next_pair(pooled, skip, wanted))  # a pass over them
        if pool is None or pair is None:
            client.inform("Nothing to judge: the runs' top documents are all judged.")
            return None
        session.judging[uri] = (pair.query, pair.doc)
        client.refresh_views()  # the hint that names the document
        query = analysis.model.queries[pair.query]
        pos = session.positions(uri, analysis.text)
        shown = await client.show(uri, pos.range(query.span))
        if not shown:
            client.inform(f"Judge next: {for_log(pair.doc)} for {for_log(pair.query)}.")
        return {
            "query": pair.query,
            "doc": pair.doc,
            "runs": list(pair.runs),
            "best_rank": pair.best_rank,
            "remaining": len(pool),
        }


def _pair(value: object) -> tuple[str, str] | None:
    """A (question, document) pair as a command's argument gives it, or None."""
    if isinstance(value, list) and len(value) == 2:
        return str(value[0]), str(value[1])
    return None
