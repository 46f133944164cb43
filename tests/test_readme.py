"""The README stays true: every check code, every setting, the two quick-start commands."""

from __future__ import annotations

import re

from conftest import ROOT
from qrels_lsp.core.codes import CODES
from qrels_lsp.core.project.config import SETTINGS

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_check_code_has_its_row() -> None:
    rows = {
        m.group(1): (m.group(2), m.group(3))
        for m in re.finditer(
            r"^\| <a id=\"qr\d+\"></a>`(QR\d+)` \| `([a-z0-9-]+)` \| (\w+) \|", README, re.M
        )
    }
    assert rows == {c.code: (c.name, c.severity.label) for c in CODES.values()}


def test_every_setting_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z_0-9]+)` \| ", README, re.M))
    assert set(SETTINGS) <= documented


def test_quick_start_commands() -> None:
    assert "pip install -e . && .venv/bin/qrels-lsp demo" in README
    assert "pip install -e '.[test]' && .venv/bin/python -m pytest" in README
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test]'" in ci and "python -m pytest" in ci


def test_every_setting_reaches_the_server_from_each_editor() -> None:
    """A setting the server reads but an editor does not pass on cannot be set in that editor."""
    lib = (ROOT / "editors" / "vscode" / "lib.js").read_text(encoding="utf-8")
    listed = re.search(r"const SERVER_SETTINGS = \[(.*?)\];", lib, re.S)
    assert listed is not None
    assert set(re.findall(r"'([a-z_0-9]+)'", listed.group(1))) == set(SETTINGS)
    package = (ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8")
    declared = set(re.findall(r'"qrels\.([a-z_0-9]+)": \{', package))
    assert set(SETTINGS) <= declared
