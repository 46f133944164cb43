"""Code actions and rename end to end (VS Code, Neovim 0.11, Emacs 29 capabilities): every quick
fix the demo offers, "judge this document" from YAML and TREC runs for every layout of
`relevant:`, and renaming a query id across a golden set and its three runs. Each edit is applied
in the client's encoding, the result re-parsed with yaml.safe_load / str.split, and every line
outside the intended change compared byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from .applyedits import apply_workspace_edit, changed_lines
from .conftest import Workspace, diagnostics, open_doc, position_of, range_of

GOLDEN = "support.qrels.yaml"
RUNS = [
    "runs/bm25.run.yaml",
    "runs/dense.run.yaml",
    "runs/hybrid.trec",
    "runs/passages.run.yaml",  # a run of chunks: `kb/x.md#3` (the golden set's `chunks:`)
]


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def actions_at(
    client: LanguageClient,
    uri: str,
    rng: types.Range,
    diags: list[types.Diagnostic] | None = None,
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=diags or [], only=only),  # type: ignore[arg-type]
        )
    )
    out = []
    for a in result or []:
        assert isinstance(a, types.CodeAction)
        out.append(a)
    return out


# -- quick fixes -----------------------------------------------------------------------------

LINE_CHANGES = {
    "Remove the second `setup/adding-a-satellite-node.md`": (
        ["      - setup/adding-a-satellite-node.md  # demo: QR102\n"],
        [],
    ),
    "Replace with `errors/e1107-weak-backhaul.md`": (
        ["      errors/e1107-weak-backhual.md: 1  # demo: QR106\n"],
        ["      errors/e1107-weak-backhaul.md: 1  # demo: QR106\n"],
    ),
    "Replace with `errors/e1042-firmware-mismatch.md`": (
        ["      errors/e1107-weak-backhual.md: 1  # demo: QR106\n"],
        ["      errors/e1042-firmware-mismatch.md: 1  # demo: QR106\n"],
    ),
    "Replace with `errors/e2210-pppoe-authentication.md`": (
        ["      errors/e1107-weak-backhual.md: 1  # demo: QR106\n"],
        ["      errors/e2210-pppoe-authentication.md: 1  # demo: QR106\n"],
    ),
    "Mark `eero-mix` as unanswerable": ([], ["    unanswerable: true\n"]),
    "Write the grade as the integer 2": (
        ['      kb/factory-reset.md: "2"  # demo: QR103\n'],
        ["      kb/factory-reset.md: 2  # demo: QR103\n"],
    ),
    "Remove `unanswerable: true`": (["    unanswerable: true  # demo: QR105\n"], []),
}


def expected_queries(title: str, before: dict[str, Any]) -> dict[str, Any]:
    """The golden set's queries after the fix, built from the original by hand."""
    q = yaml.safe_load(yaml.safe_dump(before))
    if title.startswith("Remove the second"):
        q["add-satellite"]["relevant"] = q["add-satellite"]["relevant"][:2]
    elif title.startswith("Replace with"):
        new = title.split("`")[1]
        rel = q["slow-far-room"]["relevant"]
        q["slow-far-room"]["relevant"] = {
            (new if d == "errors/e1107-weak-backhual.md" else d): g for d, g in rel.items()
        }
    elif title.startswith("Mark"):
        q["eero-mix"]["unanswerable"] = True
    elif title.startswith("Write the grade"):
        q["e5012-settings"]["relevant"]["kb/factory-reset.md"] = 2
    elif title.startswith("Remove `unanswerable"):
        del q["outdoor-node"]["unanswerable"]
    return q


