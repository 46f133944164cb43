"""Open documents apply an editor's change exactly as pygls's own documents do."""

from __future__ import annotations

import re

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument
from qrels_lsp.core.base.text import LineIndex, line_index, line_index_after
from qrels_lsp.lsp.compat import IndexedTextDocument

# LSP's line breaks only: pygls also splits at form feeds and U+2028, which editors do not.
PIECES = st.sampled_from([*"ab :-\n", "\r\n", "\r", "é", "😀", "文", "\t"])
ENCODINGS = {
    types.PositionEncodingKind.Utf8: lambda s: len(s.encode("utf-8")),
    types.PositionEncodingKind.Utf16: lambda s: len(s.encode("utf-16-le")) // 2,
    types.PositionEncodingKind.Utf32: len,
}


def position(data: st.DataObject, text: str, units: object) -> types.Position:
    """A valid position in ``text``: a line, and a character boundary on it, in code units."""
    lines = re.split(r"\r\n|\r|\n", text)
    line = data.draw(st.integers(0, len(lines) - 1))
    at = data.draw(st.integers(0, len(lines[line])))
    return types.Position(line=line, character=units(lines[line][:at]))  # type: ignore[operator]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join), st.sampled_from(list(ENCODINGS)), st.data())
def test_changes_apply_as_pygls_applies_them(
    text: str, encoding: types.PositionEncodingKind, data: st.DataObject
) -> None:
    codec = PositionCodec(encoding)
    ours = IndexedTextDocument("file:///a.qrels.yaml", text, position_codec=codec)
    theirs = TextDocument("file:///a.qrels.yaml", text, position_codec=codec)
    for _ in range(data.draw(st.integers(1, 5))):
        a = position(data, ours.source, ENCODINGS[encoding])
        b = position(data, ours.source, ENCODINGS[encoding])
        start, end = sorted([a, b], key=lambda p: (p.line, p.character))
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=end), text=data.draw(PIECES)
        )
        ours.apply_change(change)
        theirs.apply_change(change)
        assert ours.source == theirs.source


def test_a_position_past_the_line_end_is_the_line_end() -> None:
    """LSP: a character beyond the line's length defaults back to the length."""
    doc = IndexedTextDocument("file:///a.qrels.yaml", "ab\ncd\n")
    change = types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=0, character=1), end=types.Position(line=0, character=9)
        ),
        text="X",
    )
    doc.apply_change(change)
    assert doc.source == "aX\ncd\n"


@pytest.mark.parametrize("vector_lines", [4096, 0], ids=["plain", "numpy"])
@settings(max_examples=examples(300), deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join), st.data())
def test_a_derived_line_index_equals_a_fresh_one(
    vector_lines: int, text: str, data: st.DataObject
) -> None:
    """The index after an edit is made from the one before (line starts moved, the touched lines
    scanned again); every line break LSP knows, a ``\\r`` meeting a typed ``\\n`` included, must
    come out where a fresh scan of the new text puts it, whether the moved starts are moved by
    a loop or by numpy (``vector_lines`` 0: always)."""
    from qrels_lsp.core.base import text as text_module

    text_module._VECTOR_LINES, saved = vector_lines, text_module._VECTOR_LINES
    try:
        _derive_and_compare(text, data)
    finally:
        text_module._VECTOR_LINES = saved


def _derive_and_compare(text: str, data: st.DataObject) -> None:
    index = LineIndex(text)
    for _ in range(data.draw(st.integers(1, 4))):
        old = index.text
        start = data.draw(st.integers(0, len(old)))
        end = data.draw(st.integers(start, len(old)))
        inserted = data.draw(st.lists(PIECES, max_size=4).map("".join))
        index = line_index_after(index, start, end, inserted)
        fresh = LineIndex(old[:start] + inserted + old[end:])
        assert index.text == fresh.text
        assert [index.line_start(i) for i in range(index.line_count)] == [
            fresh.line_start(i) for i in range(fresh.line_count)
        ]
        assert line_index(index.text) is index  # shared, as line_index shares its own


@given(
    st.lists(
        st.sampled_from(["a", "é", "😀", "\n", "\r\n", "\t", "\ud800", " "]), max_size=300
    ).map("".join)
)
def test_vectorised_line_starts_equal_the_plain_scan(text: str) -> None:
    """The numpy path for big texts (text._line_starts_vectorised) against the str.find loop."""
    from qrels_lsp.core.base import text as text_module

    plain = [0]
    i = text.find("\n")
    while i != -1:
        plain.append(i + 1)
        i = text.find("\n", i + 1)
    assert list(text_module._line_starts_vectorised(text)) == plain
    if "\r" not in text or text.count("\r") == text.count("\r\n"):
        assert list(text_module._line_starts(text)) == plain
