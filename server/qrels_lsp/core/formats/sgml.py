"""TREC's SGML-like blocks (``<DOC>...</DOC>`` in corpora, ``<top>...</top>`` in topics), found in
one pass over their tags.

What ``<DOC>(.*?)(?:</DOC>|(?=<DOC>)|\\Z)`` found with a lazy body and a lookahead: a block opens
at a tag, and ends at the first closing tag, or just before the next opening one (it is then not
closed), or at the end of the text; a closing tag outside a block is ignored.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..base.patterns import Match, Pattern


class Block(NamedTuple):
    start: int  # the opening tag's start
    body: int  # the body's start (after the opening tag)
    body_end: int
    end: int  # after the closing tag, or where the body ends when it has none
    closed: bool


def blocks(text: str, tags: Pattern[str]) -> Iterator[Block]:
    """The blocks of ``text``; ``tags`` finds the opening and closing tags, its group 1 empty for
    an opening one and ``/`` for a closing one."""
    opened: Match[str] | None = None
    for tag in tags.finditer(text):
        if tag.group(1):
            if opened is not None:
                yield Block(opened.start(), opened.end(), tag.start(), tag.end(), True)
                opened = None
        else:
            if opened is not None:
                yield Block(opened.start(), opened.end(), tag.start(), tag.start(), False)
            opened = tag
    if opened is not None:
        yield Block(opened.start(), opened.end(), len(text), len(text), False)
