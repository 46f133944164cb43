"""How the formatter writes a golden set or run YAML: the ``format`` setting.

Read from ``qrels-lsp.toml`` (``[format]``) and the editor's settings (``qrels.format``) by
``core/project/config.py``, which reports a bad value and keeps the default in its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

RelevantStyle = Literal["keep", "list", "flow", "block", "mapping"]

RELEVANT_STYLES: dict[str, str] = {
    "keep": "as written",
    "list": "a flow list `[a, b]` when every grade is 1, else a mapping, one document a line "
    "(as `convert` writes)",
    "flow": "on one line: `[a, b]` when every grade is 1, else `{a: 2, b: 1}`",
    "block": "one document a line: `- a` when every grade is 1, else `a: 2`",
    "mapping": "one document a line with its grade, `a: 1` too",
}
FORMAT_KEYS: dict[str, str] = {
    "sort_queries": "Sort the questions of golden sets and the queries of runs by id (numbers "
    "in ids by value: q2 before q10). Default false: they keep their order.",
    "relevant": "How each `relevant:` is written: "
    + "; ".join(f'"{name}" {what}' for name, what in RELEVANT_STYLES.items())
    + '. Default "keep".',
}
assert set(RELEVANT_STYLES) == set(get_args(RelevantStyle))


@dataclass(frozen=True, slots=True)
class FormatSettings:
    sort_queries: bool = False
    relevant: RelevantStyle = "keep"


def format_settings(value: Any, base: FormatSettings) -> tuple[FormatSettings, list[str]]:
    """The ``format`` table over ``base`` (the keys it gives replace base's), and what is wrong
    with it (each bad key keeps base's value)."""
    if not isinstance(value, Mapping):
        return base, ['expected a table such as {sort_queries = false, relevant = "keep"}']
    problems: list[str] = []
    given: dict[str, Any] = {}
    unknown = [key for key in value if key not in FORMAT_KEYS]
    if unknown:  # named in one message, the first few: a hostile table may have thousands
        shown = ", ".join(
            "".join(c if c.isprintable() else "?" for c in str(k)[:80]) for k in unknown[:5]
        )
        more = f" and {len(unknown) - 5:,} more" if len(unknown) > 5 else ""
        problems.append(f"unknown keys {shown}{more}; known: {', '.join(FORMAT_KEYS)}")
    sort = value.get("sort_queries")
    if isinstance(sort, bool):
        given["sort_queries"] = sort
    elif "sort_queries" in value:
        problems.append("`sort_queries`: expected true or false")
    relevant = value.get("relevant")
    if isinstance(relevant, str) and relevant in RELEVANT_STYLES:
        given["relevant"] = relevant
    elif "relevant" in value:
        problems.append(f"`relevant`: expected one of {', '.join(RELEVANT_STYLES)}")
    return replace(base, **given), problems
