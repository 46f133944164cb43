"""Writing a string into YAML: the one place that decides how a value is quoted.

Judgments added by the judge action, renamed query ids and converted files all write ids and
questions a user typed; each must read back as exactly the same string, and should look as a person
would have written it (plain when that is safe).
"""

from __future__ import annotations

import json

from ...base.text import Span
from .tree import implicit_type

_PLAIN_FIRST_BAD = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_BAD = set(",[]{}")


def yaml_scalar(value: str, *, flow: bool = False) -> str:
    """``value`` as a YAML scalar that reads back as the same string: plain when safe, else a
    JSON string (valid YAML). ``flow``: inside ``[...]`` or ``{...}``, where commas and brackets
    end a plain scalar."""
    plain = (
        bool(value)
        and value == value.strip()
        and value[0] not in _PLAIN_FIRST_BAD
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
        and "\t" not in value
        and "\n" not in value
        and "\r" not in value
        and value.isprintable()
        and not (flow and _FLOW_BAD & set(value))
        and implicit_type(value) == "str"
    )
    return value if plain else json.dumps(value, ensure_ascii=False)


def rewrite_scalar(text: str, span: Span, new: str) -> str:
    """What to write over the scalar at ``span`` (its characters, inside any quotes) so that it
    reads ``new``, keeping the quoting style the user chose."""
    quote = text[span.start - 1] if span.start > 0 else ""
    if quote in ("'", '"') and text[span.end : span.end + 1] == quote:
        return in_quotes(new, quote)
    return yaml_scalar(new)


def in_quotes(value: str, quote: str) -> str:
    """``value`` written between ``quote``s (`"` or `'`) so that it reads back the same."""
    if quote == '"':
        return json.dumps(value, ensure_ascii=False)[1:-1]
    return value.replace("'", "''")


def yaml_float(x: float) -> str:
    """``x`` as a YAML 1.1 float that reads back as the same double: Python's shortest repr,
    with the dot and exponent sign YAML 1.1 needs (``1e-05`` would read as a string there)."""
    if x != x:
        return ".nan"
    if x in (float("inf"), float("-inf")):
        return ".inf" if x > 0 else "-.inf"
    text = repr(x)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if e and exponent[:1] not in "+-":
        exponent = "+" + exponent
    return mantissa + (f"e{exponent}" if e else "")
