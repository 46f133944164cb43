"""BM25: identical to rank_bm25's BM25Okapi, the tokenizer's rules, the disk cache, snippets."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import TEST_DATA, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.formats.corpus import Corpus, Document, load_corpus
from qrels_lsp.core.search import index_cache
from qrels_lsp.core.search.bm25 import BM25Index, build_index
from qrels_lsp.core.search.index_cache import cache_path, load_or_build
from qrels_lsp.core.search.tokens import (
    COPY_THRESHOLD,
    content_ngrams,
    copy_overlap,
    ngram_overlap,
    snippet,
    tokenize,
)
from rank_bm25 import BM25Okapi

VASWANI = TEST_DATA / "vaswani"


def load(path: Path) -> Corpus:
    corpus = load_corpus(path)
    assert isinstance(corpus, Corpus), corpus
    return corpus


def expected_top(scores: np.ndarray, k: int) -> list[int]:
    """get_scores' documents with a query term, by score descending then index ascending."""
    return [int(i) for i in np.lexsort((np.arange(len(scores)), -scores))[:k]]


# -- equality with rank_bm25 --------------------------------------------------------------------


@pytest.fixture(scope="module")
def vaswani() -> tuple[BM25Index, list[list[str]], list[np.ndarray]]:
    """The index, the 93 topics' tokens and get_scores for each (computed once: ~4 s)."""
    corpus = load(VASWANI / "corpus" / "doc-text.trec")
    docs = [tokenize(d.searchable_text) for d in corpus.documents()]
    index = BM25Index.from_tokens(corpus.ids, docs)
    assert index is not None
    topics = (VASWANI / "query-text.trec").read_text()
    queries = [tokenize(t) for t in re.findall(r"<title>(.*?)</title>", topics, re.S)]
    assert len(queries) == 93
    okapi = BM25Okapi(docs)
    return index, queries, [okapi.get_scores(q) for q in queries]


@pytest.mark.slow
def test_vaswani_scores_equal_get_scores(vaswani: tuple) -> None:  # type: ignore[type-arg]
    index, queries, expected = vaswani
    for q, theirs in zip(queries, expected, strict=True):
        ours = index.scores(q)
        assert np.abs(ours - theirs).max() <= 1e-9
        assert np.array_equal(ours, theirs)  # in fact bit-identical: same operations, same order


@pytest.mark.slow
def test_vaswani_top_k_equals_sorted_get_scores(vaswani: tuple) -> None:  # type: ignore[type-arg]
    index, queries, expected = vaswani
    for q, theirs in zip(queries, expected, strict=True):
        top = index.top_k(q, 100)
        assert [i for i, _ in top] == expected_top(theirs, 100)
        assert [s for _, s in top] == [theirs[i] for i, _ in top]


@pytest.mark.slow
def test_statistics_match() -> None:
    corpus = load(VASWANI / "corpus" / "doc-text.trec")
    docs = [tokenize(d.searchable_text) for d in corpus.documents()]
    index, okapi = BM25Index.from_tokens(corpus.ids, docs), BM25Okapi(docs)
    assert index is not None
    assert index.avgdl == okapi.avgdl
    assert len(index.vocab) == len(okapi.idf)
    assert all(index.idf[index.vocab[t]] == v for t, v in okapi.idf.items())


def test_repeated_and_unknown_query_terms() -> None:
    docs = [["a", "b", "a"], ["b", "c"], ["c", "c", "d"], ["e"]]
    index = BM25Index.from_tokens(["0", "1", "2", "3"], docs)
    okapi = BM25Okapi(docs)
    assert index is not None
    for q in (["a", "a"], ["b", "zzz", "b", "c"], ["zzz"], [], ["e", "a", "e"]):
        assert np.array_equal(index.scores(q), okapi.get_scores(q))


def test_negative_idf_is_floored_like_rank_bm25() -> None:
    docs = [["common", "x"], ["common", "y"], ["common"], ["z"]]
    index = BM25Index.from_tokens(list("abcd"), docs)
    assert index is not None
    okapi = BM25Okapi(docs)
    assert (
        index.idf[index.vocab["common"]] == okapi.idf["common"] == okapi.epsilon * okapi.average_idf
    )
    assert np.array_equal(index.scores(["common", "z"]), okapi.get_scores(["common", "z"]))


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=12), min_size=1, max_size=25),
    st.lists(st.sampled_from("abcdefghij"), max_size=6),
    st.integers(1, 30),
)
def test_random_corpora_match(docs: list[list[str]], query: list[str], k: int) -> None:
    if not any(docs):  # rank_bm25 divides by zero on a corpus with no terms
        return
    index = BM25Index.from_tokens([str(i) for i in range(len(docs))], docs)
    assert index is not None
    theirs = BM25Okapi(docs).get_scores(query)
    assert np.array_equal(index.scores(query), theirs)
    holding = {i for i, d in enumerate(docs) if set(d) & set(query)}
    want = [i for i in expected_top(theirs, len(docs)) if i in holding][:k]
    assert [i for i, _ in index.top_k(query, k)] == want


