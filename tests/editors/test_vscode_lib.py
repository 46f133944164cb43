"""The VS Code extension's helpers under node's test runner: lib.js (the server lookup, settings,
the selector) and bundled.js (the bundled server's environment, with fake interpreters)."""

from __future__ import annotations

import shutil

from .conftest import ROOT, need, run


def test_extension_helpers() -> None:
    node = need("node", shutil.which("node"))
    proc = run(
        [node, "--test", "--test-reporter=tap", "test/lib.test.js", "test/bundled.test.js"],
        timeout=120,
        cwd=ROOT / "editors" / "vscode",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout
