"""`qrels-lsp serve`: the language server, over stdio (or a TCP socket)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    UsageError,
)


def add(sub: Any) -> None:
    """The ``serve`` subcommand's arguments."""
    srv = sub.add_parser("serve", help="start the language server (stdio by default)")
    srv.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    srv.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    srv.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import os

    # One BLAS thread (set before numpy is imported): the comparison's matrix products share two
    # cores with the event loop and the editor, and OpenBLAS threads that spin-wait for a core
    # made one comparison of 10,000 questions take 36 s instead of 4 on a busy machine.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")

    # lsprotocol builds thousands of long-lived objects at import: collecting while they are made
    # only walks them again and again. They are frozen out of every later collection instead.
    from ..lsp.heap import kept_for_good

    with kept_for_good():
        from ..lsp.server import serve

    host, port = None, None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not port_text.isdigit():
            raise UsageError("--tcp expects HOST:PORT")
        port = int(port_text)
    serve(host=host or None, port=port)
    return 0
