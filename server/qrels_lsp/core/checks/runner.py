"""Running the registered checks on a golden set or a run, with the per-query cache."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from ..base.edits import newline_of
from ..base.findings import Finding, shift_finding
from ..base.text import LineIndex, line_end_at, line_index, line_start_at
from ..chunks import ChunkRule
from ..coverage.judgments import Completeness
from ..formats import get
from ..formats.corpus import Corpus
from ..history.lock import LockState
from ..model import EntryEdit, Qrels, Query, Run
from .cache import CheckCache, Key
from .check import (
    CorpusState,
    GoldenCheck,
    GoldenInputs,
    Input,
    QueryCheck,
    QueryInputs,
    RunCheck,
    RunInputs,
)
from .registry import GOLDEN_CHECKS, QUERY_CHECKS, RUN_CHECKS
from .suggestions import SuggestionBudget


def _registry() -> tuple[tuple[QueryCheck, ...], tuple[GoldenCheck, ...], tuple[RunCheck, ...]]:
    return QUERY_CHECKS, GOLDEN_CHECKS, RUN_CHECKS


def _declared() -> tuple[Input, ...]:
    query_checks, _, _ = _registry()
    return tuple(sorted({name for check in query_checks for name in check.reads}))


def check_golden(
    qrels: Qrels,
    text: str,
    corpus: CorpusState,
    *,
    level: int = 1,
    cache: CheckCache | None = None,
    edit: EntryEdit | None = None,
    judgments: Completeness | None = None,
    lock: LockState | None = None,
) -> list[Finding]:
    """Checks of a golden set (or TREC/BEIR qrels, where the text-level fixes do not apply).

    ``edit`` says that ``qrels`` differs from the model last checked with ``cache`` in one entry
    only: the other entries' findings are then taken from the last check.
    """
    query_checks, golden_checks, _ = _registry()
    known = corpus if isinstance(corpus, Corpus) else None
    yaml = get(qrels.format).yaml
    if not yaml:
        cache = None  # TREC/BEIR qrels are parsed whole, with no edit fixes to keep
    newline = newline_of(text)
    values: dict[str, object] = {
        "corpus": known, "level": level, "newline": newline, "yaml": yaml, "lock": lock
    }  # fmt: skip
    if cache is not None:
        cache.use(tuple(values[name] for name in _declared()))
    budget = SuggestionBudget()  # one for the file: "did you mean" for its first unknown ids

    def check(query: Query, lines: LineIndex) -> list[Finding]:
        inputs = QueryInputs(query, text, lines, budget, known, level, newline, yaml, lock)
        return [f for c in query_checks for f in c.run(inputs)]

    last = cache.last_for(edit) if cache is not None and edit is not None else None
    flagged: frozenset[str] | None = None
    if last is not None and edit is not None:
        per_query = _moved_findings(*last, edit)
        found = per_query[edit.qid] = check(qrels.queries[edit.qid], line_index(text))
        flagged = last[1] | {edit.qid} if found else last[1] - {edit.qid}
    else:
        per_query = _check_all(qrels, text, cache, check)
    if cache is not None:
        cache.remember(qrels, per_query, flagged)
    whole = GoldenInputs(qrels, text, corpus, level, edit, judgments, lock)
    out = [f for c in golden_checks if not c.after_queries for f in c.run(whole)]
    gathered = cache.flagged_findings() if cache is not None else None
    out.extend(itertools.chain.from_iterable(per_query.values()) if gathered is None else gathered)
    out.extend(f for c in golden_checks if c.after_queries for f in c.run(whole))
    return out


def _moved_findings(
    last: dict[str, list[Finding]], flagged: frozenset[str], edit: EntryEdit
) -> dict[str, list[Finding]]:
    """The last per-query findings, in the same order, with those after the edit moved (the
    ``flagged`` queries' only: the others have none)."""
    out = dict(last)
    if edit.delta:
        for qid in flagged:
            if qid != edit.qid:
                out[qid] = [shift_finding(f, edit.delta, edit.end) for f in last[qid]]
    return out


def _check_all(
    qrels: Qrels,
    text: str,
    cache: CheckCache | None,
    check: Callable[[Query, LineIndex], list[Finding]],
) -> dict[str, list[Finding]]:
    """Every query's findings, from the text-keyed cache where the entry is unchanged."""
    lines: LineIndex | None = None
    used: set[Key] = set()
    out: dict[str, list[Finding]] = {}
    for query in qrels.queries.values():
        start = line_start_at(text, query.span.start)
        key = (query.qid, text[start : line_end_at(text, query.block.end)])
        found = cache.get(key, start) if cache is not None else None
        if found is None:
            if lines is None:
                lines = line_index(text)
            found = check(query, lines)
            if cache is not None:
                cache.put(key, start, found)
        used.add(key)
        out[query.qid] = found
    if cache is not None:
        cache.keep_only(used)
    return out


def check_run(
    run: Run,
    qrels: Qrels | None,
    corpus: CorpusState,
    *,
    k: int,
    level: int = 1,
    unbound_reason: str | None = None,
    text: str = "",
    beside: tuple[str, ...] = (),
    chunks: ChunkRule | None = None,
    name: str = "",
    namesakes: tuple[str, ...] = (),
    shown: str = "",
) -> list[Finding]:
    """Checks of a run against the golden set it answers (``qrels``) and its corpus."""
    _, _, run_checks = _registry()
    known = corpus if isinstance(corpus, Corpus) else None
    inputs = RunInputs(
        run, text, qrels, known, k, level, unbound_reason, SuggestionBudget(), beside, chunks, name,
        namesakes, shown or name,
    )  # fmt: skip
    return [f for c in run_checks for f in c.run(inputs)]
