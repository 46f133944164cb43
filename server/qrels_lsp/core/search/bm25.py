"""BM25 over the corpus: ranking completion candidates, snippets, and the copied-question check.

Scores are rank_bm25's ``BM25Okapi`` scores, bit for bit: the same k1, b, epsilon, the same idf
(``log(N - df + 0.5) - log(df + 0.5)``, with negative values floored to ``epsilon * mean idf``)
and the same floating point operations in the same order. Only the evaluation differs: an
inverted index (term -> doc indices and term frequencies) means a query touches only the
documents that contain one of its terms, instead of looping over every document per term.

Tokenizer (:func:`tokenize`, versioned by :data:`TOKENIZER_VERSION`):

- Text is NFKD-normalised, case-folded, stripped of Latin/Greek/Cyrillic diacritics
  (U+0300-U+036F) and NFC-recomposed: ``Café`` and ``cafe`` are the same token, because people
  typing questions drop accents; full-width and compatibility forms fold too (``Ｅ１`` -> ``e1``).
- A token is a run of word characters (``\\w``: letters, digits, underscore), so codes stay whole:
  ``E1042`` -> ``e1042``, ``snake_case`` -> ``snake_case``.
- A dot between two digits joins: ``v2.1``, ``3.14``, ``192.168.0.1`` are one token each, so
  versions do not collapse into ``2`` and ``1``; a dot elsewhere splits (``e.g.`` -> ``e``, ``g``).
- A hyphen always splits: ``ERR-42`` -> ``err``, ``42``; ``state-of-the-art`` -> four tokens. A
  query for ``ERR-42`` still matches a document saying ``ERR-42`` or ``ERR 42`` (both split the
  same way); ``ERR42`` is another token. Guessing which hyphens belong to a code would make
  ``COVID-19`` and ``covid 19`` disagree.
- Apostrophes split (``can't`` -> ``can``, ``t``). Punctuation and symbols are dropped.
- Each CJK ideograph and each kana is a token of its own, so Chinese and Japanese text is
  searchable without a word segmenter (unigram matching; Hangul words, which are
  space-separated, stay whole).

- Only a text's first :data:`~.tokens.MAX_TOKENIZED_CHARS` (1,000,000) characters are
  tokenized, cut before and after normalising, so no text expands without bound; a document cut
  so, and a vocabulary that reached :data:`MAX_VOCABULARY`, are noted on the corpus.

Top-k ties are broken by document index (corpus order), ascending.

Indexes are kept on disk between sessions by :mod:`.index_cache`.
"""

from __future__ import annotations

import math
from collections import defaultdict

try:  # the C loop behind Counter(), without Counter's per-call Python overhead
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping: dict[str, int], iterable: Iterable[str]) -> None:
        for elem in iterable:
            mapping[elem] = mapping.get(elem, 0) + 1


from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..formats.corpus import Corpus
from .tokens import MAX_TOKENIZED_CHARS, tokenize

INDEX_FORMAT_VERSION = 2  # 2: notes in the meta
K1, B, EPSILON = 1.5, 0.75, 0.25  # rank_bm25.BM25Okapi's defaults

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]

# ---------------------------------------------------------------------------------------------
# The index


