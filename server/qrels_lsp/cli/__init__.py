"""The ``qrels-lsp`` command: one module per subcommand, each a thin shell over the core (the
same parsers, checks and metrics the language server uses, so CI and the editor never disagree).
Imports are local to each command so that ``check`` does not pay for pygls, and ``serve`` starts
as fast as a bare server."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from .. import __version__
from . import (
    bm25,
    check,
    compare,
    convert,
    demo,
    diff,
    fmt,
    fuse,
    gate,
    lock,
    pool,
    report,
    score,
    serve,
)
from .common import UsageError, check_arguments, log_text

COMMANDS = (
    check,
    score,
    compare,
    diff,
    gate,
    pool,
    lock,
    report,
    fuse,
    bm25,
    convert,
    fmt,
    demo,
    serve,
)
NAMES = {command.__name__.rpartition(".")[2]: command for command in COMMANDS}


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser, or, given a command's name, one with that command's
    arguments only (its usage and help are the same): a command's ``add`` may import what its
    defaults are (the gate's come from the core), and ``serve``, whose start the editor waits
    for, pays for none of the others'."""
    p = argparse.ArgumentParser(
        prog="qrels-lsp",
        description="Check and score retrieval evaluation files: golden sets, runs, TREC qrels.",
    )
    p.add_argument("--version", action="version", version=f"qrels-lsp {__version__}")
    sub = p.add_subparsers(dest="command")
    for name, module in NAMES.items():
        if command in (None, name):
            module.add(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # The subcommands' modules bring in most of the core, whose hundreds of classes and tables
    # live as long as the process: collecting while they are made walks them again and again
    # (a tenth of the language server's start-up). The collector is back on before any work.
    argv = sys.argv[1:] if argv is None else list(argv)
    gc.disable()
    try:
        p = parser(argv[0] if argv and argv[0] in NAMES else None)
    finally:
        gc.enable()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return 2
    try:
        check_arguments(args, argv)
        return int(args.func(args))
    except UsageError as exc:
        print(f"qrels-lsp {args.command}: {log_text(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `qrels-lsp score ... | head`
        return 0
