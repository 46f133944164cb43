"""Minimal text edits for fixes: remove one item, insert one key, keeping everything else.

The user's comments, blank lines, quoting and order are theirs; a fix touches the characters of
the thing it fixes and nothing else. Where a minimal edit cannot be made safely (an unusual
layout), no fix is offered rather than a rewrite.
"""

from __future__ import annotations

import re

from .findings import TextEdit
from .text import LineIndex, Span

_ITEM_PREFIX = re.compile(r"[ \t]*(?:-[ \t]+)?")
_TRAILER = re.compile(r"[ \t]*(?:#.*)?")
_FLOW_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")


def newline_of(text: str) -> str:
    """The file's own line break, so an inserted line matches its neighbours."""
    i = text.find("\n")
    if i > 0 and text[i - 1] == "\r":
        return "\r\n"
    if i == -1 and "\r" in text:
        return "\r"
    return "\n"


def remove_item(
    text: str, lines: LineIndex, item: Span, previous_end: int | None
) -> TextEdit | None:
    """Delete one list item or mapping entry spanning ``item``.

    An item alone on its line(s) (``- id`` or ``key: value``, perhaps with a comment) loses those
    lines; an item inside a flow collection loses itself and the comma before it.
    """
    first, last = lines.line_of(item.start), lines.line_of(item.end)
    before = text[lines.line_start(first) : item.start]
    after = text[item.end : lines.line_end(last)]
    if _ITEM_PREFIX.fullmatch(before) and _TRAILER.fullmatch(after):
        end = lines.line_start(last + 1) if last + 1 < lines.line_count else len(text)
        start = lines.line_start(first)
        if end == len(text) and last + 1 >= lines.line_count and first > 0:
            start = lines.line_end(first - 1)  # last line: take the break before it instead
        return TextEdit(Span(start, end), "")
    if previous_end is not None and _FLOW_SEPARATOR.fullmatch(text[previous_end : item.start]):
        return TextEdit(Span(previous_end, item.end), "")
    return None


def insert_entry(text: str, lines: LineIndex, owner: Span, block: Span, entry: str) -> TextEdit:
    """Add ``entry`` (``key: value``) to the mapping of the entry whose key is at ``owner``.

    ``block`` spans the key and its value. Block mappings get a new line at the body's
    indentation after the block's last line (after any trailing comment); flow mappings get
    ``, entry`` before the closing brace; a key with no value yet gets its first body line.
    """
    if block.end > block.start and text[block.end - 1] == "}":
        return TextEdit(Span(block.end - 1, block.end - 1), f", {entry}")
    key_line = lines.line_of(owner.start)
    last_line = lines.line_of(block.end)
    indent = _body_indent(lines, key_line, last_line)
    if indent is None:
        key_indent = len(lines.line_text(key_line)) - len(lines.line_text(key_line).lstrip(" "))
        indent = key_indent + 2
    at = lines.line_end(last_line)
    return TextEdit(Span(at, at), f"{newline_of(text)}{' ' * indent}{entry}")


def _body_indent(lines: LineIndex, key_line: int, last_line: int) -> int | None:
    for line in range(key_line + 1, last_line + 1):
        content = lines.line_text(line)
        stripped = content.lstrip(" ")
        if stripped and not stripped.startswith("#"):
            return len(content) - len(stripped)
    return None
