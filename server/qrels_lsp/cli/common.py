"""What every command shares: where its workspace is, which configuration and boundary apply,
how it writes a file, progress on a terminal, and quoting untrusted text for a terminal or CI
log."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..core.base.boundary import Boundary
    from ..core.chunks import ChunkRule
    from ..core.metrics import RunCut
    from ..core.project.config import Config


class UsageError(Exception):
    """A mistake in how the command was called: exit code 2."""


def log_text(text: object) -> str:
    """Untrusted text (ids, questions, file names, messages quoting them) for the terminal or a
    CI log, where a line starting with ``::`` is a GitHub workflow command (core/base/escape.py)."""
    from ..core.base.escape import for_log

    return for_log(str(text))


def positive_option(value: int | None, option: str) -> None:
    """A count given on the command line (``-k``, ``--depth``): positive, and at most 2^53
    (``core/model.py``'s INT_LIMIT: a 309-digit one would overflow a float)."""
    from ..core.model import INT_LIMIT

    if value is not None and not 1 <= value <= INT_LIMIT:
        raise UsageError(f"{option} must be a positive integer, at most 2^53 ({INT_LIMIT:,})")


def check_arguments(args: argparse.Namespace, argv: Sequence[str]) -> None:
    """Every text given on the command line (a name, a list of metrics or codes, a path) at most
    4,096 characters (``core/base/caps.py``): a longer one is a mistake or an attack, and would
    cost every message and search that reads it. And every path one the system can look at, or
    that is not there: a name too long for it, or under a folder that cannot be searched, is a
    usage error here, not a traceback from wherever the command first asks if it exists."""
    from ..core.base.caps import MAX_SETTING, too_long

    for dest, value in vars(args).items():
        option = "--" + dest.replace("_", "-")
        name = option if any(a.startswith(option) for a in argv) else f"the argument `{dest}`"
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (str, Path)) and len(str(item)) > MAX_SETTING:
                raise UsageError(too_long(name, len(str(item)), MAX_SETTING))
            if isinstance(item, Path):
                _lookable(item, name)


def _lookable(path: Path, name: str) -> None:
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"{name}: cannot look at {log_text(path)}: {why}") from None


def allow_outside(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-outside",
        action="store_true",
        help="let the paths named here and the files' own paths (corpus, runs, qrels, topics) "
        "lead outside the current folder; off by default, as a repository under test may be "
        "hostile",
    )


def by_tag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--by",
        choices=["tag"],
        help=f"also per tag (the golden set's `tags:`): {what}; a tag's questions alone, as "
        "if the golden set held no others",
    )


def current_folder() -> Path:
    """The current folder as the shell names it (``$PWD``, when that is it: a path typed through
    the same symlinked folder is then inside), else as the system does."""
    here = Path.cwd()
    shell = os.environ.get("PWD", "")
    with contextlib.suppress(OSError, ValueError):
        if os.path.isabs(shell) and os.path.samefile(shell, here):
            return Path(shell)
    return here


def workspace_of(args: argparse.Namespace, named: Sequence[Path]) -> list[Path]:
    """The command line's workspace: the current folder, and only it. A path named on the
    command line (a golden set, a run, a folder to check) that resolves outside it is refused
    unless ``--allow-outside``: a checkout's ``evals -> ../..`` would otherwise make ``check
    evals/`` read the folders above it, and print their file names in "did you mean"."""
    from ..core.base.boundary import Boundary

    root = current_folder()
    if not getattr(args, "allow_outside", False):
        inside = Boundary.of([root])
        for path in named:
            if inside.resolve(path) is None:
                raise UsageError(
                    f"{path} leads outside the current folder ({root}), so it is not read: "
                    "pass --allow-outside to read it"
                )
    return [root]


@contextlib.contextmanager
def output(path: Path, *, append: bool = False, errors: str = "strict") -> Iterator[TextIO]:
    """A file the command writes (``-o``, ``--topics``, ``--summary``), streamed: refused when a
    symlink is at its name or one in the current folder leads it out (core/base/files.py), and
    complete or not there when the command stops. A refusal or an I/O error is a usage error."""
    from ..core.base.files import OutputRefused
    from ..core.base.files import output as opened

    try:
        with opened(path, append=append, inside=current_folder(), errors=errors) as f:
            yield f
    except OutputRefused as exc:  # it names the path, and the target a symlink leads to
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_file(path: Path, text: str, *, errors: str = "strict") -> None:
    """``text`` written to ``path`` as :func:`output` writes."""
    with output(path, errors=errors) as f:
        f.write(text)


