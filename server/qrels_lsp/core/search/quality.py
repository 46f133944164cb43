"""Quality hints from the BM25 baseline: what keyword search suggests about a golden-set entry.

Two questions a golden set's maintainer asks while reading a query:
- "Did we miss a judgment?" Documents BM25 ranks above every judged-relevant one that nobody
  judged are worth a look (shown on hover, never as diagnostics: they are leads, not errors).
- "Why does BM25 miss this relevant document?" In words, from the tokens: no shared vocabulary
  (a paraphrase: dense retrieval may catch it), an exact token (code, number, name) the document
  lacks, or the answer split across documents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..base.escape import md_code
from ..formats.corpus import Corpus
from .tokens import MAX_TOKENIZED_CHARS, STOPWORDS, tokenize

CANDIDATES_SHOWN = 5
SPLIT_SHARE = 0.5  # each relevant document holds less than half of the question's terms...
SPLIT_UNION = 0.8  # ...while together they hold most of them


Cause = Literal["vocabulary", "exact token", "split answer", "outranked", "not in corpus"]
CAUSES: tuple[Cause, ...] = (
    "vocabulary",
    "exact token",
    "split answer",
    "outranked",
    "not in corpus",
)


@dataclass(frozen=True, slots=True)
class Miss:
    doc_id: str
    reason: str  # in words, for the hover
    cause: Cause = "outranked"


def content_terms(text: str) -> set[str]:
    return {t for t in tokenize(text) if t not in STOPWORDS}


def exact_tokens(question: str) -> set[str]:
    """Tokens a user typed on purpose: with a digit (codes, versions, models) or capitalised
    mid-sentence (names). Embeddings blur these; keyword search should not miss them."""
    out = set()
    words = question[:MAX_TOKENIZED_CHARS].split()  # as much as tokenize() reads
    for i, word in enumerate(words):
        for token in tokenize(word):
            if any(c.isdigit() for c in token) or (i > 0 and word[:1].isupper() and len(token) > 2):
                out.add(token)
    return out - STOPWORDS


def missed_judgments(
    grades: Mapping[str, int], baseline: Sequence[str], level: int, shown: int = CANDIDATES_SHOWN
) -> list[str]:
    """Unjudged documents that BM25 ranks above every judged-relevant one."""
    relevant = {d for d, g in grades.items() if g >= level}
    out = []
    for doc in baseline:
        if doc in relevant:
            break
        if doc not in grades:
            out.append(doc)
            if len(out) == shown:
                break
    return out


def miss_reasons(
    question: str,
    grades: Mapping[str, int],
    baseline: Sequence[str],
    k: int,
    level: int,
    corpus: Corpus,
) -> list[Miss]:
    """Why BM25 leaves each relevant document out of its top k, in words."""
    terms = content_terms(question)
    if not terms:
        return []
    relevant = [d for d, g in grades.items() if g >= level]
    top = set(baseline[:k])
    doc_terms = {}
    for doc_id in relevant:
        doc = corpus.get(doc_id)
        if doc is not None:
            doc_terms[doc_id] = content_terms(doc.searchable_prefix(MAX_TOKENIZED_CHARS))
    union = set().union(*doc_terms.values()) if doc_terms else set()
    split = (
        len(doc_terms) > 1
        and all(len(terms & t) < SPLIT_SHARE * len(terms) for t in doc_terms.values())
        and len(terms & union) >= SPLIT_UNION * len(terms)
    )
    exact = exact_tokens(question)
    out = []
    for doc_id in relevant:
        if doc_id in top or doc_id not in doc_terms:
            continue
        have = doc_terms[doc_id]
        lacking = sorted(exact - have)
        cause: Cause
        if not terms & have:
            cause = "vocabulary"
            reason = "no shared vocabulary: a paraphrase, which dense retrieval may catch"
        elif lacking:
            cause = "exact token"
            reason = (
                "the document lacks the exact token"
                + ("s " if len(lacking) > 1 else " ")
                + ", ".join(f"`{t}`" for t in lacking)
            )
        elif split:
            cause = "split answer"
            reason = (
                "the answer is split across documents: each holds only part of the question's words"
            )
        else:
            cause = "outranked"
            shared = ", ".join(f"`{t}`" for t in sorted(terms & have)[:5])
            reason = f"it shares only {shared} with the question; other documents share more"
        out.append(Miss(doc_id, reason, cause))
    return out


def miss_causes(
    question: str | None,
    grades: Mapping[str, int],
    ranking: Sequence[str],
    k: int,
    level: int,
    corpus: Corpus,
) -> dict[Cause, int]:
    """How many of a question's relevant documents ``ranking`` leaves out of its top k, by the
    likely cause in BM25's terms (the report's table): no shared vocabulary, an exact token the
    document lacks, an answer split across documents, outranked by documents sharing more of
    the question, or not in the corpus at all."""
    counts: dict[Cause, int] = dict.fromkeys(CAUSES, 0)
    top = set(ranking[:k])
    missed = [d for d, g in grades.items() if g >= level and g >= 0 and d not in top]
    counts["not in corpus"] = sum(1 for d in missed if d not in corpus)
    explained = miss_reasons(question or "", grades, ranking, k, level, corpus)
    for miss in explained:
        counts[miss.cause] += 1
    # A question with no content word explains nothing: its misses are counted as outranked.
    counts["outranked"] += len(missed) - counts["not in corpus"] - len(explained)
    return counts


def quality_notes(
    question: str | None,
    grades: Mapping[str, int],
    baseline: Sequence[str] | None,
    k: int,
    level: int,
    corpus: Corpus | None,
) -> list[str]:
    """Markdown lines for a query's hover; empty when there is nothing to say."""
    if not question or baseline is None or corpus is None:
        return []
    lines = []
    candidates = missed_judgments(grades, baseline, level)
    if candidates:
        shown = ", ".join(md_code(d) for d in candidates)
        lines.append(
            f"**Unjudged, ranked by BM25 above every relevant document** (a missed judgment?): {shown}"
        )
    for miss in miss_reasons(question, grades, baseline, k, level, corpus):
        lines.append(f"**BM25 misses {md_code(miss.doc_id)} in its top {k}**: {miss.reason}.")
    return lines