@dataclass(slots=True, eq=False)
class BM25Index:
    """An inverted index with BM25Okapi's statistics.

    Postings of term ``t`` are ``post_docs[offsets[t]:offsets[t+1]]`` (doc indices, ascending)
    and ``post_tf[...]`` (term frequencies). ``doc_ids[i]`` is the corpus id of doc index ``i``.
    """

    doc_ids: list[str]
    vocab: dict[str, int]
    idf: FloatArray
    offsets: IntArray
    post_docs: npt.NDArray[np.int32]
    post_tf: npt.NDArray[np.int32]
    doc_len: IntArray
    k1: float = K1
    b: float = B
    epsilon: float = EPSILON
    _norm: FloatArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._norm = _length_norm(self.doc_len, self.k1, self.b)

    def __len__(self) -> int:
        return len(self.doc_ids)

    @property
    def avgdl(self) -> float:
        n = len(self.doc_len)
        return int(self.doc_len.sum()) / n if n else 0.0

    @classmethod
    def from_tokens(
        cls,
        doc_ids: Sequence[str],
        docs: Iterable[Sequence[str]],
        *,
        progress: Progress | None = None,
        cancel: Cancel | None = None,
        total: int | None = None,
    ) -> BM25Index | None:
        """Index already tokenized documents; None if ``cancel`` said so."""
        return _build(list(doc_ids), docs, progress, cancel, total)

    def scores(self, query_tokens: Sequence[str]) -> FloatArray:
        """Every document's score, equal to ``BM25Okapi.get_scores(query_tokens)``."""
        scores, _touched = self._accumulate(query_tokens)
        return scores

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best (doc index, score) pairs among documents holding a query term.

        Sorted by score descending, then doc index ascending. Documents without any query term
        (score 0 in get_scores) are never returned, so fewer than ``k`` pairs may come back.
        """
        if k <= 0:
            return []
        scores, touched = self._accumulate(query_tokens)
        if touched is None or len(touched) == 0:
            return []
        cand_scores = scores[touched]
        if len(touched) > k:
            threshold = -np.partition(-cand_scores, k - 1)[k - 1]
            keep = cand_scores >= threshold  # ties at the threshold all stay, then doc order
            touched, cand_scores = touched[keep], cand_scores[keep]
        order = np.lexsort((touched, -cand_scores))[:k]
        return [(int(touched[i]), float(cand_scores[i])) for i in order]

    def top_ids(self, query_tokens: Sequence[str], k: int) -> list[tuple[str, float]]:
        return [(self.doc_ids[i], s) for i, s in self.top_k(query_tokens, k)]

    def _accumulate(
        self, query_tokens: Sequence[str]
    ) -> tuple[FloatArray, npt.NDArray[np.intp] | None]:
        """Scores plus the indices of the documents that hold a query term.

        Mirrors get_scores' arithmetic: for each query token in order (repeats included),
        ``score += idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))``. Documents
        lacking the term would add exactly 0.0 there, so skipping them changes no bit.
        """
        n = len(self.doc_ids)
        scores = np.zeros(n)
        terms = [t for t in (self.vocab.get(q) for q in query_tokens) if t is not None]
        if not terms:
            return scores, None
        k1p1 = self.k1 + 1
        touched = np.zeros(n, dtype=bool) if len(set(terms)) > 1 else None
        for t in terms:
            lo, hi = int(self.offsets[t]), int(self.offsets[t + 1])
            docs = self.post_docs[lo:hi]
            tf = self.post_tf[lo:hi]
            scores[docs] += self.idf[t] * (tf * k1p1 / (tf + self._norm[docs]))
            if touched is not None:
                touched[docs] = True
        if touched is None:
            t = terms[0]
            lo, hi = int(self.offsets[t]), int(self.offsets[t + 1])
            return scores, self.post_docs[lo:hi].astype(np.intp)
        return scores, np.flatnonzero(touched)


def _length_norm(doc_len: IntArray, k1: float, b: float) -> FloatArray:
    """``k1 * (1 - b + b * dl / avgdl)`` per document, evaluated as rank_bm25 evaluates it."""
    n = len(doc_len)
    total = int(doc_len.sum())
    if n == 0 or total == 0:
        return np.ones(n)  # no terms at all: nothing is ever scored
    avgdl = total / n
    return np.asarray(k1 * (1 - b + b * doc_len / avgdl), dtype=np.float64)


_TICK = 8
"""Documents between yield points (and progress reports): about a millisecond of a build, the
longest a keystroke waits for it to step aside (``lsp/gate.py``)."""


MAX_VOCABULARY = 2_000_000
"""Distinct terms an index holds (each costs some 120 bytes while building). Once reached, terms
not yet seen are left out of the index, with a problem noted: 100 MiB of distinct tokens had
taken 3.6 GB. Ordinary corpora stay far below (a 100 MiB corpus of English has well under a
million), so their scores are unchanged."""
_FLUSH = 1 << 16
"""Postings held as Python ints before they move to numpy (a Python int costs 9x an int32); a
few milliseconds to convert, in one call that no yield point can interrupt."""


def _build(
    doc_ids: list[str],
    docs: Iterable[Sequence[str]],
    progress: Progress | None,
    cancel: Cancel | None,
    total: int | None,
    notes: list[str] | None = None,
    max_terms: int = MAX_VOCABULARY,
) -> BM25Index | None:
    """Count terms per document in one pass, then sort postings with numpy.

    ``vocab`` hands out ids in order of first occurrence (the order of rank_bm25's ``nd``
    dictionary, so the mean idf is summed in the same order), through a defaultdict whose
    factory is its own ``__len__``: mapping a document's distinct terms to ids stays in C.
    Past ``max_terms`` distinct terms, new ones are dropped (said in ``notes``).
    """
    total = len(doc_ids) if total is None else total
    vocab: defaultdict[str, int] = defaultdict()
    vocab.default_factory = vocab.__len__
    get = vocab.__getitem__
    chunks: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]] = []
    term_ids: list[int] = []
    tfs: list[int] = []
    lens: list[int] = []
    distinct: list[int] = []
    ends: list[int] = []  # the documents each chunk of postings ends before
    dropped = False
    for i, toks in enumerate(docs):
        if i % _TICK == 0:
            if cancel is not None and cancel():
                return None
            if progress is not None:
                progress(i, total)
        counts: dict[str, int] = {}
        _count_elements(counts, toks)
        if len(vocab) < max_terms:
            term_ids.extend(map(get, counts))
            tfs.extend(counts.values())
            distinct.append(len(counts))
        else:  # the vocabulary is full: only terms it holds are counted
            kept = [t for t in counts if t in vocab]
            dropped = dropped or len(kept) < len(counts)
            term_ids.extend(map(get, kept))
            tfs.extend(map(counts.__getitem__, kept))
            distinct.append(len(kept))
        lens.append(len(toks))
        if len(term_ids) >= _FLUSH:
            chunks.append((np.array(term_ids, np.int32), np.array(tfs, np.int32)))
            ends.append(len(lens))
            term_ids, tfs = [], []
    chunks.append((np.array(term_ids, np.int32), np.array(tfs, np.int32)))
    ends.append(len(lens))
    del term_ids, tfs
    if dropped and notes is not None:
        notes.append(
            f"the BM25 index reached {max_terms:,} distinct terms (its limit); "
            "terms first seen after that are not indexed"
        )
    vocab.default_factory = None  # a plain mapping from here on (no copy of millions of keys)
    n = len(lens)
    if n != len(doc_ids):
        raise ValueError(f"{len(doc_ids)} ids for {n} documents")
    df = np.zeros(len(vocab), dtype=np.int64)
    for chunk_terms, _tf in chunks:
        df += np.bincount(chunk_terms, minlength=len(vocab))
    placed = _postings(chunks, ends, distinct, df, cancel)
    if placed is None:
        return None
    post_docs, post_tf = placed
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=offsets[1:])
    doc_len = np.array(lens, dtype=np.int64)
    if progress is not None:
        progress(total, total)
    return BM25Index(
        doc_ids=doc_ids,
        vocab=vocab,
        idf=_idf(df, n, EPSILON),
        offsets=offsets,
        post_docs=post_docs,
        post_tf=post_tf,
        doc_len=doc_len,
    )


def _postings(
    chunks: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]],
    ends: list[int],
    distinct: list[int],
    df: IntArray,
    cancel: Cancel | None = None,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]] | None:
    """Postings grouped by term, each term's in document order: chunk by chunk (documents in
    order), each chunk's postings sorted by term and written after those of earlier chunks;
    ``cancel`` is asked before each chunk (a few milliseconds each); None if it said so.

    One sort of every posting at once held some 22 bytes a posting (terms, frequencies, int64
    order, document of each); here it is the two results and what is left of the chunks, each
    let go once placed: 100 MiB of short repeated terms (35 million postings) had taken 1 GB.
    """
    total = int(df.sum())
    post_docs = np.empty(total, dtype=np.int32)
    post_tf = np.empty(total, dtype=np.int32)
    cursor = np.zeros(len(df), dtype=np.int64)
    np.cumsum(df[:-1], out=cursor[1:])
    counts = np.array(distinct, dtype=np.int64)
    first = 0
    chunks.reverse()  # popped from the end, so each chunk is freed once placed
    for end in ends:
        if cancel is not None and cancel():
            return None
        terms, tfs = chunks.pop()
        docs = np.repeat(np.arange(first, end, dtype=np.int32), counts[first:end])
        first = end
        if len(terms) == 0:
            continue
        order = np.argsort(terms, kind="stable")
        sorted_terms = terms[order]
        starts = np.flatnonzero(np.r_[True, sorted_terms[1:] != sorted_terms[:-1]])
        sizes = np.diff(np.r_[starts, len(sorted_terms)])
        rank = np.arange(len(sorted_terms)) - np.repeat(starts, sizes)
        where = cursor[sorted_terms] + rank
        post_docs[where] = docs[order]
        post_tf[where] = tfs[order]
        cursor[sorted_terms[starts]] += sizes
    return post_docs, post_tf


def _idf(df: IntArray, n: int, epsilon: float) -> FloatArray:
    """BM25Okapi._calc_idf with math.log and a left-to-right sum, so every bit matches."""
    if len(df) == 0:
        return np.zeros(0)
    values = df.tolist()
    log = math.log
    by_df = {f: log(n - f + 0.5) - log(f + 0.5) for f in set(values)}
    idf = [by_df[f] for f in values]
    idf_sum = 0.0
    for v in idf:
        idf_sum += v
    eps = epsilon * (idf_sum / len(idf))
    out = np.array(idf, dtype=np.float64)
    out[out < 0] = eps
    return out


def build_index(
    corpus: Corpus,
    *,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> BM25Index | None:
    """Index every document's title and text (the first :data:`MAX_TOKENIZED_CHARS` of each,
    with a problem noted on the corpus for each longer one); None if cancelled."""
    ids = list(corpus.ids)
    docs = (tokenize(_text_of(corpus, doc_id)) for doc_id in ids)
    notes: list[str] = []
    index = _build(ids, docs, progress, cancel, len(ids), notes)
    for note in notes:
        corpus.note_limit(note)
    return index


def _text_of(corpus: Corpus, doc_id: str) -> str:
    """What is indexed of a document: at most one character more than is tokenized, which
    tells a document that was cut (noted on the corpus) from one that fits exactly."""
    doc = corpus.peek(doc_id)
    if doc is None:
        return ""
    text = doc.searchable_prefix(MAX_TOKENIZED_CHARS + 1)
    if len(text) > MAX_TOKENIZED_CHARS:
        corpus.note_limit(
            f"{doc_id}: longer than {MAX_TOKENIZED_CHARS:,} characters; only the first "
            f"{MAX_TOKENIZED_CHARS:,} are indexed for BM25"
        )
    return text