def config_for(explicit: Path | None, near: Path, workspace: Sequence[Path] = ()) -> Config:
    from ..core.project.config import load_config, load_config_file

    if explicit is not None:  # named by the user: theirs, so trusted to widen the boundary
        if not explicit.is_file():
            raise UsageError(f"config file {explicit} does not exist")
        return load_config_file(explicit)
    return load_config(near.resolve(), workspace)


def boundary_for(args: argparse.Namespace, config: Config, workspace: Sequence[Path]) -> Boundary:
    from ..core.base.boundary import Boundary

    if getattr(args, "allow_outside", False) or config.allow_anywhere:
        return Boundary.everywhere()
    return Boundary.of(workspace, config.allow_outside)


def progress_on(stream: TextIO = sys.stderr) -> Callable[[str, int, int], None] | None:
    """Progress on a terminal, nothing on a pipe or in CI logs."""
    if not stream.isatty():
        return None

    def report(what: str, done: int, total: int) -> None:
        end = "\n" if total and done >= total else ""
        stream.write(f"\r{what}: {done:,}/{total:,}" + " " * 8 + end)
        stream.flush()

    return report


def cut_options(p: argparse.ArgumentParser) -> None:
    """trec_eval's ``-M N`` and ``-J``, named as it names them (core/metrics/cut.py)."""
    p.add_argument(
        "-M",
        "--depth",
        dest="cut_depth",
        metavar="N",
        type=int,
        help="evaluate only the first N documents of each ranking (trec_eval -M)",
    )
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="remove the documents not judged (or judged negative) from each ranking before "
        "evaluating it (trec_eval -J)",
    )


def cut_of(args: argparse.Namespace) -> RunCut | None:
    """The cut ``-M``/``-J`` ask for (None: neither); a bad depth is a usage error."""
    from ..core.metrics import RunCut

    depth = getattr(args, "cut_depth", None)
    judged_only = bool(getattr(args, "judged_only", False))
    positive_option(depth, "-M")
    return RunCut(depth, judged_only) if depth is not None or judged_only else None


def chunk_options(p: argparse.ArgumentParser) -> None:
    """``--chunks SEP`` / ``--chunk-pattern RE``: the runs' ids are chunks of documents."""
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--chunks",
        metavar="SEP",
        help="the runs' ids are chunks: the document's id is what comes before SEP "
        "(`--chunks '#'` reads kb/x.md#3 as kb/x.md); each document counts once, at its first chunk",
    )
    group.add_argument(
        "--chunk-pattern",
        metavar="RE",
        help="the same with a regular expression (RE2) whose named group `doc` is the document's "
        "id, e.g. '(?P<doc>.+)::p[0-9]+'",
    )


def chunk_rule(args: argparse.Namespace) -> ChunkRule | None:
    """The rule ``--chunks`` or ``--chunk-pattern`` gives (None: neither); a bad one is a usage
    error."""
    from ..core.chunks import ChunkRule, rule_problem

    separator = getattr(args, "chunks", None)
    pattern = getattr(args, "chunk_pattern", None)
    if separator is None and pattern is None:
        return None
    problem = rule_problem(separator, pattern)
    if problem is not None:
        option = "--chunks" if separator is not None else "--chunk-pattern"
        raise UsageError(
            f"{option}: {problem.replace('`separator`', 'the separator').replace('`pattern`', 'the pattern')}"
        )
    origin = f"--chunks {separator}" if separator is not None else f"--chunk-pattern {pattern}"
    return ChunkRule(separator, pattern, origin=origin)


MAX_WALKED = 1_000_000
"""Files and folders a command given a folder (`check FOLDER`, `fmt FOLDER`) looks at before it
stops (and says so)."""


def files_of_ours(folder: Path, config: Config, command: str) -> list[Path]:
    """The files under ``folder`` whose names make them ours (``core/project/walk.py``), and a
    word on stderr when the walk stopped at its cap."""
    from ..core.project.walk import MAX_CHECK_ENTRIES
    from ..core.project.walk import files_of_ours as walk

    found, stopped = walk(folder, config)
    if stopped:
        print(
            f"qrels-lsp {command}: {log_text(folder)}: stopped after {MAX_CHECK_ENTRIES:,} files "
            "and folders; name the folders that hold the evaluation files",
            file=sys.stderr,
        )
    return found
