"""The boundary: core spans, findings and edits -> LSP types, in the client's position encoding.

Nothing above this module knows about UTF-16; nothing below it knows about lsprotocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from ..core.base.escape import for_log
from ..core.base.findings import CODES, Finding, Fix, TextEdit
from ..core.base.text import Encoding, Span, line_index

SOURCE = "qrels-lsp"


def _readme_uri() -> str | None:
    """The check table in the README beside a source checkout (each row has an anchor)."""
    readme = Path(__file__).resolve().parents[3] / "README.md"
    return readme.as_uri() if readme.is_file() else None


README_URI = _readme_uri()


def encoding_of(kind: object) -> Encoding:
    value = getattr(kind, "value", kind)
    return value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def path_of(uri: str) -> Path | None:
    """The file a ``file:`` URI names; None for any other URI, or one no file can have (a NUL
    byte, ``file:///%00``, which every file operation would raise on)."""
    try:
        fs = to_fs_path(uri)
    except Exception:  # a malformed URI from the client
        return None
    return Path(fs) if fs and "\0" not in fs else None


class Positions:
    """Offsets <-> LSP positions for one text in one encoding."""

    def __init__(self, text: str, encoding: Encoding) -> None:
        self.lines = line_index(text)
        self.encoding = encoding

    def position(self, offset: int) -> types.Position:
        line, col = self.lines.position(offset, self.encoding)
        return types.Position(line=line, character=col)

    def range(self, span: Span) -> types.Range:
        return types.Range(start=self.position(span.start), end=self.position(span.end))

    def offset(self, pos: types.Position) -> int:
        return self.lines.offset(pos.line, pos.character, self.encoding)

    def span(self, rng: types.Range) -> Span:
        return Span(self.offset(rng.start), self.offset(rng.end))


class RawJSON:
    """A result already encoded as JSON (UTF-8 bytes), sent as it is (see QrelsProtocol): for
    responses with thousands of items, whose encoding would otherwise cost more than computing
    them. ``sent``: told the bytes once they are written, when their maker lent them (see
    ``pieces.Payload``) and may change them after that."""

    __slots__ = ("data", "sent")

    def __init__(
        self, data: bytes | bytearray, sent: Callable[[bytes | bytearray], None] | None = None
    ) -> None:
        self.data = data
        self.sent = sent


def diagnostic(
    f: Finding, pos: Positions, uri: str, related_positions: dict[str, Positions]
) -> types.Diagnostic:
    related = []
    for r in f.related:
        target_uri = uri_of(Path(r.path)) if r.path else uri
        target_pos = related_positions.get(target_uri, pos) if r.path else pos
        related.append(
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=target_uri, range=target_pos.range(r.span)),
                message=for_log(r.message),
            )
        )
    # Declared by the module that made the finding: in the table without core/codes.py, which
    # imports every check (and the server answers initialize before the core is imported).
    check = CODES.get(f.code)
    return types.Diagnostic(
        range=pos.range(f.span),
        message=for_log(f.message),
        severity=types.DiagnosticSeverity(int(f.severity)),
        code=f.code,
        code_description=(
            types.CodeDescription(href=f"{README_URI}#{f.code.lower()}")
            if check and README_URI
            else None
        ),
        source=SOURCE,
        related_information=related or None,
        data={"code": f.code, "name": check.name if check else f.code},
    )


def workspace_edit(
    edits: Iterable[TextEdit],
    uri: str,
    positions: dict[str, Positions],
    versions: dict[str, int | None],
) -> types.WorkspaceEdit:
    """Group edits per document; a versioned edit is refused by the client if the text moved on."""
    by_uri: dict[str, list[types.TextEdit]] = {}
    for e in edits:
        target = uri_of(Path(e.path)) if e.path else uri
        pos = positions[target]
        by_uri.setdefault(target, []).append(
            types.TextEdit(range=pos.range(e.span), new_text=e.new_text)
        )
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=u, version=versions.get(u)
                ),
                edits=list(es),
            )
            for u, es in by_uri.items()
        ]
    )


def code_action(
    fix: Fix, diag: types.Diagnostic | None, edit: types.WorkspaceEdit
) -> types.CodeAction:
    return types.CodeAction(
        title=for_log(fix.title),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag] if diag is not None else None,
        is_preferred=fix.preferred or None,
        edit=edit,
    )
