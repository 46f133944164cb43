"""Every check code, each declared by the module that reports it (``declare`` in
``base/findings.py``): the formats' parsers, the content checks and the project. Importing this
module imports them all, so :data:`CODES` is the whole table (the README's, the editors' links).
"""

from __future__ import annotations

from . import checks, formats  # noqa: F401  (they declare their codes on import)
from .base.findings import CODES, CheckCode
from .project import config, project  # noqa: F401  (project imports every part)

__all__ = ["CODES", "CheckCode"]
