"""QR109: the corpus a golden set names cannot be read; QR113: it was read or indexed only in
part (a limit cut it: the message says which)."""

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


def corpus_state(x: GoldenInputs) -> Iterable[Finding]:
    ref, corpus = x.qrels.corpus, x.corpus
    if ref is not None and isinstance(corpus, CorpusError):
        yield finding(QR109, ref.span, f"Corpus `{ref.value}`: {corpus.message}")
    if isinstance(corpus, Corpus) and corpus.limits:
        span = ref.span if ref is not None else Span(0, 0)
        name = f"`{ref.value}`" if ref is not None else "The corpus"
        yield finding(QR113, span, f"{name}: " + "; ".join(corpus.limits) + ".")


CHECK = GoldenCheck(codes=(QR109, QR113), run=corpus_state)
