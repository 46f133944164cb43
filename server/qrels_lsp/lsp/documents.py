"""Open documents: pygls's text documents, with a change applied through the line index.

pygls applies an incremental change by splitting the whole document into lines and writing every
line back, a Python loop over the file: ~10 ms per keystroke in a 30,000-line golden set. A
change names one range; with the text's line starts (the index the analysis and the position
conversion already share, see :func:`~qrels_lsp.core.text.line_index`) it is two slices. The
index counts lines as LSP does (``\\n``, ``\\r\\n``, ``\\r``), where ``str.splitlines`` would also
break at form feeds and U+2028.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from ..core.text import line_index, line_index_after
from .convert import encoding_of


class IndexedTextDocument(TextDocument):
    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self.source
        lines = line_index(text)
        encoding = encoding_of(self._position_codec.encoding)
        rng = change.range
        start = lines.offset(rng.start.line, rng.start.character, encoding)
        end = max(start, lines.offset(rng.end.line, rng.end.character, encoding))
        self._source = line_index_after(lines, start, end, change.text).text


class IndexedWorkspace(Workspace):
    """pygls's workspace, holding :class:`IndexedTextDocument` s."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return IndexedTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def use_indexed_documents(workspace: Any) -> None:
    """Make the workspace pygls created at ``initialize`` create indexed documents.

    pygls builds its Workspace inside its own initialize handling, with no way to name another
    class; it holds no documents yet at that point, so switching its class changes only how
    documents are made from then on.
    """
    if type(workspace) is Workspace:
        workspace.__class__ = IndexedWorkspace