def test_ties_broken_by_doc_index() -> None:
    docs = [["x", "y"], ["x", "q"], ["y", "x"], ["p"], ["x", "y"]]
    index = BM25Index.from_tokens(list("abcde"), docs)
    assert index is not None
    assert [i for i, _ in index.top_k(["x", "y"], 2)] == [0, 2]
    assert [i for i, _ in index.top_k(["x", "y"], 10)] == [0, 2, 4, 1]
    assert index.top_ids(["p"], 5) == [("d", float(index.scores(["p"])[3]))]
    assert index.top_k(["nothing"], 5) == [] and index.top_k(["x"], 0) == []


def test_empty_corpus_and_empty_documents() -> None:
    empty = BM25Index.from_tokens([], [])
    assert empty is not None and empty.top_k(["a"], 3) == [] and len(empty.scores(["a"])) == 0
    blank = BM25Index.from_tokens(["a", "b"], [[], []])
    assert blank is not None and blank.top_k(["a"], 3) == []


def test_build_progress_and_cancel(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        "".join(f'{{"_id": "d{i}", "text": "word{i % 7} common"}}\n' for i in range(3000))
    )
    corpus = load(path)
    seen: list[tuple[int, int]] = []
    index = build_index(corpus, progress=lambda d, t: seen.append((d, t)))
    assert index is not None and seen[-1] == (3000, 3000) and len(seen) >= 3
    assert build_index(corpus, cancel=lambda: True) is None


# -- tokenizer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("What does error E1042 mean?", ["what", "does", "error", "e1042", "mean"]),
        ("ERR-42 after v2.1 (3.14, 1,000)", ["err", "42", "after", "v2.1", "3.14", "1", "000"]),
        ("IP 192.168.0.1. End.", ["ip", "192.168.0.1", "end"]),
        ("e.g. version.5 snake_case", ["e", "g", "version", "5", "snake_case"]),
        ("Café NAÏVE résumé Straße", ["cafe", "naive", "resume", "strasse"]),
        ("Cafe\u0301", ["cafe"]),  # decomposed accent folds the same way
        ("Ｅ１０４２ ＡＢＣ", ["e1042", "abc"]),  # full width folds (NFKD)
        ("密码重置失败", ["密", "码", "重", "置", "失", "败"]),
        ("パスワードをリセット", ["パ", "ス", "ワ", "ー", "ド", "を", "リ", "セ", "ッ", "ト"]),
        ("ログイン・エラー", ["ロ", "グ", "イ", "ン", "エ", "ラ", "ー"]),
        ("错误E1042代码", ["错", "误", "e1042", "代", "码"]),
        ("비밀번호 재설정", ["비밀번호", "재설정"]),
        ("Ошибка входа ΣΊΣΥΦΟΣ", ["ошибка", "входа", "σισυφοσ"]),
        ("can't — don't!", ["can", "t", "don", "t"]),
        ("", []),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_tokenizer_version_is_part_of_the_cache_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text("x")
    corpus = load(tmp_path)
    before = cache_path(corpus, tmp_path)
    monkeypatch.setattr(index_cache, "TOKENIZER_VERSION", index_cache.TOKENIZER_VERSION + 1)
    assert cache_path(corpus, tmp_path) != before


# -- disk cache --------------------------------------------------------------------------------


def make_folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "auth.md").write_text("# Login\nReset your password to log in again.\n")
    (docs / "errors.md").write_text("# Errors\nE1042 means a firmware mismatch.\n")
    (docs / "ship.md").write_text("# Shipping\nWe ship to Europe and the US.\n")
    return docs


def test_cache_roundtrip(tmp_path: Path) -> None:
    corpus = load(make_folder(tmp_path))
    cache = tmp_path / "cache"
    built = load_or_build(corpus, cache)
    assert built is not None and cache_path(corpus, cache).is_file()
    cached = index_cache._read_cache(
        cache_path(corpus, cache), index_cache.cache_key(corpus), corpus.ids
    )
    assert cached is not None
    assert cached.vocab == built.vocab
    for name in ("idf", "offsets", "post_docs", "post_tf", "doc_len"):
        assert np.array_equal(getattr(cached, name), getattr(built, name))
    again = load_or_build(corpus, cache)
    assert again is not None and again.top_ids(["e1042"], 3)[0][0] == "errors.md"


