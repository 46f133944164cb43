"""An unknown metric in qrels-lsp.toml, end to end: the configuration's diagnostic offers the
closest names as quick fixes on that file, which no analysis holds, and the preferred one
writes a name the configuration then reads without a finding."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient
from qrels_lsp.core.project.config import parse_config_text

from .applyedits import apply_workspace_edit
from .conftest import EXAMPLES, Workspace, diagnostics, range_of
from .test_actions import actions_at

CONFIG = 'k = 5\nmetrics = ["recall@5", "nDGC@10", "mrr"]\n'


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    (root / "qrels-lsp.toml").write_text(CONFIG, encoding="utf-8")
    return root


@pytest.mark.asyncio
async def test_unknown_metric_offers_the_closest_names(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = ws.uri("qrels-lsp.toml")
    [diag] = [d for d in await diagnostics(client, uri) if d.code == "QR401"]
    assert "did you mean ndcg@10?" in diag.message
    assert diag.range == range_of(CONFIG, "nDGC@10", ws.encoding)  # on the name, not the key
    actions = await actions_at(client, uri, range_of(CONFIG, "nDGC@10", ws.encoding), [diag])
    [preferred] = [a for a in actions if a.is_preferred]
    assert preferred.title == "Change to ndcg@10" and preferred.edit is not None
    fixed = apply_workspace_edit(preferred.edit, {uri: CONFIG}, ws.encoding)[uri]
    assert fixed == 'k = 5\nmetrics = ["recall@5", "ndcg@10", "mrr"]\n'
    assert not parse_config_text(fixed, ws.root / "qrels-lsp.toml").findings
