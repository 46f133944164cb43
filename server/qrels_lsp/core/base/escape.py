"""Quoting what a file's author wrote (ids, questions, file names, document text) into output
that something else interprets: a CI log, GitHub workflow commands, Markdown.

Every id and question may come from a hostile pull request. In a GitHub Actions log any line that
starts with ``::`` is a command (``::add-mask::``, ``::stop-commands::``, a forged ``::error``), and
``##[`` starts the older form anywhere on a line; in Markdown a backtick closes a code span and
``<img src=...>`` or ``[verdict](http://...)`` is markup. So untrusted text never reaches an
output except through one of these functions, each of which is the whole rule for its output.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any


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


_SAFE_RUN = re.compile(r"[ -\[\]-~]*")  # printable ASCII but the backslash: the common case


def for_log(text: str) -> str:
    """``text`` as one inert piece of a log line: every control, format and line-separator
    character written as an escape (``\\n`` -> ``\\x0a``, U+202E -> ``\\u202e``, a backslash
    doubled so escapes stay unambiguous), ``##[`` broken and a leading ``::`` escaped, so that no
    piece can start a workflow command or a new line."""
    return _inert(text, "\\\\")


def _inert(text: str, backslash: str) -> str:
    if _SAFE_RUN.fullmatch(text) is None:
        text = "".join(_visible(c, backslash) for c in text)
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


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")  # markup wherever it stands
_MD_BLOCK_START = re.compile(r"^(\s*)([#+\-=]|\d+[.)])")  # markup at the start of a line


def md_text(text: str) -> str:
    """Untrusted text inside Markdown prose or a table cell: nothing in it is markup (no links,
    images, emphasis, HTML, code spans, table separators), and it stays on one line."""
    text = _inert(text, "\\")  # (a backslash is escaped as Markdown next)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def md_code(text: str) -> str:
    """Untrusted text as an inline code span: fenced with one more backtick than the longest run
    inside it, and padded when it starts or ends with a backtick, as CommonMark requires."""
    text = _inert(text, "\\")  # a code span shows a backslash as it is
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_block(text: str, language: str = "text") -> str:
    """Untrusted multi-line text as a fenced code block whose fence no line inside can close:
    longer than any run of backticks or tildes in it."""
    lines = [_inert(line, "\\") for line in text.splitlines()]
    body = "\n".join(lines)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{body}\n{fence}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: each lone surrogate (an undecodable byte of a TREC id, kept so
    that ids compare as trec_eval compares them) written as an escape, ``\\xff`` for byte 0xff.
    For messages to an editor: JSON would carry a surrogate as ``\\udcff``, which strict JSON
    readers refuse."""
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: _escape_char(m.group()), text)


def json_text(doc: Any, indent: int | None = 2) -> str:
    """JSON for a CI log: the same data, with ``##[`` written as ``#\\u0023[`` (a JSON escape,
    so parsers read the very same strings) because GitHub's runner takes ``##[`` anywhere on a
    line for a command. Line breaks inside strings are escaped by JSON itself, and no line of
    indented JSON starts with ``::``. A lone surrogate (an invalid byte of a TREC id) is written
    as its ``\\udcXX`` escape, which JSON parsers read back as the same string: raw, it could not
    be written as UTF-8 at all."""
    text = json.dumps(doc, indent=indent, ensure_ascii=False).replace("##[", "#\\u0023[")
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
