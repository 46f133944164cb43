"""The types of the semantic tokens ``tokens.py`` makes, in the order the language server's
legend declares them (a token's type is its index here). A module of its own: the server
declares the legend when it answers ``initialize``, before the core is imported."""

from __future__ import annotations

TOKEN_TYPES = (
    "relevantDocument",
    "irrelevantDocument",
    "unjudgedDocument",
    "unknownDocument",
    "variable",
    "keyword",
    "number",
    "string",
)
