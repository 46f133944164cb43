"""BEIR's dataset layout: ``<dataset>/corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

A qrels file in that layout needs no configuration: its corpus and its questions are beside its
folder. This module only finds them; reading them is the corpus and topics readers' job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CORPUS_NAMES = ("corpus.jsonl",)
QUERIES_NAMES = ("queries.jsonl", "queries.tsv")


@dataclass(frozen=True, slots=True)
class BeirDataset:
    folder: Path
    corpus: Path | None
    queries: Path | None


def beir_dataset(qrels: Path, allowed: Callable[[Path], bool]) -> BeirDataset | None:
    """The dataset a ``qrels/<split>.tsv`` belongs to, if its folder holds a corpus or queries.

    ``allowed`` is the workspace boundary: nothing it refuses is even looked at."""
    if qrels.parent.name.lower() != "qrels" or not qrels.name.lower().endswith(".tsv"):
        return None
    folder = qrels.parent.parent
    if not allowed(folder):
        return None
    corpus = _first_file(folder, CORPUS_NAMES, allowed)
    queries = _first_file(folder, QUERIES_NAMES, allowed)
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
