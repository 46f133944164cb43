"""What a golden set or run YAML holds, read with PyYAML's own composer and loader: the oracle for
the folds and colours the server and the editors show (never the server's own model)."""

from __future__ import annotations

from typing import Any

import yaml


def last_line(node: yaml.Node) -> int:
    """The line of a node's last character (a block collection's end mark is the next token)."""
    if isinstance(node, yaml.MappingNode):
        return last_line(node.value[-1][1]) if node.value else node.start_mark.line
    if isinstance(node, yaml.SequenceNode) and not node.flow_style:
        return last_line(node.value[-1]) if node.value else node.start_mark.line
    end = node.end_mark
    return end.line if end.column > 0 else end.line - 1


def comment_runs(text: str) -> set[tuple[int, int]]:
    """Two or more lines in a row holding only a comment."""
    out, start = set(), None
    lines = text.splitlines()
    for i, line in enumerate([*lines, ""]):
        if line.strip().startswith("#"):
            start = i if start is None else start
        else:
            if start is not None and i - 1 > start:
                out.add((start, i - 1))
            start = None
    return out


def region_folds(text: str, top: str) -> set[tuple[int, int]]:
    """(first, last) line of the ``top`` mapping (`queries`, `results`), of each multi-line entry
    under it and of each multi-line `relevant:` in an entry."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    assert isinstance(root, yaml.MappingNode)
    key, mapping = next((k, v) for k, v in root.value if k.value == top)
    assert isinstance(mapping, yaml.MappingNode)
    out = {(key.start_mark.line, last_line(mapping))}
    for k, entry in mapping.value:
        if last_line(entry) > k.start_mark.line:
            out.add((k.start_mark.line, last_line(entry)))
        if isinstance(entry, yaml.MappingNode):
            for ek, ev in entry.value:
                if ek.value == "relevant" and last_line(ev) > ek.start_mark.line:
                    out.add((ek.start_mark.line, last_line(ev)))
    return out


def golden_grades(text: str) -> dict[str, dict[str, Any]]:
    """query -> document -> grade as written (a list: grade 1)."""
    out = {}
    for qid, entry in yaml.safe_load(text)["queries"].items():
        relevant = (entry or {}).get("relevant") or []
        out[qid] = dict.fromkeys(relevant, 1) if isinstance(relevant, list) else relevant
    return out


def judged_kind(grade: Any, in_corpus: bool) -> str | None:
    """The semantic token type of a golden set's id (None: a grade typed as text, no judgment)."""
    if not isinstance(grade, int):
        return None
    if not in_corpus:
        return "unknownDocument"
    return "relevantDocument" if grade >= 1 else "irrelevantDocument"


def retrieved_kind(grade: Any, in_corpus: bool) -> str:
    """The semantic token type of a run's id, from the golden set's grade for its query."""
    if not in_corpus:
        return "unknownDocument"
    if not isinstance(grade, int):
        return "unjudgedDocument"
    return "relevantDocument" if grade >= 1 else "irrelevantDocument"
