"""Quoting what a file's author wrote (ids, run names, questions, tags, file names, document
text) into output that something else interprets: a terminal or CI log, GitHub workflow
commands, Markdown, HTML.

Every id and question may come from a hostile pull request. In a GitHub Actions log any line that
starts with ``::`` is a command (``::add-mask::``, ``::stop-commands::``, a forged ``::error``), and
``##[`` starts the older form anywhere on a line; in Markdown a backtick closes a code span,
``<img src=...>`` or ``[verdict](http://...)`` is markup and a ``|`` ends a table cell (even
inside a code span); in HTML ``<`` starts an element. So untrusted text never reaches an output
except through the one function for that output, which is the whole rule for it:

- plain text for a person (a terminal, a CI log, an editor's lens and action titles and
  diagnostics): :func:`for_log`;
- a GitHub workflow command: :func:`github_data` (the message), :func:`github_property`;
- Markdown prose (a hover, a summary): :func:`md_text`, or as code :func:`md_code` (inline) and
  :func:`md_block` (a block);
- a Markdown (GFM) table cell: :func:`md_cell`;
- HTML text or a quoted attribute value: :func:`html_text`; JSON inside a ``<script>``
  element: :func:`json_script`; JSON printed to a log: :func:`json_text`.
"""

from __future__ import annotations

import html
import json
import unicodedata
from typing import Any

from .patterns import BACKTICKS, MD_AUTOLINK, MD_BLOCK_START, MD_SPECIAL, SURROGATE


def _escape_char(c: str) -> str:
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by surrogateescape: shown as the byte
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _visible(c: str, backslash: str = "\\\\") -> str:
    """``c``, or an escape for a character that would break or hide a line: line breaks and
    other controls, bidirectional overrides and zero-width characters (format characters),
    surrogates and unassigned code points. Spaces of every script stay as they are."""
    if c == "\\":
        return backslash
    if c.isprintable() or unicodedata.category(c) == "Zs":
        return c
    return _escape_char(c)


class _Visible(dict[int, str]):
    """What :func:`_visible` makes of each character, for ``str.translate``: the characters of
    a text are looked up in C, and each one described once (a megabyte of escaped characters
    took 4 s through a Python loop, 0.3 s so)."""

    def __init__(self, backslash: str) -> None:
        super().__init__()
        self.backslash = backslash

    def __missing__(self, code: int) -> str:
        value = _visible(chr(code), self.backslash)
        if len(self) < 65_536:  # (one entry per character met: bounded)
            self[code] = value
        return value


_VISIBLE = {"\\\\": _Visible("\\\\"), "\\": _Visible("\\")}


def for_log(text: str) -> str:
    """``text`` as one inert piece of a line of plain text: every control, format and line-separator
    character written as an escape (``\\n`` -> ``\\x0a``, U+202E -> ``\\u202e``, a backslash
    doubled so escapes stay unambiguous), ``##[`` broken and a leading ``::`` escaped, so that no
    piece can start a workflow command or a new line."""
    return _inert(text, "\\\\")


def _inert(text: str, backslash: str) -> str:
    if "\\" in text or not text.isprintable():  # (the common case is neither: left as it is)
        text = text.translate(_VISIBLE.get(backslash) or _Visible(backslash))
    if "##[" in text:
        text = text.replace("##[", "#\\x23[")
    stripped = text.lstrip()  # GitHub's runner trims Unicode whitespace before ``::``
    if stripped.startswith("::"):
        text = text[: len(text) - len(stripped)] + "\\x3a" + stripped[1:]
    return text


def github_data(text: str) -> str:
    """A workflow command's message (after ``::``), escaped as GitHub's toolkit does, after
    :func:`for_log`."""
    return for_log(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): data escaping plus ``:`` and
    ``,``, which would end the value or the property list."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def _break_autolink(m: Any) -> str:
    """GFM's extended autolinks: `http://`, `ftp://` (broken at the colon) and `www.` (at its
    dot); an escaped colon or dot is text to the inline parser, so neither starts a link."""
    found: str = m.group()
    return "\\://" if found == "://" else found[:3] + "\\."


