"""The workspace boundary: which files the tool may read, list or show.

Every path in a golden set, a run, a ``[[qrels]]`` table or a setting was written by whoever wrote
the workspace, and a workspace may be somebody else's repository (a pull request in CI, a
downloaded benchmark in an editor). ``corpus: /etc``, ``runs: ['../../.ssh/*']`` or a symlink to
``/`` must not make the tool read, index or show what lies outside it: hover would print a private
key, "did you mean" would leak file names into a CI log.

So a path is read only when it resolves (symlinks followed) inside one of the boundary's roots:
the editor's workspace folders, or for the command line the current folder (a path named on it
that leads out is refused before anything is read: cli/common.py). The user, and only the user, widens it: the editor's own settings or a configuration file
outside the workspace (``allow_outside``), or ``--allow-outside`` on the command line. A workspace
cannot grant itself that (its ``qrels-lsp.toml`` is the attacker's).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ALLOW_HINT = (
    "to allow it, add its folder to `allow_outside` in your editor's user settings "
    "(or in a qrels-lsp.toml outside the workspace), or pass --allow-outside to the command line"
)


def real(path: Path) -> Path | None:
    """``path`` absolute with every symlink resolved, or None for a path no file can have (a NUL
    byte, which the OS refuses in any call and Python raises on). A symlink loop keeps the
    absolute path: reading it later fails with a message instead."""
    text = str(path)
    if "\0" in text:
        return None
    try:
        return Path(os.path.realpath(text))
    except (OSError, RuntimeError, ValueError):  # a loop, on some Pythons
        return Path(os.path.abspath(text))


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


MAX_LINKS = 40
"""Symlinks followed in one path before it counts as a loop (Linux's own limit)."""


@dataclass(frozen=True, slots=True)
class Boundary:
    """The folders the tool may read, all resolved.

    ``anywhere`` is the user's own choice to lift the boundary (``allow_outside = true``,
    ``--allow-outside``); the default boundary of an empty workspace allows nothing outside it.
    """

    roots: tuple[Path, ...] = ()
    allowed: tuple[Path, ...] = ()
    anywhere: bool = False
    # A root as it was given (through a symlinked folder, say) and what it resolves to: a path
    # written the given way is resolved from the real root, without a look at the link.
    aliases: tuple[tuple[Path, Path], ...] = ()

    @classmethod
    def of(
        cls, roots: Iterable[Path], allowed: Iterable[Path] = (), *, anywhere: bool = False
    ) -> Boundary:
        """A boundary around ``roots`` plus the user's ``allowed`` folders, each resolved."""
        given = [*roots, *allowed]
        resolved = [r for r in (real(p) for p in roots) if r is not None]
        extra = [r for r in (real(p) for p in allowed) if r is not None]
        aliases = _aliases(given)
        return cls(tuple(dict.fromkeys(resolved)), tuple(dict.fromkeys(extra)), anywhere, aliases)

    @classmethod
    def everywhere(cls) -> Boundary:
        return cls(anywhere=True)

    def widened(self, roots: Iterable[Path]) -> Boundary:
        """This boundary with more roots (a workspace folder added, a document opened)."""
        roots = list(roots)
        more = [r for r in (real(p) for p in roots) if r is not None]
        aliases = tuple(dict.fromkeys((*self.aliases, *_aliases(roots))))
        return Boundary(
            tuple(dict.fromkeys((*self.roots, *more))), self.allowed, self.anywhere, aliases
        )

    def resolve(self, path: Path | str) -> Path | None:
        """``path`` with its symlinks resolved, or None when it leads outside (or can name no
        file). Resolution never looks at anything outside: each part is examined only once the
        part before it is known to lie inside a root, so a link to ``/etc`` is refused without
        a single call on ``/etc`` (what CI's strace of a hostile checkout must show)."""
        text = os.fspath(path)
        if "\0" in text:
            return None
        if self.anywhere:
            return real(Path(text))
        return _resolve_inside(text, (*self.roots, *self.allowed), self.aliases)

    def allows(self, path: Path | str) -> bool:
        """Whether ``path`` (a file or folder) may be read: it resolves inside a root."""
        if self.anywhere:  # no symlink to resolve for this answer (a walk asks 50,000 times)
            return "\0" not in os.fspath(path)
        return self.resolve(path) is not None

    def refusal(self, path: Path | str) -> str:
        """Why ``path`` was not read, and how the user can allow it."""
        if "\0" in str(path):
            return f"{str(path)!r} holds a NUL byte, which no file name can: it is not read"
        where = ", ".join(str(r) for r in self.roots) or "no workspace folder"
        return f"{path} is outside the workspace ({where}), so it is not read: {ALLOW_HINT}"


def _aliases(paths: Iterable[Path]) -> tuple[tuple[Path, Path], ...]:
    out = []
    for p in paths:
        text = os.fspath(p)
        if "\0" in text:
            continue
        given = Path(os.path.abspath(text))
        resolved = real(given)
        if resolved is not None and resolved != given:
            out.append((given, resolved))
    return tuple(out)


def _root_of(
    parts: list[str], roots: tuple[Path, ...], aliases: tuple[tuple[Path, Path], ...] = ()
) -> tuple[Path, int] | None:
    """The (real) root that ``parts`` (an absolute path cut at ``/``) starts with, and how many
    parts that root took (written in its real form, or in the form it was given)."""
    for written, root in (*((r, r) for r in roots), *aliases):
        root_parts = written.parts[1:]
        if tuple(parts[: len(root_parts)]) == root_parts:
            return root, len(root_parts)
    return None


def _resolve_inside(
    text: str, roots: tuple[Path, ...], aliases: tuple[tuple[Path, Path], ...] = ()
) -> Path | None:
    parts = [p for p in os.path.join(os.getcwd(), text).split(os.sep) if p not in ("", ".")]
    written = Path(os.sep, *parts)
    for _hop in range(MAX_LINKS + 1):
        found = _root_of(parts, roots, aliases)
        if found is None:
            return None
        root, n = found
        current = root
        rest = parts[n:]
        restart: list[str] | None = None
        while rest:
            part = rest.pop(0)
            if part == "..":
                current = current.parent
                if not any(_under(current, r) for r in roots):
                    return None
                continue
            step = current / part
            try:
                st = os.lstat(step)
            except (OSError, ValueError):
                current = step  # not there (yet): the rest is taken as written
                continue
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(step)
                except OSError:
                    return None
                base = [] if os.path.isabs(target) else list(current.parts[1:])
                restart = base + [p for p in target.split(os.sep) if p not in ("", ".")] + rest
                break
            current = step
        if restart is None:
            return current if any(_under(current, r) for r in roots) else None
        parts = restart
    # A symlink loop that never left the roots: the path as written, so that reading it fails
    # with the system's own message ("too many levels of symbolic links").
    return written
