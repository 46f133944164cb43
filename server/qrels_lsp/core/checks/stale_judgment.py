"""QR130-QR133: judgments made on a document that has changed since (docs/history.md, "Stale
judgments"). With a lock (``qrels-lsp lock``), each judged document the lock records is
compared with the corpus as it is: deleted, changed (by how much, from which line) or cut into
passages differently. Each finding offers to accept the change (its line of the lock is
rewritten); the editor also offers to judge it again, and the judging queue lists it first."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Fix, Severity, declare, finding
from ..base.text import Span
from ..history.lock import QR130, QR131, QR132, QR133
from .check import GoldenCheck, GoldenInputs, QueryCheck, QueryInputs

declare(
    QR130,
    "judged-document-deleted",
    Severity.WARNING,
    "golden set",
    "A judged document the lock records is no longer in the corpus: judge the question again, "
    "or accept the change.",
)
declare(
    QR131,
    "judged-document-changed",
    Severity.WARNING,
    "golden set",
    "A judged document changed since it was locked (its sizes and first changed line are "
    "said): judge it again, or accept the change.",
)
declare(
    QR132,
    "judged-passage-recut",
    Severity.WARNING,
    "golden set",
    "A judged passage whose document is cut into passages differently since it was locked: "
    "judge its passages again, or accept the change.",
)
declare(
    QR133,
    "lock-unreadable",
    Severity.WARNING,
    "golden set",
    "The golden set's lock (`GOLDEN.lock`) cannot be read: no judgment is checked against it "
    "until `qrels-lsp lock` writes it again.",
)
STALE_CODES = (QR130, QR131, QR132)


def stale_judgments(x: QueryInputs) -> Iterable[Finding]:
    state = x.lock
    if state is None or state.unchanged:
        return
    seen: set[str] = set()
    for j in x.query.judgments:
        if j.doc_id in seen:
            continue
        seen.add(j.doc_id)
        stale = state.staleness(j.doc_id)
        if stale is not None:
            name = state.path.name
            fix = Fix(
                f"Accept the change to `{j.doc_id}` (update {name})", (state.accept(j.doc_id),)
            )
            yield finding(stale.code, j.span, stale.message, fixes=(fix,))


def lock_unreadable(x: GoldenInputs) -> Iterable[Finding]:
    state = x.lock
    if state is not None and state.lock.problem is not None:
        message = (
            f"{state.path.name} is {state.lock.problem}: judgments are not checked against it."
        )
        yield finding(QR133, Span(0, 0), message)


CHECK = QueryCheck(codes=STALE_CODES, reads=frozenset({"lock"}), run=stale_judgments)
UNREADABLE = GoldenCheck(codes=(QR133,), run=lock_unreadable)