@pytest.mark.asyncio
async def test_every_demo_fix_applies_exactly(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    diags = await diagnostics(client, uri, version=1)
    text = ws.text(GOLDEN)
    before = yaml.safe_load(text)
    seen: list[str] = []
    for diag in diags:
        for action in await actions_at(client, uri, diag.range, [diag], ["quickfix"]):
            if list(action.diagnostics or []) != [diag]:
                continue  # another finding on the same line
            assert action.kind == types.CodeActionKind.QuickFix
            assert action.edit is not None and action.edit.document_changes
            change = action.edit.document_changes[0]
            assert isinstance(change, types.TextDocumentEdit)
            assert change.text_document.version == 1
            new = apply_workspace_edit(action.edit, {uri: text}, ws.encoding)[uri]
            assert changed_lines(text, new) == LINE_CHANGES[action.title], action.title
            after = yaml.safe_load(new)
            assert after["queries"] == expected_queries(action.title, before["queries"])
            assert {k: v for k, v in after.items() if k != "queries"} == {
                k: v for k, v in before.items() if k != "queries"
            }
            seen.append(action.title)
    assert sorted(seen) == sorted(LINE_CHANGES)
    preferred = await actions_at(
        client, uri, range_of(text, "errors/e1107-weak-backhual.md", ws.encoding)
    )
    assert [a.is_preferred for a in preferred if a.title.startswith("Replace")] == [
        True,
        None,
        None,
    ]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_only_filter_and_empty_places(client: LanguageClient, ws: Workspace) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    text = ws.text(GOLDEN)
    rng = range_of(text, "errors/e1107-weak-backhual.md", ws.encoding)
    assert await actions_at(client, uri, rng, only=["refactor"]) == []
    quiet = range_of(text, "kb/local-admin-page.md", ws.encoding)
    assert await actions_at(client, uri, quiet) == []


# -- judging from a run ----------------------------------------------------------------------

JUDGE_GOLDEN = """\
# Judge fixture: one query per layout of `relevant:`.
corpus: corpus/
runs: [judge.run.yaml]
queries:
  flow-list:  # flow
    question: how can visitors get on the wifi
    relevant: [kb/factory-reset.md, "kb/dynamic-dns.md"]  # keep me
  block-list:
    question: how can visitors get on the wifi
    relevant:
      - kb/factory-reset.md  # first
      - 'kb/dynamic-dns.md'
  flow-map:
    question: how can visitors get on the wifi
    relevant: {kb/factory-reset.md: 2}
  block-map:
    question: how can visitors get on the wifi
    relevant:
      kb/factory-reset.md: 3   # strong
      kb/dynamic-dns.md: 1
  no-relevant:
    question: how can visitors get on the wifi  # nobody linked it yet
  # trailing comment
"""

JUDGE_RUN = """\
qrels: judge.qrels.yaml
results:
  flow-list: [kb/guest-network.md, kb/factory-reset.md]
  block-list: [kb/guest-network.md, kb/factory-reset.md]
  flow-map: [kb/guest-network.md, kb/factory-reset.md]
  block-map: [kb/guest-network.md, kb/factory-reset.md]
  no-relevant: [kb/guest-network.md, kb/factory-reset.md]
"""

NEW = "kb/guest-network.md"


def judged_after(qid: str, grade: int) -> Any:
    """The query's `relevant:` after judging NEW with ``grade``, built by hand."""
    start: dict[str, Any] = {
        "flow-list": ["kb/factory-reset.md", "kb/dynamic-dns.md"],
        "block-list": ["kb/factory-reset.md", "kb/dynamic-dns.md"],
        "flow-map": {"kb/factory-reset.md": 2},
        "block-map": {"kb/factory-reset.md": 3, "kb/dynamic-dns.md": 1},
        "no-relevant": [],
    }
    rel = start[qid]
    if isinstance(rel, list) and grade == 1:
        return [*rel, NEW]
    if isinstance(rel, list):
        return {**dict.fromkeys(rel, 1), NEW: grade}
    return {**rel, NEW: grade}


EXPECTED_LINES = {
    ("flow-list", 1): (
        ['    relevant: [kb/factory-reset.md, "kb/dynamic-dns.md"]  # keep me\n'],
        [
            '    relevant: [kb/factory-reset.md, "kb/dynamic-dns.md", kb/guest-network.md]  # keep me\n'
        ],
    ),
    ("flow-list", 2): (
        ['    relevant: [kb/factory-reset.md, "kb/dynamic-dns.md"]  # keep me\n'],
        [
            '    relevant: {kb/factory-reset.md: 1, "kb/dynamic-dns.md": 1, kb/guest-network.md: 2}'
            "  # keep me\n"
        ],
    ),
    ("block-list", 1): ([], ["      - kb/guest-network.md\n"]),
    ("block-list", 2): (
        ["      - kb/factory-reset.md  # first\n", "      - 'kb/dynamic-dns.md'\n"],
        [
            "      kb/factory-reset.md: 1  # first\n",
            "      'kb/dynamic-dns.md': 1\n",
            "      kb/guest-network.md: 2\n",
        ],
    ),
    ("flow-map", 1): (
        ["    relevant: {kb/factory-reset.md: 2}\n"],
        ["    relevant: {kb/factory-reset.md: 2, kb/guest-network.md: 1}\n"],
    ),
    ("block-map", 1): ([], ["      kb/guest-network.md: 1\n"]),
    ("no-relevant", 1): ([], ["    relevant: [kb/guest-network.md]\n"]),
    ("no-relevant", 2): ([], ["    relevant: {kb/guest-network.md: 2}\n"]),
}


def expected_lines(qid: str, grade: int) -> tuple[list[str], list[str]]:
    if (qid, grade) in EXPECTED_LINES:
        return EXPECTED_LINES[(qid, grade)]
    if qid in ("flow-list", "block-list", "no-relevant"):
        removed, added = EXPECTED_LINES[(qid, 2)]
        return removed, [line.replace(f"{NEW}: 2", f"{NEW}: {grade}") for line in added]
    removed, added = EXPECTED_LINES[(qid, 1)]
    return removed, [line.replace(f"{NEW}: 1", f"{NEW}: {grade}") for line in added]


@pytest.mark.asyncio
async def test_judge_actions_for_every_layout(client: LanguageClient, ws: Workspace) -> None:
    (ws.root / "judge.qrels.yaml").write_text(JUDGE_GOLDEN, encoding="utf-8")
    (ws.root / "judge.run.yaml").write_text(JUDGE_RUN, encoding="utf-8")
    golden_uri = ws.uri("judge.qrels.yaml")
    run_uri = await open_doc(client, ws, "judge.run.yaml")
    await diagnostics(client, run_uri, version=1)
    before = yaml.safe_load(JUDGE_GOLDEN)["queries"]
    for n, qid in enumerate(before):
        rng = range_of(JUDGE_RUN, NEW, ws.encoding, occurrence=n)
        actions = await actions_at(client, run_uri, rng)
        assert [a.title for a in actions] == [
            f"Judge `{NEW}` as relevant (grade 1) for `{qid}`",
            f"Judge `{NEW}` as relevant (grade 2) for `{qid}`",
            f"Judge `{NEW}` as relevant (grade 3) for `{qid}`",
            f"Judge `{NEW}` as not relevant (grade 0) for `{qid}`",
        ]
        for action, grade in zip(actions, (1, 2, 3, 0), strict=True):
            assert action.kind == types.CodeActionKind.RefactorRewrite
            assert action.edit is not None and action.edit.document_changes
            [change] = action.edit.document_changes
            assert isinstance(change, types.TextDocumentEdit)
            assert change.text_document.uri == golden_uri
            assert change.text_document.version is None  # not open: the file on disk
            new = apply_workspace_edit(action.edit, {golden_uri: JUDGE_GOLDEN}, ws.encoding)
            text = new[golden_uri]
            assert changed_lines(JUDGE_GOLDEN, text) == expected_lines(qid, grade), (qid, grade)
            after = yaml.safe_load(text)["queries"]
            assert after[qid]["relevant"] == judged_after(qid, grade)
            assert {q: v for q, v in after.items() if q != qid} == {
                q: v for q, v in before.items() if q != qid
            }
        # An id the golden set already judges for this query gets no judge action.
        judged = range_of(JUDGE_RUN, "kb/factory-reset.md", ws.encoding, occurrence=n)
        expected = 4 if qid == "no-relevant" else 0
        assert len(await actions_at(client, run_uri, judged)) == expected


@pytest.mark.asyncio
async def test_judge_from_trec_run_into_demo(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/hybrid.trec"
    text = ws.text(rel)
    run_uri = await open_doc(client, ws, rel, language="plaintext")
    await diagnostics(client, run_uri, version=1)
    line = "cant-login-app Q0 errors/e2210-pppoe-authentication.md 2"
    rng = range_of(text, "errors/e2210-pppoe-authentication.md", ws.encoding)
    assert position_of(text, line, ws.encoding).line == rng.start.line
    actions = await actions_at(client, run_uri, rng)
    action = next(a for a in actions if "(grade 2)" in a.title)
    golden_uri = ws.uri(GOLDEN)
    golden = ws.text(GOLDEN)
    assert action.edit is not None
    new = apply_workspace_edit(action.edit, {golden_uri: golden}, ws.encoding)[golden_uri]
    assert changed_lines(golden, new) == ([], ["      errors/e2210-pppoe-authentication.md: 2\n"])
    after = yaml.safe_load(new)["queries"]["cant-login-app"]["relevant"]
    assert after == {
        "kb/account-login-problems.md": 3,
        "kb/two-factor-authentication.md": 1,
        "errors/e2210-pppoe-authentication.md": 2,
    }


# -- rename ------------------------------------------------------------------------------------


def trec_qids(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines() if line.strip()]


async def rename_at(
    client: LanguageClient, uri: str, pos: types.Position, new: str
) -> types.WorkspaceEdit | None:
    return await client.text_document_rename_async(
        types.RenameParams(text_document=doc(uri), position=pos, new_name=new)
    )


def check_renamed(ws: Workspace, edit: types.WorkspaceEdit, old: str, new: str) -> None:
    files = [GOLDEN, *RUNS]
    texts = {ws.uri(f): ws.text(f) for f in files}
    out = apply_workspace_edit(edit, texts, ws.encoding)
    assert set(out) == set(texts)
    for f in files:
        before, after = texts[ws.uri(f)], out[ws.uri(f)]
        removed, added = changed_lines(before, after)
        assert removed and [r.replace(old, new, 1) for r in removed] == added, f
        if f.endswith(".trec"):
            assert trec_qids(after) == [new if q == old else q for q in trec_qids(before)]
            continue
        section = "queries" if f == GOLDEN else "results"
        b, a = yaml.safe_load(before), yaml.safe_load(after)
        assert list(a[section]) == [new if q == old else q for q in b[section]]
        assert list(a[section].values()) == list(b[section].values())
        assert {k: v for k, v in a.items() if k != section} == {
            k: v for k, v in b.items() if k != section
        }


@pytest.mark.asyncio
async def test_rename_from_golden_set_reaches_every_run(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    text = ws.text(GOLDEN)
    at = position_of(text, "  cant-login-app:", ws.encoding, delta=5)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=at)
    )
    assert prepared == types.PrepareRenamePlaceholder(
        range=range_of(text, "cant-login-app", ws.encoding), placeholder="cant-login-app"
    )
    question = position_of(text, "cant log into the lumen app", ws.encoding, delta=3)
    refused = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=question)
    )
    assert refused is None
    edit = await rename_at(client, uri, at, "login-after-reset")
    assert edit is not None
    check_renamed(ws, edit, "cant-login-app", "login-after-reset")
    versions = {
        c.text_document.uri: c.text_document.version
        for c in edit.document_changes or []
        if isinstance(c, types.TextDocumentEdit)
    }
    assert versions[uri] == 1
    assert {u: v for u, v in versions.items() if u != uri} == dict.fromkeys(
        [ws.uri(r) for r in RUNS], None
    )


