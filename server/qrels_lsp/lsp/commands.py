"""The commands the server runs (workspace/executeCommand), by what the lens or action that
carries one does: the lenses name theirs by action (``LensGroup.action``)."""

from __future__ import annotations

EXPLAIN_COMMAND = "qrels-lsp.explainQuery"
COMPARE_COMMAND = "qrels-lsp.compareRuns"
JUDGE_NEXT_COMMAND = "qrels-lsp.judgeNext"
REPORT_COMMAND = "qrels-lsp.report"
HISTORY_COMMAND = "qrels-lsp.history"
COMMANDS = {
    "explain": EXPLAIN_COMMAND,
    "compare": COMPARE_COMMAND,
    "judge": JUDGE_NEXT_COMMAND,
    "report": REPORT_COMMAND,
    "history": HISTORY_COMMAND,
}
