"""Each limit that bounds the work on a hostile workspace, at the core: it holds, it says so when
it cuts work short, and ordinary input is read exactly as before.

The same inputs through the real command line, held to 5 s and 1 GB, are in
tests/test_hostile_core.py.
"""

from __future__ import annotations

import os
import random
import stat
import time
from pathlib import Path

import numpy as np
import pytest
from qrels_lsp.core.base.files import describe_mode
from qrels_lsp.core.checks import SUGGESTION_BUDGET, check_golden
from qrels_lsp.core.formats import corpus as corpus_module
from qrels_lsp.core.formats.corpus import MAX_WALKED, Corpus, load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.search.bm25 import build_index
from qrels_lsp.core.search.tokens import (
    MAX_COPY_QUESTION_CHARS,
    MAX_TOKENIZED_CHARS,
    copy_overlap,
    normalize,
    tokenize,
)


def loaded(path: Path) -> Corpus:
    corpus = load_corpus(path)
    assert isinstance(corpus, Corpus), corpus
    return corpus


# -- tokens ------------------------------------------------------------------------------------


def test_normalizing_never_expands_past_the_limit() -> None:
    # U+FDFA is one character whose NFKD is eighteen: 30 MB of it had become 3.6 GB.
    text = "\ufdfa" * 200_000
    assert len(normalize(text)) <= MAX_TOKENIZED_CHARS
    assert len(tokenize(text)) <= MAX_TOKENIZED_CHARS // 4
    assert len(normalize("㌖" * 400_000)) <= MAX_TOKENIZED_CHARS  # ㌖: six kana, six tokens


def test_ordinary_text_tokenizes_as_before() -> None:
    assert tokenize("Café E1042 v2.1, 192.168.0.1 ERR-42 日本 ﷺ") == [
        "cafe",
        "e1042",
        "v2.1",
        "192.168.0.1",
        "err",
        "42",
        "日",
        "本",
        "صلى",
        "الله",
        "عليه",
        "وسلم",
    ]


def test_a_document_past_the_limit_is_indexed_in_part_and_noted(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    long_text = "alpha " * (MAX_TOKENIZED_CHARS // 6) + "omega " * 1000
    path.write_text(
        f'{{"_id": "long", "text": "{long_text}"}}\n{{"_id": "short", "text": "omega"}}\n',
        encoding="utf-8",
    )
    corpus = loaded(path)
    index = build_index(corpus)
    assert index is not None
    assert [d for d, _ in index.top_ids(["omega"], 5)] == ["short"]  # cut before any omega
    assert any("long: longer than 1,000,000 characters" in p for p in corpus.limits)
    assert corpus.partial is None  # every document is there, only one is indexed in part


# -- QR110 -------------------------------------------------------------------------------------


def golden_with(corpus: Path, queries: str) -> str:
    return f"corpus: {corpus}\nqueries:\n{queries}"


def test_a_long_question_is_not_compared_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    words = " ".join(f"w{i}" for i in range(600))
    path.write_text(f'{{"_id": "d", "text": "{words}"}}\n', encoding="utf-8")
    corpus = loaded(path)
    short = " ".join(f"w{i}" for i in range(40))
    assert len(words) > MAX_COPY_QUESTION_CHARS > len(short)
    text = golden_with(
        path,
        f"  long:\n    question: {words}\n    relevant: [d]\n"
        f"  short:\n    question: {short}\n    relevant: [d]\n",
    )
    found = [f for f in check_golden(parse_golden(text), text, corpus) if f.code == "QR110"]
    assert len(found) == 2
    assert (
        f"`long` is {len(words):,} characters" in found[0].message
        and "not compared" in found[0].message
    )
    assert "copies `d`: 100%" in found[1].message


def test_copy_overlap_reads_only_the_start_of_a_document() -> None:
    question = "reset the router by holding the power button for ten seconds"
    assert copy_overlap(question, question) == 1.0
    assert copy_overlap(question, "x " * 60_000 + question) == 0.0  # past the first 100,000


# -- "did you mean" ----------------------------------------------------------------------------


def test_suggestions_stop_at_the_budget_and_the_message_says_so(tmp_path: Path) -> None:
    n_docs = 20_000
    path = tmp_path / "c.jsonl"
    path.write_text(
        "".join(f'{{"_id": "doc-{i:05d}", "text": "x"}}\n' for i in range(n_docs)),
        encoding="utf-8",
    )
    corpus = loaded(path)
    served = SUGGESTION_BUDGET // n_docs  # 250
    ids = [f"dok-{i:05d}" for i in range(served + 50)]
    text = golden_with(path, f"  q:\n    question: which\n    relevant: {ids}\n".replace("'", ""))
    found = [f for f in check_golden(parse_golden(text), text, corpus) if f.code == "QR106"]
    assert len(found) == len(ids)
    assert all("Did you mean `doc-" in f.message and f.fixes for f in found[:served])
    for f in found[served:]:
        assert "Did you mean" not in f.message and not f.fixes
        assert "No similar id was looked for" in f.message and f"first {served:,}" in f.message


# -- the folder walk ---------------------------------------------------------------------------


def old_walk(root: Path) -> list[tuple[str, str, int, int]]:
    """The walk as it was (os.walk, sorted names), the oracle for the bounded one."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if name.startswith(".") or full.suffix.lower() in corpus_module._BINARY_SUFFIXES:
                continue
            try:
                st = full.stat()
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append(
                    (full.relative_to(root).as_posix(), str(full), st.st_size, st.st_mtime_ns)
                )
    return out


@pytest.mark.parametrize("seed", range(5))
def test_the_bounded_walk_finds_what_os_walk_found(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    folders = [tmp_path]
    for i in range(60):
        parent = rng.choice(folders)
        name = rng.choice(["a", "b", ".hidden", "Z", "a.b", "ü", "x y"]) + str(i)
        kind = rng.random()
        if kind < 0.3:
            (parent / name).mkdir()
            folders.append(parent / name)
        elif kind < 0.4:
            os.symlink(rng.choice(folders), parent / name)  # folders by link: never entered
        elif kind < 0.45:
            os.mkfifo(parent / f"{name}.fifo")
        else:
            (parent / f"{name}{rng.choice(['.md', '.txt', '.png', ''])}").write_text(name)
    walk = corpus_module._walk(tmp_path, None)
    assert walk.files == old_walk(tmp_path) and not walk.stopped
    assert all("FIFO" in p for p in walk.problems)
    assert len(walk.problems) == sum(1 for p in tmp_path.rglob("*.fifo") if "/." not in str(p))


def test_the_walk_stops_at_its_limit_and_the_corpus_says_so(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"{i:02d}.md").write_text("x")
    walk = corpus_module._walk(tmp_path, None, limit=10)
    assert walk.stopped and len(walk.files) == 10
    corpus = Corpus(tmp_path, "folder", "")
    corpus_module._walk_note(walk, corpus)
    assert corpus.partial is not None and f"{MAX_WALKED:,} files" in corpus.partial
    assert corpus.limits == [corpus.partial]


def test_deep_nesting_does_not_overflow(tmp_path: Path) -> None:
    deep = tmp_path
    for _ in range(1200):  # deeper than Python's recursion limit; os.walk recursed in 3.11
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.md").write_text("found")
    try:
        corpus = loaded(tmp_path)
        assert corpus.ids == ["d/" * 1200 + "bottom.md"]
    finally:  # pytest's own clean-up (shutil.rmtree) recurses too: take the tree down here
        (deep / "bottom.md").unlink()
        while deep != tmp_path:
            deep.rmdir()
            deep = deep.parent


def test_describe_mode_is_what_a_fifo_is_called(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p")
    assert describe_mode(os.stat(tmp_path / "p")) == "a FIFO"


# -- the BM25 disk cache -----------------------------------------------------------------------


def test_the_cache_evicts_the_least_recently_used_files(tmp_path: Path) -> None:
    from qrels_lsp.core.search.index_cache import _evict

    files = []
    for i in range(5):
        path = tmp_path / f"{i}.npz"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # 0.npz used longest ago
        files.append(path)
    os.utime(files[0], None)  # ...but just used again: it stays
    stale = tmp_path / ".tmp-crashed.npz"
    stale.write_bytes(b"x")
    os.utime(stale, (1_000_000, 1_000_000))
    _evict(tmp_path, keep=files[4], budget=2500)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.npz", "4.npz"]


def test_an_index_too_big_for_the_cache_is_not_written(tmp_path: Path) -> None:
    from qrels_lsp.core.search.index_cache import _write_cache, cache_key

    path = tmp_path / "c.jsonl"
    path.write_text('{"_id": "a", "text": "some words here"}\n', encoding="utf-8")
    corpus = loaded(path)
    index = build_index(corpus)
    assert index is not None
    target = tmp_path / "cache" / "i.npz"
    assert not _write_cache(target, cache_key(corpus), index, limit=100)
    assert not target.exists()
    assert _write_cache(target, cache_key(corpus), index)
    assert target.is_file()


def test_a_cached_index_brings_back_what_building_it_noted(tmp_path: Path) -> None:
    from qrels_lsp.core.search.index_cache import cache_path, load_or_build

    path = tmp_path / "c.jsonl"
    path.write_text(f'{{"_id": "long", "text": "{"word " * 210_000}"}}\n', encoding="utf-8")
    first = loaded(path)
    assert load_or_build(first, tmp_path / "cache") is not None
    assert cache_path(first, tmp_path / "cache").is_file() and len(first.limits) == 1
    again = loaded(path)
    assert load_or_build(again, tmp_path / "cache") is not None
    assert again.limits == first.limits


# -- indexes in memory -------------------------------------------------------------------------


def test_indexes_in_memory_are_the_latest_of_each_corpus_and_few(tmp_path: Path) -> None:
    from qrels_lsp.core.search.indexes import MAX_INDEXES, IndexCache

    cache = IndexCache(tmp_path / "cache")
    path = tmp_path / "c.jsonl"
    path.write_text('{"_id": "a", "text": "first words"}\n', encoding="utf-8")
    before = loaded(path)
    assert cache.build(before) is not None and cache.get(before) is not None
    path.write_text('{"_id": "a", "text": "other words"}\n', encoding="utf-8")
    after = loaded(path)
    assert cache.build(after) is not None
    assert cache.get(before) is None and cache.get(after) is not None  # the old content went
    corpora = []
    for i in range(MAX_INDEXES + 2):
        other = tmp_path / f"c{i}.jsonl"
        other.write_text(f'{{"_id": "a", "text": "words {i}"}}\n', encoding="utf-8")
        corpora.append(loaded(other))
        assert cache.build(corpora[-1]) is not None
    kept = [c for c in [after, *corpora] if cache.get(c) is not None]
    assert kept == corpora[-MAX_INDEXES:]


# -- the index build ---------------------------------------------------------------------------


def test_postings_placed_chunk_by_chunk_equal_one_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """The build places postings a chunk at a time (memory); with chunks of a few postings the
    arrays are exactly those of one chunk, which test_bm25 holds to rank_bm25's scores."""
    from qrels_lsp.core.search import bm25

    rng = random.Random(3)
    words = [f"w{i}" for i in range(300)]
    docs = [[rng.choice(words) for _ in range(rng.randint(0, 40))] for _ in range(500)]
    ids = [f"d{i}" for i in range(len(docs))]
    whole = bm25.BM25Index.from_tokens(ids, docs)
    monkeypatch.setattr(bm25, "_FLUSH", 7)
    chunked = bm25.BM25Index.from_tokens(ids, docs)
    assert whole is not None and chunked is not None
    assert chunked.vocab == whole.vocab
    for name in ("idf", "offsets", "post_docs", "post_tf", "doc_len"):
        assert np.array_equal(getattr(chunked, name), getattr(whole, name)), name


def test_the_vocabulary_stops_at_its_limit_and_says_so() -> None:
    from qrels_lsp.core.search import bm25

    docs = [["a", "b"], ["c", "a", "d"], ["e", "b"]]
    notes: list[str] = []
    index = bm25._build(["x", "y", "z"], docs, None, None, None, notes, max_terms=3)
    assert index is not None and list(index.vocab) == ["a", "b", "c", "d"]  # full after y
    assert [d for d, _ in index.top_ids(["e"], 3)] == [] and index.top_ids(["b"], 3)
    assert notes == [
        "the BM25 index reached 3 distinct terms (its limit); "
        "terms first seen after that are not indexed"
    ]
    assert list(index.doc_len) == [2, 3, 2]  # lengths still count every token


def test_completion_on_a_line_of_a_million_blanks_is_linear() -> None:
    """yamlcontext's end of a block value: a run of blanks with no `#` after it used to be tried
    from every blank (a 1M-character line hung completion)."""
    from qrels_lsp.core.formats.yaml.context import _strip_value

    value = "a" + " " * 1_000_000 + "b"
    began = time.monotonic()
    assert _strip_value(value) == value
    assert time.monotonic() - began < 5.0  # the robustness bound; quadratic took minutes
    assert _strip_value("x  # c") == "x"  # a comment still ends the value


def test_a_missing_key_is_located_in_linear_time(tmp_path: Path) -> None:
    from qrels_lsp.core.project.config import load_config

    (tmp_path / "qrels-lsp.toml").write_text("\n" * 20_000 + "k = 'x'\n")
    began = time.monotonic()
    config = load_config(tmp_path)
    assert time.monotonic() - began < 5.0  # the robustness bound; quadratic took minutes
    assert config.findings and config.findings[0].span.start == 20_000
