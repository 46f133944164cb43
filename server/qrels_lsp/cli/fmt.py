"""`qrels-lsp fmt PATH... [--check] [--diff]`: golden sets and run YAML formatted in place, or
checked for CI.

The same formatter as the editor's Format Document (``ide/formatting.py``), with the
configuration's ``format`` table. Each file is read as bytes and must be UTF-8 (a byte order
mark is kept); a file that cannot be formatted is named with why, and the others are still
done. Exit 0: nothing left to do; 1 (``--check``, ``--diff``): a file would change; 2: a file
was not formatted, or a path named nothing to format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    UsageError,
    allow_outside,
    config_for,
    current_folder,
    files_of_ours,
    log_text,
    workspace_of,
)

if TYPE_CHECKING:
    from ..core.project.config import Config


def add(sub: Any) -> None:
    """The ``fmt`` subcommand's arguments."""
    c = sub.add_parser(
        "fmt",
        help="format golden sets and run YAML in place (key order, relevant: style), "
        "keeping every comment",
    )
    c.add_argument("paths", nargs="+", type=Path, help="files or folders")
    c.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a file would change",
    )
    c.add_argument(
        "--diff", action="store_true", help="change nothing; print what would change, as a diff"
    )
    c.add_argument("--config", type=Path, help="a qrels-lsp.toml or pyproject.toml to use")
    allow_outside(c)
    c.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    workspace = workspace_of(args, args.paths)
    config = config_for(args.config, args.paths[0], workspace)
    for problem in config.findings:  # the `format` table among them: said, the defaults used
        print(
            f"qrels-lsp fmt: {log_text(config.source)}: {log_text(problem.message)}",
            file=sys.stderr,
        )
    worst, counts = 0, {"reformatted": 0, "unchanged": 0, "not formatted": 0}
    for path, explicit in _files(args.paths, config):
        outcome = _one(path, explicit, config, args, workspace[0])
        counts[outcome] = counts.get(outcome, 0) + 1
        worst = max(worst, {"would reformat": 1, "not formatted": 2}.get(outcome, 0))
    done = "would reformat" if args.check or args.diff else "reformatted"
    changed = counts.get("would reformat", 0) + counts["reformatted"]
    summary = f"{changed} {_files_word(changed)} {done}, {counts['unchanged']} unchanged"
    if counts["not formatted"]:
        summary += f", {counts['not formatted']} not formatted"
    print(f"qrels-lsp fmt: {summary}", file=sys.stderr)
    return worst


def _files_word(n: int) -> str:
    return "file" if n == 1 else "files"


def _files(paths: list[Path], config: Config) -> Iterator[tuple[Path, bool]]:
    """Each file to format, and whether it was named (a folder's files are those the
    configuration's globs name golden sets and runs)."""
    from ..ide.formatting import formatter

    for path in paths:
        if path.is_dir():
            found = [p for p in files_of_ours(path, config, "fmt") if formatter(p, config)]
            if not found:
                print(
                    f"qrels-lsp fmt: {log_text(path)}: holds no golden set or run YAML",
                    file=sys.stderr,
                )
                yield path, True  # reported as not formatted
            yield from ((p, False) for p in found)
        elif path.exists() or path.is_symlink():
            yield path, True
        else:
            raise UsageError(f"{path} does not exist")


def _one(path: Path, explicit: bool, config: Config, args: argparse.Namespace, root: Path) -> str:
    """Format (or check) one file; what became of it."""
    from ..core.base.boundary import Boundary
    from ..core.base.files import MAX_TEXT_BYTES, OutputRefused, read_regular, write_output
    from ..ide.formatting import reformatted

    if path.is_dir():
        return "not formatted"
    shown = log_text(path)
    if not args.allow_outside and Boundary.of([root]).resolve(path) is None:
        return _refused(shown, "it leads outside the current folder, so it is not read")
    data, problem = read_regular(path, MAX_TEXT_BYTES + 1)
    if data is None or len(data) > MAX_TEXT_BYTES:
        return _refused(shown, problem or f"larger than {MAX_TEXT_BYTES >> 20} MiB")
    try:
        text = data.decode("utf-8")  # a byte order mark stays: U+FEFF, written back as it was
    except UnicodeDecodeError as exc:
        return _refused(shown, f"not UTF-8 (at byte {exc.start}), so it is not rewritten")
    done = reformatted(path, text, config)
    if done is None:
        return _refused(
            shown,
            "not a golden set or run YAML by its name (the `golden` and "
            "`runs` globs), so there is nothing to format",
        )
    if done.problem is not None:
        where = ""
        if done.at is not None:
            line, column = _place(text, done.at.start)
            where = f":{line}:{column}"
        return _refused(f"{shown}{where}", log_text(done.problem))
    if done.text == text:
        return "unchanged"
    if args.diff:
        _print_diff(path, text, done.text)
    if args.check or args.diff:
        print(f"would reformat {shown}", file=sys.stderr)
        return "would reformat"
    try:
        write_output(path, done.text, inside=current_folder(), keep_mode=True)
    except (OutputRefused, OSError) as exc:
        return _refused(shown, f"not written: {exc}")
    print(f"reformatted {shown}", file=sys.stderr)
    return "reformatted"


def _refused(shown: str, why: str) -> str:
    print(f"qrels-lsp fmt: {shown}: not formatted: {why}", file=sys.stderr)
    return "not formatted"


def _place(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``offset``, as `check` prints them."""
    from ..core.base.text import LineIndex

    line, column = LineIndex(text).position(offset)
    return line + 1, column + 1


def _print_diff(path: Path, old: str, new: str) -> None:
    """A unified diff, each line escaped for a terminal or CI log (a line of the file may hold
    anything); a last line without a line break is marked as git marks it."""
    import difflib

    name = path.as_posix()
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"a/{name}",
        f"b/{name}",
    )
    for line in lines:
        bare = line.rstrip("\r\n")
        print(log_text(bare))
        if bare == line and line[:1] in " +-" and not line.startswith(("--- ", "+++ ")):
            print("\\ No newline at end of file")
