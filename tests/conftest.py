"""Shared test paths and the split between the default run and the slow one.

Paths: the real evaluation data lives in the checkout, under tests/data: unchanged copies of
public IR test files (trec_eval, PyTerrier, ir_measures, the Vaswani collection), each with its
source and licence in tests/data/README.md. It is inside the repository so that a clone runs its
tests alone; nothing a test reads may lie outside the checkout (tests/test_self_contained.py
checks the sources for paths that climb out).

Runs: plain ``pytest`` leaves out the tests marked slow (pyproject's addopts) and draws a fifth of
each property test's examples; ``pytest -m slow`` runs the slow tests and, marked slow for that
run, every property test again at its full count. So the default run stays a few minutes on a
2-core machine, and nothing loses its power: CI runs both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test

# The thread-ownership checks (core/base/owner.py) are on for the tests and for every server and
# command they start: a structure touched from a thread that does not own it raises.
os.environ["QRELS_LSP_CHECK_THREADS"] = "1"

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = ROOT / "tests" / "data"  # public data shared with upstream projects, copied here
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"

assert TEST_DATA.resolve().is_relative_to(ROOT), f"test data must lie in the checkout {ROOT}"
assert TEST_DATA.is_dir(), f"the test data is expected at {TEST_DATA}"

THOROUGH = False  # whether this is the slow run; set by pytest_configure before any test imports


def pytest_configure(config: pytest.Config) -> None:
    """The slow run is the one whose mark expression asks for slow tests (``-m slow``, the last
    ``-m`` wins over addopts' ``-m "not slow"``)."""
    global THOROUGH
    expression = config.getoption("markexpr") or ""
    THOROUGH = "slow" in expression and "not slow" not in expression


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (addopts): the fast suite on every core; the slow run one test at a time, as
    its bounded tests time their own subprocesses, which a second worker would slow down."""
    expression = config.getoption("markexpr") or ""
    return 0 if "slow" in expression and "not slow" not in expression else None


def examples(full: int) -> int:
    """How many examples a property test draws: ``full`` in the slow run, a fifth (at least 2)
    in the default run, where each property is a quick smoke test."""
    return full if THOROUGH else max(2, full // 5)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In the slow run every property test is also slow, so ``-m slow`` runs it at full count.
    tryfirst: before pytest's own hook deselects by mark."""
    if THOROUGH:
        for item in items:
            if isinstance(item, pytest.Function) and is_hypothesis_test(item.obj):
                item.add_marker(pytest.mark.slow)
