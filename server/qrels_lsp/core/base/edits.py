"""Minimal text edits for fixes: remove one item, insert one key, keeping everything else.

The user's comments, blank lines, quoting and order are theirs; a fix touches the characters of
the thing it fixes and nothing else. Where a minimal edit cannot be made safely (an unusual
layout), no fix is offered rather than a rewrite.
"""

from __future__ import annotations

from .findings import TextEdit
from .patterns import AFTER_KEY, FLOW_SEPARATOR, LINE_TRAILER, NULL_VALUE, YAML_ITEM_PREFIX
from .text import LineIndex, Span


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
    if YAML_ITEM_PREFIX.fullmatch(before) and LINE_TRAILER.fullmatch(after):
        end = lines.line_start(last + 1) if last + 1 < lines.line_count else len(text)
        start = lines.line_start(first)
        if end == len(text) and last + 1 >= lines.line_count and first > 0:
            start = lines.line_end(first - 1)  # last line: take the break before it instead
        return TextEdit(Span(start, end), "")
    if previous_end is not None and FLOW_SEPARATOR.fullmatch(text[previous_end : item.start]):
        return TextEdit(Span(previous_end, item.end), "")
    return None


def insert_entry(
    text: str, lines: LineIndex, owner: Span, block: Span, entry: str, newline: str
) -> TextEdit | None:
    """Add ``entry`` (``key: value``) to the mapping of the entry whose key is at ``owner``.

    ``block`` spans the key and its value. Block mappings get a new line at the body's
    indentation after the block's last line (after any trailing comment); flow mappings get
    ``, entry`` before the closing brace (just ``entry`` when empty); a key with no value yet, or
    an explicit null, gets its first body line. Any other value (a list, a scalar) is not a
    mapping to add to: None. ``newline`` is the file's own line break, passed in so that a cached
    check says what it read.
    """
    colon = AFTER_KEY.match(text, owner.end)
    if colon is None:
        return None
    value_start = colon.end()
    nl = newline
    key_line = lines.line_of(owner.start)
    key_text = lines.line_text(key_line)
    key_indent = len(key_text) - len(key_text.lstrip(" "))
    if text.startswith("{", value_start):
        # Decide by the query's own value: the block may also end in a nested flow mapping.
        close = block.end - 1
        if close <= value_start or text[close] != "}":
            return None
        empty = not text[value_start + 1 : close].strip()
        return TextEdit(Span(close, close), entry if empty else f", {entry}")
    null = NULL_VALUE.match(text, value_start)
    if null is not None and null.end() == lines.line_end(key_line):
        # `q: ~` / `q: null`: the value becomes the mapping's first body line.
        body = f"{nl}{' ' * (key_indent + 2)}{entry}"
        return TextEdit(Span(colon.start(), lines.line_end(key_line)), ":" + body)
    if not LINE_TRAILER.fullmatch(text, value_start, lines.line_end(key_line)):
        return None  # not a block mapping (a list or a scalar): nothing safe to add to
    last_line = lines.line_of(block.end)
    indent = _body_indent(lines, key_line, last_line)
    if indent is None:
        indent = key_indent + 2
    at = lines.line_end(last_line)
    return TextEdit(Span(at, at), f"{nl}{' ' * indent}{entry}")


def _body_indent(lines: LineIndex, key_line: int, last_line: int) -> int | None:
    for line in range(key_line + 1, last_line + 1):
        content = lines.line_text(line)
        stripped = content.lstrip(" ")
        if stripped and not stripped.startswith("#"):
            return len(content) - len(stripped)
    return None


def append_line(text: str, line: str) -> list[TextEdit]:
    """The edit adding ``line`` at the end of ``text`` with the file's own line break (after
    one, if the last line has none)."""
    nl = newline_of(text)
    end = len(text)
    if text and not text.endswith(("\n", "\r")):
        return [TextEdit(Span(end, end), nl + line + nl)]
    return [TextEdit(Span(end, end), line + nl)]