def test_cache_invalidated_when_a_corpus_file_changes(tmp_path: Path) -> None:
    docs = make_folder(tmp_path)
    cache = tmp_path / "cache"
    first = load(docs)
    index = load_or_build(first, cache)
    assert index is not None and index.top_k(["mars"], 3) == []
    (docs / "ship.md").write_text("# Shipping\nWe ship to Mars now, and to Europe.\n")
    second = load(docs)
    assert cache_path(second, cache) != cache_path(first, cache)
    index = load_or_build(second, cache)
    assert index is not None and index.top_ids(["mars"], 3)[0][0] == "ship.md"


def test_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    corpus = load(make_folder(tmp_path))
    cache = tmp_path / "cache"
    path = cache_path(corpus, cache)
    path.parent.mkdir(parents=True)
    for garbage in (b"", b"not a zip", b"PK\x03\x04" + os.urandom(200)):
        path.write_bytes(garbage)
        index = load_or_build(corpus, cache)
        assert index is not None and index.top_ids(["firmware"], 1)[0][0] == "errors.md"
    # A well-formed file with inconsistent arrays (postings out of range) is rejected too.
    good = load_or_build(corpus, cache)
    assert good is not None
    good.post_docs = good.post_docs + 100
    index_cache._write_cache(path, index_cache.cache_key(corpus), good)
    assert index_cache._read_cache(path, index_cache.cache_key(corpus), corpus.ids) is None
    index = load_or_build(corpus, cache)
    assert index is not None and index.top_ids(["firmware"], 1)[0][0] == "errors.md"


def test_unwritable_cache_dir_still_builds(tmp_path: Path) -> None:
    corpus = load(make_folder(tmp_path))
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    assert load_or_build(corpus, blocker) is not None


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert index_cache.default_cache_dir() == tmp_path / "qrels-lsp"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert index_cache.default_cache_dir() == Path.home() / ".cache" / "qrels-lsp"


# -- snippets and copied questions --------------------------------------------------------------


def test_snippet_prefers_lines_with_most_query_terms() -> None:
    doc = Document(
        "kb/a.md",
        "Firmware",
        "# Firmware\nUpdating is easy.\nError E1042 means the firmware is too old.\n"
        "Contact support.\nThe firmware page lists versions.",
        Path("kb/a.md"),
        title_in_text=True,
    )
    # Two distinct terms first; then, among one-term lines, the earliest (the heading).
    assert snippet(doc, tokenize("E1042 firmware"), lines=2) == (
        "# Firmware\nError E1042 means the firmware is too old."
    )
    assert snippet(doc, tokenize("E1042"), lines=2) == "Error E1042 means the firmware is too old."
    assert snippet(doc, ["nothing"], lines=1) == "# Firmware"


def test_snippet_windows_long_lines() -> None:
    text = "word " * 200 + "the target sentence is here " + "more " * 200
    out = snippet(text, ["target"], lines=1, width=80)
    assert "target" in out and len(out) <= 82 and out.startswith("…") and out.endswith("…")


def test_copy_overlap() -> None:
    doc = (
        "To configure the SAML single sign-on provider, open the admin console and choose "
        "Security. Error E1042 means the firmware is too old."
    )
    copied = "How do I configure the SAML single sign-on provider in the admin console?"
    natural = "Our company login through Okta does not work, what should I set up?"
    assert copy_overlap(copied, doc) >= COPY_THRESHOLD
    assert copy_overlap(natural, doc) < COPY_THRESHOLD
    assert copy_overlap("What is E1042?", doc) == 0.0  # too short to judge
    assert copy_overlap("", doc) == 0.0
    assert 0.0 <= copy_overlap("firmware too old means error e1042 firmware", doc) <= 1.0


@pytest.mark.slow
def test_copy_overlap_bound_never_hides_a_copy() -> None:
    """With ``at_least`` the substring bound of ngram_overlap may stand in for the value only below the threshold:
    every question of the demo and every sentence of its documents, against every document."""
    from conftest import EXAMPLES
    from qrels_lsp.core.formats.golden import parse_golden

    corpus = load_corpus(EXAMPLES / "corpus")
    assert isinstance(corpus, Corpus)
    texts = [d.searchable_text for d in corpus.documents()]
    golden = parse_golden((EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8"))
    questions = [q.question for q in golden.queries.values() if q.question]
    questions += [s for t in texts for s in re.split(r"(?<=[.!?])\s+", t) if len(s) > 30]
    fired = 0
    for question in questions:
        for text in texts:
            exact = copy_overlap(question, text)
            fast = ngram_overlap(content_ngrams(question), text, at_least=COPY_THRESHOLD)
            if exact >= COPY_THRESHOLD:
                fired += 1
                assert fast == exact
            else:
                assert exact <= fast < COPY_THRESHOLD or fast == exact
    assert fired > 0  # the copied sentences are found, so the comparison is not vacuous
