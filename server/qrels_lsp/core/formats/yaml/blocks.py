"""The entries of a YAML mapping as stretches of text that can be moved: what the formatter
reorders (``yaml_format.py``).

An entry of a block mapping moves with everything above it since the entry before: the comment
lines directly above its key, and the blank lines and comments set apart above those; with its
own lines (a comment after its value too) and the comment lines under it indented deeper than
its key (notes on its last value, which are not about the entry below). What comes before a
mapping's first entry stays first (a file's header, the line after ``queries:``): the entry
that moves there takes its place under it, and gives the blank lines it brought to the entry
that was first. So a key moved to its place keeps the blank line above it, sorted questions
keep their section comments, and two files that differ only in the order of their entries
become one.

A mapping laid out otherwise (a key that does not start its line, ``? `` keys, something other
than a comment between two entries) gives None: it is left in its order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.text import LineIndex, Span
from .tree import YMap, YNode, YScalar


@dataclass(frozen=True, slots=True)
class Entry:
    key: YScalar
    value: YNode
    span: Span  # its lines: the comments directly above it to its notes under it


@dataclass(frozen=True, slots=True)
class Layout:
    region: Span  # from the first entry's separator to the end of the last entry
    entries: tuple[Entry, ...]
    attached: bool  # what lies between entries moves with the entry under it (block); or stays


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _comment(line: str) -> bool:
    return line.lstrip(" \t").startswith("#")


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def first_line(lines: LineIndex, node: YMap) -> int:
    """The first line of a root mapping's region: after any directive or ``---`` above its first
    key (those stay at the top)."""
    if not node.items:
        return 0
    key_line = lines.line_of(node.items[0][0].span.start)
    start = 0
    for line in range(key_line):
        content = lines.line_text(line)
        if not (_blank(content) or _comment(content)):
            start = line + 1
    return start


def layout(text: str, lines: LineIndex, node: YMap, start_line: int) -> Layout | None:
    """The entries of ``node`` and what moves with each, for a block mapping whose region starts
    at ``start_line`` (the line after its parent's key, or :func:`first_line` for the root); a
    flow mapping's entries for one written ``{...}``; None for anything else."""
    if node.flow:
        return _flow_layout(text, node)
    if not node.items or not all(isinstance(k, YScalar) for k, _ in node.items):
        return None
    column = node.items[0][0].span.start - lines.line_start(
        lines.line_of(node.items[0][0].span.start)
    )
    bodies: list[tuple[int, int]] = []  # each entry's key line and last line
    for key, value in node.items:
        key_line = lines.line_of(key.span.start)
        if text[lines.line_start(key_line) : key.span.start] != " " * column:
            return None
        end = max(key.span.end, value.span.end)
        last = lines.line_of(end - 1) if end > key.span.start else key_line
        rest = text[end : lines.line_end(last)].lstrip(" \t")
        if rest and not rest.startswith("#"):
            return None
        if (bodies and key_line <= bodies[-1][1]) or key_line < start_line:
            return None
        bodies.append((key_line, last))
    gaps = [start_line, *(last + 1 for _, last in bodies)]
    if not all(_only_comments(lines, g, k) for g, (k, _) in zip(gaps, bodies, strict=False)):
        return None
    return _entries(lines, node, column, bodies, start_line)


def _only_comments(lines: LineIndex, first: int, stop: int) -> bool:
    return all(_blank(t) or _comment(t) for t in map(lines.line_text, range(first, stop)))


def _entries(
    lines: LineIndex, node: YMap, column: int, bodies: list[tuple[int, int]], start_line: int
) -> Layout:
    ends = [_notes_under(lines, last, column, stop) for (_, last), stop in _nexts(lines, bodies)]
    entries = []
    after = start_line  # the first line after the previous entry
    for (key, value), (key_line, _), end in zip(node.items, bodies, ends, strict=True):
        above = key_line
        while above > after and _comment(lines.line_text(above - 1)):
            above -= 1
        assert isinstance(key, YScalar)
        entries.append(Entry(key, value, Span(lines.line_start(above), _after_line(lines, end))))
        after = end + 1
    region = Span(lines.line_start(start_line), entries[-1].span.end)
    return Layout(region, tuple(entries), attached=True)


def _nexts(lines: LineIndex, bodies: list[tuple[int, int]]) -> list[tuple[tuple[int, int], int]]:
    """Each body with the line its notes must stop before: the next key's, or the file's end."""
    stops = [k for k, _ in bodies[1:]] + [lines.line_count]
    return list(zip(bodies, stops, strict=True))


def _notes_under(lines: LineIndex, last: int, column: int, stop: int) -> int:
    """The last line of the entry ending at ``last``: with the comment lines right under it that
    are indented deeper than its key (no blank line between)."""
    while last + 1 < stop:
        content = lines.line_text(last + 1)
        if not (_comment(content) and _indent(content) > column):
            break
        last += 1
    return last


def _after_line(lines: LineIndex, line: int) -> int:
    """Where the line after ``line`` starts (its line break included), or the text's end."""
    return lines.line_start(line + 1) if line + 1 < lines.line_count else len(lines.text)


def _flow_layout(text: str, node: YMap) -> Layout | None:
    """``{a: 1, b: 2}``: each entry is ``key: value``; the commas and blanks between stay. A
    comment between entries, an entry with no value or a ``?`` key: None."""
    start, end = node.span.start, node.span.end
    if not node.items or text[start : start + 1] != "{" or text[end - 1 : end] != "}":
        return None
    entries = []
    previous = start + 1
    for i, (key, value) in enumerate(node.items):
        if not isinstance(key, YScalar) or value.span.end <= value.span.start:
            return None
        between = text[previous : key.span.start].strip(" \t\r\n")
        if between != ("," if i else ""):
            return None
        entries.append(Entry(key, value, Span(key.span.start, value.span.end)))
        previous = value.span.end
    if text[previous : end - 1].strip(" \t\r\n") not in ("", ","):
        return None
    return Layout(Span(start + 1, end - 1), tuple(entries), attached=False)
