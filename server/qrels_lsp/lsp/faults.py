"""Fault injection for the robustness tests, read once from the environment: file names whose
first analysis raises (so that the crash report and the retry can be seen end to end), and, as
`thread:NAME`, a planted race: the loop reads the project when NAME is refreshed, as a bug
would, so that a test sees the thread checks (core/base/owner.py) catch it. Empty in normal
use."""

from __future__ import annotations

import os

FAULT_ENV = "QRELS_LSP_INJECT_FAULT"
FAULTS = frozenset(filter(None, os.environ.get(FAULT_ENV, "").split(",")))
RACES = frozenset(f.removeprefix("thread:") for f in FAULTS if f.startswith("thread:"))
