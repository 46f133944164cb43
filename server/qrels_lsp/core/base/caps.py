"""How long a name, an id or a setting's value may be: every such cap, in one place.

The text of a workspace, its settings and the command line may be hostile, and a value far
longer than any real one multiplies the work of everything that reads it ("did you mean"
compares ids in pairs, a hover quotes them, BM25 searches a question, a message repeats a name).
No real data comes near these caps: an id is a few dozen characters, a question a sentence or a
paragraph. A value over its cap is not used, and says so: QR007 where a file holds it, QR403 for
a setting, exit 2 for the command line.
"""

from __future__ import annotations

MAX_METRIC_NAME = 200
"""A metric as written (``ndcg_cut.10``, ``RBP(rel=2, p=0.8)@10``)."""
MAX_ID = 4096
"""A query or document id, a tag, a run's name."""
MAX_QUESTION = 64 * 1024
"""A question's text."""
MAX_SETTING = 4096
"""A setting's text: a glob, a path, a run's name, a check code."""
MAX_MESSAGE = 4096
"""A finding's message: one that quotes a hostile value (a TREC run's megabyte id) shows its
start and its end, not megabytes in every diagnostic, log line and pop-up."""


def shortened(message: str) -> str:
    """``message`` within :data:`MAX_MESSAGE` characters: its middle cut out."""
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE + 60
    return f"{message[: MAX_MESSAGE - 1060]} … ({cut:,} characters) … {message[-1000:]}"


def too_long(what: str, length: int, cap: int) -> str:
    """The message for a value over its cap (the value itself is not quoted: it is the problem)."""
    return f"{what} is {length:,} characters long, more than the {cap:,} it may be"
