"""The files of a folder that are ours by name (golden sets, runs, TREC/BEIR/JSON files): what
`check FOLDER` and the API's ``check`` look at."""

from __future__ import annotations

import os
from pathlib import Path

from ..formats import detect_by_name
from .config import Config

MAX_CHECK_ENTRIES = 1_000_000
"""Files and folders a walk looks at before it stops (and says so)."""


def files_of_ours(folder: Path, config: Config) -> tuple[list[Path], bool]:
    """The files under ``folder`` whose names make them ours, hidden folders and symlinked
    folders not entered (a link loop, or a link to ``/``, is not walked); and whether the walk
    stopped at :data:`MAX_CHECK_ENTRIES`."""
    found: list[Path] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > MAX_CHECK_ENTRIES:
            return sorted(found), True
        for name in filenames:
            candidate = Path(dirpath) / name
            if candidate.is_file() and detect_by_name(candidate, config) is not None:
                found.append(candidate)
    return sorted(found), False
