"""Formatting, in editor terms: the edits that format a golden set or run YAML, for the
editor's Format Document and Format Selection and for ``qrels-lsp fmt``.

The file's kind comes from its name (the ``golden`` and ``runs`` globs), the style from the
configuration's ``format`` table; the work is the format's own formatter
(``core/formats/yaml_format.py``). A file it cannot format (a syntax error, a wrong shape) gets
no edit and the reason, which the command line prints and the editor is not bothered with.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.formats import Format, detect_by_name

if TYPE_CHECKING:
    from ..core.base.text import Span
    from ..core.formats.yaml_format import Reformatted
    from ..core.project.config import Config


def formatter(path: Path, config: Config) -> Format | None:
    """The format of ``path`` when it has a formatter (golden sets and run YAML)."""
    fmt = detect_by_name(path, config)
    return fmt if isinstance(fmt, Format) and fmt.reformat is not None else None


def reformatted(
    path: Path, text: str, config: Config, within: Span | None = None
) -> Reformatted | None:
    """``text`` (the file at ``path``) formatted with the configuration's style; only the
    questions ``within`` touches when it is given. None: not a file qrels-lsp formats."""
    fmt = formatter(path, config)
    if fmt is None or fmt.reformat is None:
        return None
    return fmt.reformat(text, config.format, within)
