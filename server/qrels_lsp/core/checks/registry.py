"""The registered checks, in the order they run. A new check is one module and one line here."""

from __future__ import annotations

from . import (
    copied_wording,
    corpus_state,
    duplicate_document,
    duplicate_question,
    empty_question,
    judgments_inferred,
    linkage,
    run_chunks,
    run_missing_query,
    run_name_clash,
    run_short_ranking,
    run_unbound,
    run_unknown_document,
    run_unknown_query,
    stale_judgment,
    unknown_document,
)
from .check import GoldenCheck, QueryCheck, RunCheck

QUERY_CHECKS: tuple[QueryCheck, ...] = (
    duplicate_document.CHECK,
    linkage.CHECK,
    empty_question.CHECK,
    unknown_document.CHECK,
    copied_wording.CHECK,
    stale_judgment.CHECK,
)
GOLDEN_CHECKS: tuple[GoldenCheck, ...] = (
    corpus_state.CHECK,
    duplicate_question.CHECK,
    judgments_inferred.CHECK,
    stale_judgment.UNREADABLE,
)
RUN_CHECKS: tuple[RunCheck, ...] = (
    run_unbound.CHECK,
    run_unknown_query.CHECK,
    run_short_ranking.CHECK,
    run_unknown_document.CHECK,
    run_chunks.CHECK,
    run_missing_query.CHECK,
    run_name_clash.CHECK,
)
