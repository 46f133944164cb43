"""BM25 indexes of the corpora open files use, built once each on the background thread.

The baseline lenses and completion need a corpus's index. Building it takes seconds on a large
corpus, so it runs as a long job that gives way to keystroke analyses (see
:class:`~.gate.Gate`), and every open file is analysed again once it is ready (its baseline
lens appears)."""

from __future__ import annotations

from ..core.formats.corpus import Corpus
from ..core.project.analysis import Analysis
from ..ide.completion import corpus_of
from .session import Session

INDEX_TITLE = "Indexing corpus (BM25)"


def warm(session: Session, corpus: Corpus, analysis: Analysis) -> None:
    """Build ``corpus``'s index in the background, once, and rank the questions of
    ``analysis``'s golden set against it there too: the analysis that shows the baseline then
    finds them ranked. (Called after every analysis: the questions, a pass over a hundred
    thousand entries, are read only by the call that claims the corpus.)"""
    indexes = session.indexes
    if not indexes.claim(corpus):
        return
    project = session.project
    asked = questions(analysis)

    def progress(done: int, total: int) -> None:
        session.client.progress(INDEX_TITLE, done, total)

    def build() -> object:
        index = indexes.build(corpus, progress, cancel=session.yield_to_keystrokes)
        if index is not None and session.project is project and project.config.bm25_baseline:
            project.derived.warm_baseline(index, asked, session.yield_to_keystrokes)
        return index

    session.in_background(build, lambda _index: session.reanalyse_open())


def on_analysis(session: Session, uri: str, analysis: Analysis) -> None:
    """A freshly analysed file with a corpus (a golden set, TREC qrels bound to one, or a run
    answering one): warm its corpus's index."""
    corpus = corpus_of(analysis)
    if corpus is not None:
        warm(session, corpus, analysis)


def questions(analysis: Analysis) -> list[str | None]:
    """The questions of the golden set an analysed file belongs to (what its baseline ranks)."""
    ctx = analysis.context
    return [q.question for q in ctx.qrels.queries.values()] if ctx is not None else []
