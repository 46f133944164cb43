"""Shared test paths. Real data is read from ../shared/data beside the checkout, never copied."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"

assert SHARED_DATA.is_dir(), f"the shared test data is expected at {SHARED_DATA}"
