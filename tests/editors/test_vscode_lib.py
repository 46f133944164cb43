"""The VS Code extension's pure helpers (editors/vscode/lib.js) under node's test runner."""

from __future__ import annotations

import shutil

from .conftest import ROOT, need, run


def test_extension_helpers() -> None:
    node = need("node", shutil.which("node"))
    proc = run(
        [node, "--test", "--test-reporter=tap", "test/lib.test.js"],
        timeout=120,
        cwd=ROOT / "editors" / "vscode",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout
