"""BEIR's dataset layout: ``<dataset>/corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``,
and the Hugging Face (MTEB) form of it in Parquet: ``qrels/<split>.parquet`` beside
``corpus.parquet`` and ``queries.parquet``, or beside folders ``corpus/`` and ``queries/`` of
Parquet files (``corpus/corpus-00000-of-00001.parquet``).

A qrels file in that layout needs no configuration: its corpus and its questions are beside its
folder. This module only finds them; reading them is the corpus and topics readers' job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CORPUS_NAMES = ("corpus.jsonl", "corpus.parquet")
QUERIES_NAMES = ("queries.jsonl", "queries.tsv", "queries.parquet")
QRELS_SUFFIXES = (".tsv", ".parquet")


@dataclass(frozen=True, slots=True)
class BeirDataset:
    folder: Path
    corpus: Path | None
    queries: Path | None


def beir_dataset(qrels: Path, allowed: Callable[[Path], bool]) -> BeirDataset | None:
    """The dataset a ``qrels/<split>.tsv`` belongs to, if its folder holds a corpus or queries.

    ``allowed`` is the workspace boundary: nothing it refuses is even looked at."""
    if qrels.parent.name.lower() != "qrels" or not qrels.name.lower().endswith(QRELS_SUFFIXES):
        return None
    folder = qrels.parent.parent
    if not allowed(folder):
        return None
    corpus = _first_file(folder, CORPUS_NAMES, allowed) or _parquet_folder(
        folder / "corpus", allowed
    )
    queries = _first_file(folder, QUERIES_NAMES, allowed) or _first_parquet(
        folder / "queries", allowed
    )
    if corpus is None and queries is None:
        return None
    return BeirDataset(folder, corpus, queries)


def _first_file(
    folder: Path, names: tuple[str, ...], allowed: Callable[[Path], bool]
) -> Path | None:
    for name in names:
        candidate = folder / name
        try:
            if allowed(candidate) and candidate.is_file():
                return candidate
        except OSError:
            continue
    return None


def _parquet_files(folder: Path, allowed: Callable[[Path], bool]) -> list[Path]:
    try:
        if not allowed(folder) or not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if p.name.lower().endswith(".parquet"))
    except OSError:
        return []


def _parquet_folder(folder: Path, allowed: Callable[[Path], bool]) -> Path | None:
    """A folder of Parquet files (a corpus in shards: the corpus reader reads them all)."""
    return folder if _parquet_files(folder, allowed) else None


def _first_parquet(folder: Path, allowed: Callable[[Path], bool]) -> Path | None:
    """The questions' Parquet file in a folder (one split of queries: the first by name)."""
    found = _parquet_files(folder, allowed)
    return found[0] if found else None
