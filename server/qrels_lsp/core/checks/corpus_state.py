"""QR109: the corpus a golden set names cannot be read; QR113: it was read or indexed only in
part (a limit cut it: the message says which); QR114: a folder corpus read by file stem
(``corpus_ids = "stem"``) has two files with one stem, so one of them is not in the corpus."""

from __future__ import annotations

from collections.abc import Iterable

from ..base.findings import Finding, Severity, declare, finding
from ..base.text import Span
from ..formats.corpus import Corpus, CorpusError
from .check import GoldenCheck, GoldenInputs

QR109 = declare(
    "QR109",
    "corpus-missing",
    Severity.ERROR,
    "golden set",
    "The corpus path is missing or unreadable.",
)
QR113 = declare(
    "QR113",
    "corpus-limited",
    Severity.WARNING,
    "golden set",
    "The corpus was read or indexed only in part: a limit cut it (the message says which).",
)

QR114 = declare(
    "QR114",
    "corpus-id-clash",
    Severity.WARNING,
    "golden set",
    'Two files of a folder corpus read by stem (`corpus_ids = "stem"`) have the same id: the first is kept.',
)
MAX_CLASHES_SHOWN = 5


def corpus_state(x: GoldenInputs) -> Iterable[Finding]:
    ref, corpus = x.qrels.corpus, x.corpus
    if ref is not None and isinstance(corpus, CorpusError):
        yield finding(QR109, ref.span, f"Corpus `{ref.value}`: {corpus.message}")
    if isinstance(corpus, Corpus) and corpus.limits:
        span = ref.span if ref is not None else Span(0, 0)
        name = f"`{ref.value}`" if ref is not None else "The corpus"
        yield finding(QR113, span, f"{name}: " + "; ".join(corpus.limits) + ".")
    if isinstance(corpus, Corpus) and corpus.clashes:
        yield _clashes(corpus, ref.span if ref is not None else Span(0, 0))


def _clashes(corpus: Corpus, span: Span) -> Finding:
    shown = "; ".join(
        f"{kept} and {dropped} are both `{doc_id}` ({kept} is kept)"
        for doc_id, kept, dropped in corpus.clashes[:MAX_CLASHES_SHOWN]
    )
    more = len(corpus.clashes) - MAX_CLASHES_SHOWN
    return finding(
        QR114,
        span,
        f'Documents are named by file stem (`corpus_ids = "stem"`), and {shown}'
        + (f"; {more:,} more" if more > 0 else "")
        + ". Rename one of each pair, or name documents by path.",
    )


CHECK = GoldenCheck(codes=(QR109, QR113, QR114), run=corpus_state)
