"""What a file format is to the rest of qrels-lsp: one :class:`Format` per kind of file.

Code outside ``core/formats`` never compares format names: it asks the format what it holds
(judgments or a ranking), whether it is YAML (edits keep the YAML style; the golden set is
re-parsed entry by entry), where its query ids are written (rename, locate) and how a judgment is
added to it (the judge action). A new format is one module that builds a ``Format`` and one line
in ``FORMATS`` (``core/formats/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..base.findings import Severity, TextEdit, declare
from ..base.text import Span
from ..model import FileKind, Qrels, Run

if TYPE_CHECKING:
    from .style import FormatSettings
    from .yaml_format import Reformatted

declare(
    "QR203",
    "run-duplicate-document",
    Severity.ERROR,
    "run",
    "A document twice in one ranking.",
    drops=True,
)


Role = Literal["qrels", "run"]


class EditRefused(ValueError):
    """The edit cannot be made as a minimal one (the file's shape is not one we edit)."""


@dataclass(frozen=True, slots=True)
class Format:
    """A kind of file qrels-lsp reads, and what it can do with it."""

    name: FileKind
    display: str  # for people: "golden set (YAML)"
    role: Role  # what it holds: judgments ("qrels") or a ranking ("run")
    parse: Callable[[str], Qrels | Run]  # with spans and findings; never raises
    yaml: bool = False  # written in YAML: edits keep its style, completion knows its keys
    # Every query id written in the file, with the span of its characters (inside quotes).
    query_ids: Callable[[str], list[tuple[str, Span]]] = lambda text: []
    # The text that writes query id ``new`` over the occurrence at ``span`` (keeping its quotes).
    id_text: Callable[[str, Span, str], str] = lambda text, span, new: new
    # The edits adding judgment (qid, doc, grade) to a qrels file; raises EditRefused.
    # (text, query, document, grade, the query's entry if the model knows it) -> the edits
    add_judgment: Callable[[str, str, str, int, Span | None], list[TextEdit]] | None = None
    # Span-free readers for scoring what the editor's model would be too big for (a million-line
    # run): the same values, in the same order, as ``parse``.
    read_grades: Callable[[str], dict[str, dict[str, int]]] | None = None
    read_rankings: Callable[[str], dict[str, list[str]]] | None = None
    # Whether nothing of the file is left out of its scores, known without the span model (a
    # run YAML the line reader reads, JSON that is exactly the shape); None: see ``lines``.
    clean: Callable[[str], bool] | None = None
    # One entry per line (TREC, MS MARCO): a file with no more lines than the entries read left
    # none out (a clean million-line run costs one count). Else the span model says.
    lines: bool = False
    # The name a run gives itself where lenses and reports show its name (a run YAML's `name:`),
    # read without the span model.
    named: Callable[[str], str | None] | None = None
    # The run's own name written in it (a TREC run's tag column), what trec_eval calls runid.
    run_tag: Callable[[str], str | None] | None = None
    # Whether every ranked id has a score (True), none has (False: ranks only), or the model
    # says, query by query (None: a run YAML's lists have none, its mappings have scores).
    scored: bool | None = None
    # The formatter (yaml_format.py): (text, settings, the range to format, None for all) -> the
    # formatted text and its edits, or why not; None: the format has none (TREC, JSON).
    reformat: Callable[[str, FormatSettings, Span | None], Reformatted] | None = None