@pytest.mark.asyncio
@pytest.mark.slow
async def test_rename_from_trec_run(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/hybrid.trec"
    uri = await open_doc(client, ws, rel, language="plaintext")
    await diagnostics(client, uri, version=1)
    text = ws.text(rel)
    at = position_of(text, "e1042-node Q0", ws.encoding, occurrence=3, delta=2)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=at)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "e1042-node"
    assert prepared.range == range_of(text, "e1042-node", ws.encoding, occurrence=3)
    edit = await rename_at(client, uri, at, "e1042-replacement")
    assert edit is not None
    check_renamed(ws, edit, "e1042-node", "e1042-replacement")


@pytest.mark.asyncio
async def test_rename_from_yaml_run_and_refusals(client: LanguageClient, ws: Workspace) -> None:
    rel = "runs/dense.run.yaml"
    uri = await open_doc(client, ws, rel)
    await diagnostics(client, uri, version=1)
    text = ws.text(rel)
    at = position_of(text, "  e3050-used-hub:", ws.encoding, delta=3)
    edit = await rename_at(client, uri, at, "used-hub-e3050")
    assert edit is not None
    check_renamed(ws, edit, "e3050-used-hub", "used-hub-e3050")
    for taken, where in (("browser-admin", GOLDEN), ("ipv6", "dense.run.yaml")):
        with pytest.raises(Exception) as refused:
            await rename_at(client, uri, at, taken)
        message = str(refused.value)
        assert f"`{taken}` is already a query id in {Path(where).name}" in message
        assert "pick another id" in message
    with pytest.raises(Exception) as bad:
        await rename_at(client, uri, at, "has space")
    assert "is not a valid query id" in str(bad.value)
