"""Glob patterns from files the user did not write (``runs:``, ``[[qrels]] runs``, ``golden``),
expanded with bounded cost inside the workspace boundary.

``glob.glob`` would walk the whole disk for ``/**/*``, walk it again for every further ``**`` in
``/**/**/**/*`` (minutes and gigabytes, measured), and follow a symlink to ``/``. Here a pattern
is matched in one walk whatever its number of ``**`` (the walk keeps the set of pattern positions
it is at), from the pattern's fixed leading folders, which must lie inside the boundary;
symlinked folders are not entered, a symlinked file counts only if it resolves inside the
boundary, and the walk stops after :data:`MAX_VISITS` entries or :data:`MAX_MATCHES` files, saying
so. Hidden names match only a pattern part that starts with a dot, as ``glob`` does.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .boundary import Boundary

MAX_VISITS = 100_000
"""Folder entries looked at per pattern: a workspace of this size has no business in a glob."""
MAX_MATCHES = 10_000
"""Files a pattern may match."""
MAX_PATTERN_CHARS = 1_000


def has_magic(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern or "[" in pattern


@dataclass(slots=True)
class Expansion:
    """The files a pattern matched, in sorted order, and why the list may be short."""

    paths: list[Path] = field(default_factory=list)
    problem: str | None = None
    refused: bool = False  # the pattern leads outside the boundary: nothing was looked at


def expand(base: Path, pattern: str, boundary: Boundary) -> Expansion:
    """The files ``pattern`` (relative to ``base``, or absolute) names inside ``boundary``.

    A pattern without wildcards names one path, which is returned when it exists."""
    if "\0" in pattern:
        return Expansion(problem=boundary.refusal(pattern), refused=True)
    if len(pattern) > MAX_PATTERN_CHARS:
        return Expansion(problem=f"the pattern is longer than {MAX_PATTERN_CHARS} characters")
    full = Path(pattern) if os.path.isabs(pattern) else base / pattern
    if not has_magic(pattern):
        resolved = boundary.resolve(full)
        if resolved is None:
            return Expansion(problem=boundary.refusal(full), refused=True)
        return Expansion([resolved] if _exists(resolved) else [])
    parts = full.parts
    fixed = next(i for i, p in enumerate(parts) if has_magic(p))
    start = boundary.resolve(Path(*parts[:fixed]) if fixed else Path("."))
    if start is None:
        return Expansion(problem=boundary.refusal(Path(*parts[:fixed])), refused=True)
    walk = _Walk(_segments(parts[fixed:]), boundary)
    walk.run(start)
    return Expansion(sorted(walk.found), walk.problem)


def _exists(path: Path) -> bool:
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


Matcher = Callable[[str], bool] | None  # None: `**`


def _segments(parts: tuple[str, ...]) -> list[Matcher]:
    out: list[Matcher] = []
    for part in parts:
        if part == "**":
            if out and out[-1] is None:
                continue  # `**/**` is `**`
            out.append(None)
        else:
            out.append(_matcher(part))
    return out


def _matcher(part: str) -> Callable[[str], bool]:
    whole = matcher(part)
    dotted = part.startswith(".")

    def match(name: str) -> bool:
        return (dotted or not name.startswith(".")) and whole(name)

    return match


class _Walk:
    def __init__(self, segments: list[Matcher], boundary: Boundary) -> None:
        self.segments = segments
        self.boundary = boundary
        self.found: set[Path] = set()
        self.visits = 0
        self.problem: str | None = None

    def _closure(self, states: set[int]) -> set[int]:
        """Positions reachable without consuming a name: a `**` may match no folder at all."""
        out = set(states)
        for i in sorted(states):
            j = i
            while j < len(self.segments) and self.segments[j] is None:
                j += 1
                out.add(j)
        return out

    def run(self, start: Path) -> None:
        todo: list[tuple[Path, set[int]]] = [(start, self._closure({0}))]
        end = len(self.segments)
        while todo and self.problem is None:
            folder, states = todo.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
            except (OSError, ValueError):
                continue
            for entry in entries:
                self.visits += 1
                if self.visits > MAX_VISITS:
                    self.problem = f"stopped after looking at {MAX_VISITS:,} files and folders"
                    return
                nxt: set[int] = set()
                for i in states:
                    if i == end:
                        continue
                    seg = self.segments[i]
                    if seg is None:
                        if not entry.name.startswith("."):
                            nxt.add(i)
                    elif seg(entry.name):
                        nxt.add(i + 1)
                nxt = self._closure(nxt)
                if not nxt:
                    continue
                self._visit(entry, nxt, end, todo)
                if self.problem is not None:
                    return

    def _visit(self, entry: os.DirEntry[str], states: set[int], end: int, todo: list[Any]) -> None:
        """A matching entry: a file is found, a real folder is walked into; a symlink counts
        only if it resolves inside the boundary (it is not even looked at otherwise)."""
        path = Path(entry.path)
        try:
            if entry.is_symlink():
                target = self.boundary.resolve(path)
                if target is None:
                    return  # a link out of the workspace: as if it were not there
                if end in states and stat.S_ISREG(os.stat(target).st_mode):
                    self._add(target)
                return  # a symlinked folder is not entered (a loop, or `/`)
            st = entry.stat(follow_symlinks=False)
        except (OSError, ValueError):
            return
        if end in states and stat.S_ISREG(st.st_mode):
            resolved = self.boundary.resolve(path)
            if resolved is not None:
                self._add(resolved)
        if stat.S_ISDIR(st.st_mode) and any(i < end for i in states):
            todo.append((path, states))

    def _add(self, path: Path) -> None:
        self.found.add(path)
        if len(self.found) >= MAX_MATCHES:
            self.problem = f"stopped at {MAX_MATCHES:,} matching files"


@functools.lru_cache(maxsize=1024)
def matcher(pattern: str) -> Callable[[str], bool]:
    """``fnmatch.fnmatchcase(name, pattern)`` run by RE2, which never backtracks: ``fnmatch``
    compiles the pattern (the workspace's text) into a regular expression for Python's
    backtracking engine. Lone surrogates (an undecodable byte of a file name) are read as
    U+FFFD on both sides."""
    import re2  # (the start-up of a workspace without globs does not pay for it)

    options = re2.Options()
    options.log_errors = False
    options.dot_nl = True
    rx = re2.compile(_glob_regex(_encodable(pattern)), options)
    return lambda name: rx.fullmatch(_encodable(name)) is not None


def _encodable(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _glob_regex(pattern: str) -> str:
    """The RE2 syntax of a shell pattern, as ``fnmatch.translate`` reads it: ``*``, ``?``,
    ``[...]`` and ``[!...]`` (an unclosed ``[`` is itself); every other character literal."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if not out or out[-1] != ".*":
                out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            j = i + (pattern[i : i + 1] == "!")
            j += pattern[j : j + 1] == "]"
            j = pattern.find("]", j)
            if j < 0:
                out.append(_char(c))
            else:
                out.append(_glob_class(pattern[i:j]))
                i = j + 1
        else:
            out.append(_char(c))
    return "".join(out)


def _char(c: str) -> str:
    return f"\\x{{{ord(c):x}}}"


_NOTHING = "[^\\x{0}-\\x{10ffff}]"


def _glob_class(body: str) -> str:
    """A bracket expression's body (between ``[`` and its ``]``) as an RE2 class, read as
    ``fnmatch`` reads it: ``!`` first negates; a ``-`` between two characters is a range, an
    empty range is dropped, and a range's end does not start the next (``[a-c-e]`` is a to c,
    ``-`` and e)."""
    negated = body.startswith("!")
    chunks = _chunks(body, negated) if "-" in body else [body]
    if negated:
        chunks[0] = chunks[0][1:]
    ranges = _ranges(chunks)
    if not ranges:
        return "." if negated else _NOTHING
    inner = "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)
    return f"[{'^' if negated else ''}{inner}]"


def _chunks(body: str, negated: bool) -> list[str]:
    """fnmatch's pieces between the ``-`` that make ranges (its own loop, on the body)."""
    chunks: list[str] = []
    i, k = 0, 2 if negated else 1
    while (k := body.find("-", k)) >= 0:
        chunks.append(body[i:k])
        i, k = k + 1, k + 3
    if body[i:]:
        chunks.append(body[i:])
    else:
        chunks[-1] += "-"
    for k in range(len(chunks) - 1, 0, -1):  # an empty range (z-a) is dropped
        if chunks[k - 1][-1] > chunks[k][0]:
            chunks[k - 1] = chunks[k - 1][:-1] + chunks[k][1:]
            del chunks[k]
    return chunks


def _ranges(chunks: list[str]) -> list[tuple[str, str]]:
    """The class Python reads from the chunks joined by ``-``: a character, then a range when a
    joining ``-`` and another character follow it."""
    tokens: list[str | None] = []  # None: a joining `-`
    for n, piece in enumerate(chunks):
        tokens.extend([None] if n else [])
        tokens.extend(piece)
    out: list[tuple[str, str]] = []
    t = 0
    while t < len(tokens):
        lo = tokens[t] or "-"
        if t + 2 < len(tokens) and tokens[t + 1] is None:
            out.append((lo, tokens[t + 2] or "-"))
            t += 3
        else:
            out.append((lo, lo))
            t += 1
    return out
