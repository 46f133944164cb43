"""trec_eval's ``-M`` and ``-J``: what of each ranking is evaluated.

``-M N`` (``Max_retrieved_per_topic``) evaluates only the first N documents of each ranking, in
trec_eval's order; ``-J`` (``Judged_docs_only``) removes every document the judgments do not
judge with a grade of 0 or more (unjudged ones and negative grades, which trec_eval marks
"in the pool, not judged"), and the rest close up, keeping their order. trec_eval cuts first,
then removes (form_res_rels.c), and so does :meth:`RunCut.apply`. The cut is made once here, on
the rankings every evaluation is given (a run read whole or streamed, the BM25 baseline, a fused
run after its fusion), so every measure sees the same ranking trec_eval evaluates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

Rankings = Mapping[str, Sequence[str]]
Grades = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class RunCut:
    depth: int | None = None  # -M: the first ``depth`` documents of each ranking
    judged_only: bool = False  # -J: documents judged 0 or more only

    def apply(self, rankings: Rankings, grades: Grades) -> dict[str, list[str]]:
        """Each ranking as trec_eval evaluates it under ``-M`` and ``-J``."""
        return {
            qid: self.ranking(ranking, grades.get(qid, {})) for qid, ranking in rankings.items()
        }

    def ranking(self, ranking: Sequence[str], grades: Mapping[str, int]) -> list[str]:
        docs = list(ranking[: self.depth] if self.depth is not None else ranking)
        if self.judged_only:
            docs = [d for d in docs if grades.get(d, -1) >= 0]
        return docs

    def stream(self, parts: Iterable[Rankings], grades: Grades) -> Iterator[dict[str, list[str]]]:
        """:meth:`apply` to a run read a part at a time (a streamed run)."""
        for part in parts:
            yield self.apply(part, grades)