def md_text(text: str) -> str:
    """Untrusted text inside Markdown prose, or a table cell: nothing in it is markup (no links,
    autolinked URLs, images, emphasis, HTML, code spans, table separators), and it stays on one
    line. Every ``|`` comes out after an odd run of backslashes (each backslash of the text is
    doubled), so it is an escaped pipe to every GFM table parser, those that count the
    backslashes before it (marked, micromark) and those that look at one (cmark-gfm,
    markdown-it). An e-mail address is still autolinked by GFM, as itself: no escape stops it."""
    text = _inert(text, "\\")  # (a backslash is escaped as Markdown next)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = MD_AUTOLINK.sub(_break_autolink, MD_SPECIAL.sub(r"\\\1", text))
    return MD_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def md_cell(text: str, code: bool = False) -> str:
    """Untrusted text in a Markdown (GFM) table cell, as :func:`md_text` or, with ``code``, as a
    code span. A GFM table is split into cells before any code span is read, so a ``|`` inside
    one ends the cell unless written ``\\|`` (which the table turns back into ``|``: the GFM
    spec's tables, example 200). A code span cannot say a backslash right before a pipe to
    every parser (some take ``\\\\|`` for an escaped backslash and a cell's end), so such text is
    shown as text, escaped."""
    if code and "\\|" not in text:
        return md_code(text).replace("|", "\\|")
    return md_text(text)


def md_code(text: str) -> str:
    """Untrusted text as an inline code span: fenced with one more backtick than the longest run
    inside it, and padded when it starts or ends with a backtick, as CommonMark requires."""
    text = _inert(text, "\\")  # a code span shows a backslash as it is
    longest = max((len(m) for m in BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_block(text: str, language: str = "text") -> str:
    """Untrusted multi-line text as a fenced code block whose fence no line inside can close:
    longer than any run of backticks or tildes in it."""
    lines = [_inert(line, "\\") for line in text.splitlines()]
    body = "\n".join(lines)
    longest = max((len(m) for m in BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def html_text(text: str) -> str:
    """Untrusted text in HTML, as an element's text or a quoted attribute value: ``&<>"'``
    written as references, so that nothing in it is an element, an attribute or the end of
    one, and CR too (the HTML parser would read a raw one as LF); an undecodable byte (a lone
    surrogate, which UTF-8 cannot encode) as its escape."""
    return html.escape(valid_text(text), quote=True).replace("\r", "&#13;")


_SCRIPT_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def json_script(doc: Any) -> str:
    """JSON inside an HTML ``<script>`` element (a data block): with ``<``, ``>`` and ``&``
    written as JSON escapes, no ``</script>`` or ``<!--`` in the data can end the element or
    change how the HTML parser reads its text, and ``JSON.parse`` reads the same strings."""
    return json_text(doc, indent=None).translate(_SCRIPT_UNSAFE)


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: each lone surrogate (an undecodable byte of a TREC id, kept so
    that ids compare as trec_eval compares them) written as an escape, ``\\xff`` for byte 0xff.
    For messages to an editor: JSON would carry a surrogate as ``\\udcff``, which strict JSON
    readers refuse."""
    if text.isascii():
        return text
    return SURROGATE.sub(lambda m: _escape_char(m.group()), text)


def json_text(doc: Any, indent: int | None = 2) -> str:
    """JSON for a CI log: the same data, with ``##[`` written as ``#\\u0023[`` (a JSON escape,
    so parsers read the very same strings) because GitHub's runner takes ``##[`` anywhere on a
    line for a command. Line breaks inside strings are escaped by JSON itself, and no line of
    indented JSON starts with ``::``. A lone surrogate (an invalid byte of a TREC id) is written
    as its ``\\udcXX`` escape, which JSON parsers read back as the same string: raw, it could not
    be written as UTF-8 at all."""
    text = json.dumps(doc, indent=indent, ensure_ascii=False).replace("##[", "#\\u0023[")
    return SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
