"""Document links, in editor terms: the paths a file names, and each document id of a golden set
to its file when the corpus is a folder.

Only what the analysis already resolved is linked, so a link never points outside the workspace
(or what the user's settings allow) and nothing is read to make one: the corpus file, each
`runs:` entry that names one file (a glob names many: it is not linked), a run YAML's `qrels:`
golden set. Document ids are linked while the golden set holds at most as many judgments as its
outline lists (:data:`~.outline.MAX_OUTLINE_CHILDREN`): a link per id of a huge file would be
megabytes on every edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.base.globs import has_magic
from ..core.base.text import Span
from ..core.formats.corpus import Corpus
from ..core.model import Qrels
from ..core.project.analysis import Analysis
from .outline import judged_count, lists_documents


@dataclass(frozen=True, slots=True)
class Link:
    span: Span
    target: Path
    tooltip: str


def links(analysis: Analysis) -> list[Link]:
    """Every link of the analysed file, in text order."""
    ctx, model = analysis.context, analysis.model
    if ctx is None:
        return []
    out: list[Link] = []
    if isinstance(model, Qrels):
        if model.format != "golden":
            return []
        corpus = ctx.corpus if isinstance(ctx.corpus, Corpus) else None
        if model.corpus is not None and corpus is not None and corpus.sources:
            out.append(Link(model.corpus.span, corpus.path, "Open the corpus"))
        for ref in model.runs:
            hits = ctx.run_matches.get(ref.value, [])
            if not has_magic(ref.value) and len(hits) == 1:
                out.append(Link(ref.span, hits[0], "Open the run"))
        if corpus is not None and not corpus.sources and lists_documents(judged_count(model)):
            for q in model.queries.values():
                for j in q.judgments:
                    file = corpus.file_of(j.doc_id)
                    if file is not None:
                        out.append(Link(j.span, file, "Open the document"))
    elif model.qrels is not None:  # a run's `qrels:` is what bound it to ``ctx`` (golden_of)
        out.append(Link(model.qrels.span, ctx.path, "Open the golden set"))
    return sorted(out, key=lambda link: link.span.start)
