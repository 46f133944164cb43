"""Judgments per subtopic (aspect, intent) of a query, for the measures of diversity.

TREC's diversity qrels (the Web track's, read by ndeval and by ir_measures through pyndeval) put
the subtopic in the second column, ``qid subtopic docid grade``, where trec_eval's qrels have an
unused iteration. The TREC qrels reader keeps it only for a file that uses it so
(``core/formats/trec_lines.py``); every other file, and every golden set YAML, judges each
question as a whole, which alpha-nDCG reads as one subtopic (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class SubtopicGrades(dict[str, int]):
    """A query's grades (doc id -> grade) judged per subtopic, as diversity qrels judge them.

    The mapping is what every measure reads: each document's highest grade over its subtopics
    (relevant to the query when relevant to any of them, as ndeval reads it); ``subtopics`` is
    doc id -> subtopic -> grade, for the measures of diversity (alpha-nDCG). Two are equal only
    when their subtopics are too, so a score cache never keeps a value made of other subtopics.
    """

    __slots__ = ("subtopics",)

    def __init__(self, subtopics: Mapping[str, Mapping[str, int]]) -> None:
        super().__init__((doc, max(by.values())) for doc, by in subtopics.items())
        self.subtopics = subtopics

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self, other) is True and self.subtopics == subtopics_of(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # (dict has none either)

    def extended(self, docs: Iterable[str], grade: int) -> SubtopicGrades:
        """These grades with ``docs`` judged ``grade`` on every subtopic (the optimistic bound:
        an unjudged document might be relevant to each)."""
        every = {s: grade for by in self.subtopics.values() for s in by}
        return SubtopicGrades({**self.subtopics, **dict.fromkeys(docs, every)})


def subtopics_of(grades: object) -> Mapping[str, Mapping[str, int]] | None:
    """doc id -> subtopic -> grade of a query judged per subtopic; None for one judged whole."""
    return grades.subtopics if isinstance(grades, SubtopicGrades) else None
