"""Text to tokens, and what is read from tokens without an index: snippets and copy overlap.

No numpy here: the checks and the hover need these at every keystroke, and a language server
that imports numpy just to start pays a quarter of a second for nothing. The tokenizer's rules
are documented in :mod:`qrels_lsp.core.search.bm25`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence

from ..base.patterns import COMBINING_MARKS, LINE_BREAK, SENTENCE_END, WORD_TOKEN
from ..formats.corpus import Document

TOKENIZER_VERSION = 2  # 2: texts are tokenized up to MAX_TOKENIZED_CHARS

MAX_TOKENIZED_CHARS = 1_000_000
"""Characters of one text that are tokenized: a document's first million are indexed (and a
question's first million searched). NFKD can make one character eighteen (U+FDFA), so a text is
cut before it is normalised and again after: whatever it holds, its tokens stay under a million
(30 MB of U+FDFA had cost 3.6 GB). Ordinary documents are far shorter (a novel is about a
million characters), so their tokens, and BM25's scores, are unchanged."""

# ---------------------------------------------------------------------------------------------
# Tokenizer


def normalize(text: str, limit: int = MAX_TOKENIZED_CHARS) -> str:
    """Case- and accent-folded text, the form tokens are cut from: of ``text``'s first ``limit``
    characters, at most ``limit`` characters (each step that can expand a text is cut)."""
    text = text[:limit]
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKD", text)[:limit].casefold()[:limit]
    return unicodedata.normalize("NFC", COMBINING_MARKS.sub("", text))


def tokenize(text: str, limit: int = MAX_TOKENIZED_CHARS) -> list[str]:
    """Tokens as the index and queries see them; the module docstring states the rules. Only
    the first ``limit`` characters count (:data:`MAX_TOKENIZED_CHARS`)."""
    text = normalize(text, limit)
    found: list[str] = WORD_TOKEN.findall(text)
    if "." not in text:
        return found
    dotted = [i for i, token in enumerate(found) if "." in token]
    if not dotted:
        return found
    out: list[str] = []
    start = 0
    for i in dotted:
        out.extend(found[start:i])
        out.extend(_split_dots(found[i]))
        start = i + 1
    out.extend(found[start:])
    return out


def _split_dots(token: str) -> list[str]:
    """Word characters joined by dots, as tokens: a dot joins two digits (``3.14``,
    ``1.2.3``) and splits anything else (``e.g``, ``www.example.com``). Done here rather than
    with a lookaround in the pattern (``(?<=\\d)\\.(?=\\d)``), which RE2 cannot prove linear."""
    parts = token.split(".")
    out = [parts[0]]
    for part in parts[1:]:
        if out[-1][-1].isdecimal() and part[0].isdecimal():
            out[-1] += "." + part
        else:
            out.append(part)
    return out


# ---------------------------------------------------------------------------------------------
# Snippets and copied questions


def snippet(
    document: Document | str, query_tokens: Sequence[str], lines: int = 2, width: int = 200
) -> str:
    """The ``lines`` sentences or lines that hold most query terms, in document order.

    Distinct terms count first (a line naming two query terms beats one repeating a term),
    then occurrences; with no match, the document's opening lines. Long lines are cut to
    ``width`` characters around the first match, so one-line JSONL documents still preview.
    """
    # Only the part that was indexed: the rest never matched.
    if isinstance(document, Document):
        text = document.searchable_prefix(MAX_TOKENIZED_CHARS)
    else:
        text = document[:MAX_TOKENIZED_CHARS]
    parts = [p.strip() for p in LINE_BREAK.split(SENTENCE_END.sub("\\1\n", text)) if p.strip()]
    if not parts or lines <= 0:
        return ""
    wanted = set(query_tokens)
    ranked: list[tuple[int, int, int]] = []
    for i, part in enumerate(parts):
        toks = tokenize(part)
        hits = [t for t in toks if t in wanted]
        if hits:
            ranked.append((-len(set(hits)), -len(hits), i))
    chosen = sorted(i for _a, _b, i in sorted(ranked)[:lines]) or list(
        range(min(lines, len(parts)))
    )
    return "\n".join(_window(parts[i], wanted, width) for i in chosen)


