"""The thread-ownership checks (core/base/owner.py): each mutable structure of the server has one
owning thread, and in the checking mode (on for the whole suite, and for every server it starts:
tests/conftest.py) a touch from another thread raises. Here a violation is planted, in core and
in the real server, and caught."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.base import owner
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.owner import Owner, OwnershipError
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project

GOLDEN = "support.qrels.yaml"


def on_thread(name: str, fn: object) -> BaseException | None:
    """Run ``fn`` on a thread called ``name``; what it raised, if anything."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            fn()  # type: ignore[operator]
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, name=name)
    thread.start()
    thread.join()
    return raised[0] if raised else None


def test_the_suite_runs_with_the_checks_on() -> None:
    assert owner.CHECKING


def test_an_owner_is_the_first_thread_to_touch_its_structure() -> None:
    guard = Owner("a cache")
    guard.check()  # the main thread touches it first: it is the owner
    guard.check()
    caught = on_thread("another", guard.check)
    assert isinstance(caught, OwnershipError) and "a cache" in str(caught)
    named = Owner("a named one", "qrels-analysis")  # or the thread it is told
    assert on_thread("qrels-analysis_0", named.check) is None
    with pytest.raises(OwnershipError, match="touched from MainThread"):
        named.check()


def test_a_project_given_to_the_analysis_thread_refuses_the_loop(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    project = Project(load_config(root), boundary=Boundary.of([root]))
    project.claim("qrels-analysis")
    golden = root / GOLDEN
    assert on_thread("qrels-analysis_0", lambda: project.analyse(golden)) is None
    with pytest.raises(OwnershipError, match="belongs to the qrels-analysis thread"):
        project.analyse(golden)  # the planted violation: the main thread (the event loop's)
    with pytest.raises(OwnershipError):
        project.forget(golden)


def test_the_server_reports_a_planted_race(tmp_path: Path) -> None:
    """The real server, started as the suite starts it: its loop touching the project (planted
    through the fault-injection variable) is reported, not silently allowed."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "lsp"))
    from raw import RawClient  # type: ignore[import-not-found]

    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    server = RawClient(root, env={"QRELS_LSP_INJECT_FAULT": f"thread:{GOLDEN}"})
    try:
        server.initialize({"qrels": {"bm25_baseline": False}})
        uri = (root / GOLDEN).as_uri()
        text = (root / GOLDEN).read_text(encoding="utf-8")
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        )
        message = server.wait_message(
            lambda m: (
                m.get("method") in ("window/logMessage", "window/showMessage")
                and "belongs to the qrels-analysis thread" in str(m.get("params"))
            )
        )
        assert "touched from MainThread" in str(message["params"])
    finally:
        server.close()