def _tokens_at(text: str) -> Iterator[tuple[int, str]]:
    """The tokens of ``text`` (not normalised) and where each starts."""
    for m in WORD_TOKEN.finditer(text):
        at, token = m.start(), m.group()
        if "." not in token:
            yield at, token
            continue
        for part in _split_dots(token):
            yield at, part
            at += len(part) + 1


def _window(line: str, wanted: set[str], width: int) -> str:
    if len(line) <= width:
        return line
    start = 0
    for at, token in _tokens_at(line.lower()):
        if normalize(token) in wanted:
            start = max(0, at - width // 4)
            break
    end = min(len(line), start + width)
    start = max(0, end - width)
    return ("…" if start else "") + line[start:end].strip() + ("…" if end < len(line) else "")


_STOPWORD_TEXT = """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my no nor not now of off on once only or other our ours out over own same she
    should so some such than that the their them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you
    your yours s t don doesn didn isn aren wasn weren won can't"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Function words ignored by :func:`copy_overlap`: sharing them says nothing about copying."""
COPY_NGRAM = 2
MIN_COPY_NGRAMS = 3
COPY_THRESHOLD = 0.7
"""QR110 fires when :func:`copy_overlap` reaches this: 70% of the question's content-word
bigrams appear verbatim in its document. Natural paraphrases reorder and swap words and stay well
below; a question written while reading the document lands near 1.0."""
MAX_COPY_QUESTION_CHARS = 1_000
"""Longer questions are not compared with their documents (QR110 says so instead): a question is
a sentence or two, and each of its words is looked for in each relevant document, so a 149 KB
"question" against a 20 MB document had taken 227 s."""
MAX_COPY_DOCUMENT_CHARS = 100_000
"""A document is compared on its first 100,000 characters (some 15,000 words): with the question's
at most 1,000, one comparison is a few milliseconds whatever the files hold."""
MAX_COPY_DOCUMENTS = 10
"""Relevant documents a question is compared with, in the order they are listed (a question
seldom has more): the work per question stays within ten bounded comparisons."""


def content_ngrams(text: str) -> list[tuple[str, ...]]:
    """The content-word bigrams :func:`copy_overlap` compares (stopwords removed first)."""
    words = [t for t in tokenize(text) if t not in STOPWORDS]
    return [tuple(words[i : i + COPY_NGRAM]) for i in range(len(words) - COPY_NGRAM + 1)]


def copy_overlap(question: str, document_text: str) -> float:
    """How much a question copies its document's wording, from 0.0 to 1.0.

    The fraction of the question's content-word bigrams (tokens as :func:`tokenize` cuts them,
    stopwords removed from both texts first, so "reset *the* password" still matches "reset
    password") that occur verbatim in the document. A question with fewer than
    :data:`MIN_COPY_NGRAMS` bigrams scores 0.0: sharing two or three words is no evidence.
    """
    return ngram_overlap(content_ngrams(question), document_text)


def ngram_overlap(
    grams: Sequence[tuple[str, ...]], document_text: str, at_least: float = 0.0
) -> float:
    """:func:`copy_overlap` of a question's :func:`content_ngrams`, computed once per question.

    Tokenizing the document is the cost (a golden set checks every question against each of its
    documents), and a bigram whose words are not even substrings of the folded document cannot
    occur in it: most pairs are ruled out by that count alone, which is returned when it is below
    ``at_least``. Only the document's first :data:`MAX_COPY_DOCUMENT_CHARS` are compared.
    """
    if len(grams) < MIN_COPY_NGRAMS:
        return 0.0
    document_text = document_text[:MAX_COPY_DOCUMENT_CHARS]
    if at_least > 0.0:
        folded = normalize(document_text)
        found = {w: w in folded for w in {w for g in grams for w in g}}  # each word looked for once
        bound = sum(all(map(found.__getitem__, g)) for g in grams) / len(grams)
        if bound < at_least:
            return bound
    doc_grams = set(content_ngrams(document_text))
    return sum(g in doc_grams for g in grams) / len(grams)
