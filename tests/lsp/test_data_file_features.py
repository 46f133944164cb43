"""What users expect of any data-file server (yaml-language-server, taplo), end to end over stdio:
folding ranges, selection ranges, document links, semantic tokens, and workspace diagnostics for
clients that pull. Expected values come from the files themselves (PyYAML's own composer, the
corpus folder's listing, the lines of TREC files), never from the server's model."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
import yaml
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from yaml_oracle import comment_runs, golden_grades, judged_kind, region_folds, retrieved_kind

from .conftest import SERVER, Workspace, open_doc, position_of, units

GOLDEN = "support.qrels.yaml"
DENSE = "runs/dense.run.yaml"
HYBRID = "runs/hybrid.trec"


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


# -- folding ---------------------------------------------------------------------------------


async def folding(client: LanguageClient, uri: str) -> list[types.FoldingRange]:
    got = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=doc(uri))
    )
    return list(got or [])


def _regions(ranges: list[types.FoldingRange]) -> set[tuple[int, int]]:
    return {(r.start_line, r.end_line) for r in ranges if r.kind == "region"}


@pytest.mark.asyncio
async def test_golden_set_folds_each_entry_and_relevant_block(
    client: LanguageClient, ws: Workspace
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    got = await folding(client, uri)
    assert _regions(got) == region_folds(text, "queries")
    assert {(r.start_line, r.end_line) for r in got if r.kind == "comment"} == comment_runs(text)
    # one spot, as a reader would check it: add-satellite's entry and its three-line list
    lines = text.splitlines()
    entry = next(i for i, t in enumerate(lines) if t.startswith("  add-satellite:"))
    relevant = next(i for i in range(entry, len(lines)) if lines[i].strip() == "relevant:")
    assert (relevant, relevant + 3) in _regions(got)


@pytest.mark.asyncio
async def test_runs_fold_each_ranking(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(DENSE)
    got = await folding(client, await open_doc(client, ws, DENSE))
    assert _regions(got) == region_folds(text, "results")
    # a TREC run: each query's lines (they follow one another in the demo's run)
    trec = ws.text(HYBRID)
    got = await folding(client, await open_doc(client, ws, HYBRID, language="trec-run"))
    lines: dict[str, list[int]] = {}
    for i, line in enumerate(trec.splitlines()):
        if line.strip() and not line.startswith("#"):
            lines.setdefault(line.split()[0], []).append(i)
    assert _regions(got) == {(v[0], v[-1]) for v in lines.values() if len(v) > 1}
    assert len(_regions(got)) >= 30


@pytest.mark.asyncio
async def test_interleaved_trec_queries_are_not_folded(
    client: LanguageClient, ws: Workspace
) -> None:
    """Folding a query whose lines are interleaved with another's would hide the other's."""
    text = (
        "q1 Q0 d1 1 3.0 r\nq2 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq3 Q0 d1 1 1.0 r\nq3 Q0 d2 2 0.5 r\n"
    )
    got = await folding(client, await open_doc(client, ws, "mixed.trec", text, "trec-run"))
    assert _regions(got) == {(3, 4)}


# -- selection ranges ------------------------------------------------------------------------


def _chain(sel: types.SelectionRange) -> list[types.Range]:
    out = []
    node: types.SelectionRange | None = sel
    while node is not None:
        out.append(node.range)
        node = node.parent
    return out


def _text_of(text: str, rng: types.Range, encoding: str) -> str:
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        n = 0
        while n < len(line) and units(line[:n], encoding) < p.character:
            n += 1
        return before + n

    return text[offset(rng.start) : offset(rng.end)]


async def selections(
    client: LanguageClient, uri: str, positions: list[types.Position]
) -> list[types.SelectionRange]:
    got = await client.text_document_selection_range_async(
        types.SelectionRangeParams(text_document=doc(uri), positions=positions)
    )
    assert got is not None and len(got) == len(positions)
    return list(got)


@pytest.mark.asyncio
async def test_selection_grows_id_judgment_relevant_entry(
    client: LanguageClient, ws: Workspace
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    at = position_of(text, "kb/account-login-problems.md: 3", ws.encoding, delta=3)
    [sel] = await selections(client, uri, [at])
    chain = [_text_of(text, r, ws.encoding) for r in _chain(sel)]
    entry_start = text.index("  cant-login-app:") + 2
    entry_end = text.index("kb/two-factor-authentication.md: 1") + len(
        "kb/two-factor-authentication.md: 1"
    )
    relevant_start = text.index("relevant:", entry_start)
    wanted = [
        "kb/account-login-problems.md",
        "kb/account-login-problems.md: 3",
        text[relevant_start:entry_end],  # the `relevant:` block
        text[entry_start:entry_end],  # the question's entry
        text,
    ]
    positions = [chain.index(w) for w in wanted]  # each is in the chain ...
    assert positions == sorted(positions)  # ... innermost first
    for inner, outer in itertools.pairwise(chain):
        assert inner in outer and inner != outer
    # a top-level key above the questions, and one below them
    text += "description: the demo's golden set\n"
    uri = await open_doc(client, ws, "copy.qrels.yaml", text)
    top = position_of(text, "corpus: corpus/", ws.encoding, delta=10)
    tail = position_of(text, "the demo's golden set", ws.encoding, delta=4)
    [head_sel, tail_sel] = await selections(client, uri, [top, tail])
    assert [_text_of(text, r, ws.encoding) for r in _chain(head_sel)][:2] == [
        "corpus/",
        "corpus: corpus/",
    ]
    assert [_text_of(text, r, ws.encoding) for r in _chain(tail_sel)][:2] == [
        "the demo's golden set",
        "description: the demo's golden set",
    ]


@pytest.mark.asyncio
async def test_selection_in_a_trec_run(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(HYBRID)
    uri = await open_doc(client, ws, HYBRID, language="trec-run")
    line = text.splitlines()[2]
    at = position_of(text, line, ws.encoding, delta=line.index(line.split()[2]) + 2)
    [sel] = await selections(client, uri, [at])
    chain = [_text_of(text, r, ws.encoding) for r in _chain(sel)]
    qid = line.split()[0]
    block = "\n".join(t for t in text.splitlines() if t.split()[:1] == [qid])
    assert chain[:3] == [line.split()[2], line, block]
    assert chain[-1] == text


# -- document links --------------------------------------------------------------------------


async def document_links(client: LanguageClient, uri: str) -> list[types.DocumentLink]:
    got = await client.text_document_document_link_async(
        types.DocumentLinkParams(text_document=doc(uri))
    )
    return list(got or [])


@pytest.mark.asyncio
async def test_golden_set_links_each_id_to_its_file(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    got = await document_links(client, uri)
    corpus = ws.root / "corpus"
    files = {str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file()}
    linked = Counter((_text_of(text, k.range, ws.encoding), k.target) for k in got)
    judged: Counter[tuple[str, str]] = Counter()
    for entry in yaml.safe_load(text)["queries"].values():
        relevant = (entry or {}).get("relevant") or []
        grades = dict.fromkeys(relevant, 1) if isinstance(relevant, list) else relevant
        for doc_id in relevant:  # (a grade typed as text, QR103, is no judgment: not linked)
            if doc_id in files and isinstance(grades[doc_id], int):
                judged[(doc_id, (corpus / doc_id).as_uri())] += 1
    assert linked == judged
    assert not any("e1107-weak-backhual" in k.target for k in got if k.target)  # QR106: no file


@pytest.mark.asyncio
async def test_paths_are_linked_inside_the_workspace_only(
    client: LanguageClient, ws: Workspace, workspace_root: Path
) -> None:
    """`corpus:` (a file), a `runs:` entry naming one file and a run's `qrels:` link to their
    files; a glob, a path out of the workspace and a missing file do not."""
    (workspace_root / "docs.jsonl").write_text(
        '{"_id": "a", "text": "alpha"}\n{"_id": "b", "text": "beta"}\n', encoding="utf-8"
    )
    outside = workspace_root.parent / "outside.trec"
    outside.write_text("q1 Q0 a 1 1.0 r\n", encoding="utf-8")
    golden = (
        "corpus: docs.jsonl\n"
        f"runs: [runs/hybrid.trec, 'runs/*.run.yaml', {outside}, ../outside.trec, runs/none.trec]\n"
        "queries:\n  q1: {question: hi, relevant: [a]}\n"
    )
    uri = await open_doc(client, ws, "small.qrels.yaml", golden)
    got = {
        _text_of(golden, k.range, ws.encoding): k.target for k in await document_links(client, uri)
    }
    assert got == {
        "docs.jsonl": (workspace_root / "docs.jsonl").as_uri(),
        "runs/hybrid.trec": (workspace_root / "runs" / "hybrid.trec").as_uri(),
    }
    dense = ws.text(DENSE)
    run_uri = await open_doc(client, ws, DENSE)
    [link] = await document_links(client, run_uri)
    assert _text_of(dense, link.range, ws.encoding) == "../support.qrels.yaml"
    assert link.target == (workspace_root / GOLDEN).as_uri()


# -- semantic tokens -------------------------------------------------------------------------


def legend(client: LanguageClient) -> list[str]:
    """The token types the server announced in its initialize result."""
    provider = client.init_result.capabilities.semantic_tokens_provider  # type: ignore[attr-defined]
    assert provider.full is True and provider.range is True
    return list(provider.legend.token_types)


def decode(
    data: list[int], text: str, types_: list[str], encoding: str
) -> list[tuple[int, str, str]]:
    """(line, text of the token, type) of each token."""
    lines = text.splitlines()
    out, line, col = [], 0, 0
    for i in range(0, len(data), 5):
        dl, dc, length, kind, _mods = data[i : i + 5]
        line += dl
        col = dc if dl else col + dc
        source = lines[line]
        start = next(n for n in range(len(source) + 1) if units(source[:n], encoding) >= col)
        end = next(
            n for n in range(start, len(source) + 1) if units(source[start:n], encoding) >= length
        )
        out.append((line, source[start:end], types_[kind]))
    return out


async def semantic(client: LanguageClient, uri: str, rng: types.Range | None = None) -> list[int]:
    if rng is None:
        got = await client.text_document_semantic_tokens_full_async(
            types.SemanticTokensParams(text_document=doc(uri))
        )
    else:
        got = await client.text_document_semantic_tokens_range_async(
            types.SemanticTokensRangeParams(text_document=doc(uri), range=rng)
        )
    assert got is not None
    return list(got.data)


@pytest.fixture
def corpus_ids(workspace_root: Path) -> set[str]:
    corpus = workspace_root / "corpus"
    return {str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file()}


@pytest.mark.asyncio
async def test_golden_set_ids_are_coloured_by_judgment(
    client: LanguageClient, ws: Workspace, corpus_ids: set[str]
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    types_ = legend(client)
    got = Counter(
        (t, kind)
        for _line, t, kind in decode(await semantic(client, uri), text, types_, ws.encoding)
    )
    expected: Counter[tuple[str, str]] = Counter()
    for qid, grades in golden_grades(text).items():
        entry = yaml.safe_load(text)["queries"][qid]
        listed = entry.get("relevant") if entry else None
        for doc_id in listed or []:
            kind = judged_kind(grades[doc_id], doc_id in corpus_ids)
            if kind is not None:  # (QR103: a grade typed as text is no judgment)
                expected[(doc_id, kind)] += 1
    assert got == expected
    assert {"relevantDocument", "unknownDocument"} <= {k for _t, k in got}


@pytest.mark.asyncio
async def test_run_ids_are_coloured_by_the_golden_set(
    client: LanguageClient, ws: Workspace, corpus_ids: set[str]
) -> None:
    grades = golden_grades(ws.text(GOLDEN))
    text = ws.text(DENSE)
    uri = await open_doc(client, ws, DENSE)
    types_ = legend(client)
    got = Counter(
        (t, k) for _l, t, k in decode(await semantic(client, uri), text, types_, ws.encoding)
    )
    expected: Counter[tuple[str, str]] = Counter()
    for qid, ranking in yaml.safe_load(text)["results"].items():
        judged = grades.get(qid, {})
        for doc_id in ranking:
            expected[(doc_id, retrieved_kind(judged.get(doc_id), doc_id in corpus_ids))] += 1
    assert got == expected
    assert len({k for _t, k in got}) >= 2


@pytest.mark.asyncio
async def test_trec_run_fields_are_typed(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(HYBRID)
    uri = await open_doc(client, ws, HYBRID, language="trec-run")
    types_ = legend(client)
    got = decode(await semantic(client, uri), text, types_, ws.encoding)
    by_line: dict[int, list[tuple[str, str]]] = {}
    for line, t, kind in got:
        by_line.setdefault(line, []).append((t, kind))
    data_lines = [i for i, t in enumerate(text.splitlines()) if t.strip() and not t.startswith("#")]
    assert sorted(by_line) == data_lines
    first = text.splitlines()[data_lines[0]].split()
    assert [t for t, _k in by_line[data_lines[0]]] == first
    roles = [k for _t, k in by_line[data_lines[0]]]
    assert roles[:2] == ["variable", "keyword"] and roles[3:] == ["number", "number", "string"]
    assert roles[2].endswith("Document")
    # a range request answers the lines asked for, the same tokens as the whole file's
    rng = types.Range(
        start=types.Position(line=10, character=0), end=types.Position(line=20, character=0)
    )
    part = decode(await semantic(client, uri, rng), text, types_, ws.encoding)
    assert part == [t for t in got if 10 <= t[0] < 20]


@pytest.mark.asyncio
async def test_token_columns_count_in_the_clients_encoding(
    client: LanguageClient, ws: Workspace
) -> None:
    text = 'corpus: corpus/\nqueries:\n  q1: {question: "🙂 wifi 🙂", relevant: [kb/guest-network.md, kb/nope.md]}\n'
    uri = await open_doc(client, ws, "emoji.qrels.yaml", text)
    got = decode(await semantic(client, uri), text, legend(client), ws.encoding)
    assert got == [
        (2, "kb/guest-network.md", "relevantDocument"),
        (2, "kb/nope.md", "unknownDocument"),
    ]


# -- workspace diagnostics (clients that pull) -------------------------------------------------


def pulling_capabilities() -> types.ClientCapabilities:
    """VS Code's recorded capabilities with the pull model vscode-languageclient 9 announces."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
        dynamic_registration=True, related_document_support=False
    )
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def puller(lsp_client: LanguageClient, workspace_root: Path) -> Any:
    for method in (
        types.CLIENT_REGISTER_CAPABILITY,
        types.WORKSPACE_CODE_LENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
    ):
        lsp_client.feature(method)(lambda *args: None)
    lsp_client.set_configuration({"bm25_baseline": False}, section="qrels")
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pulling_capabilities(),
            initialization_options={"qrels": {"bm25_baseline": False}},
            root_uri=workspace_root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace_root.as_uri(), name="ws")],
        )
    )
    lsp_client.init_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def workspace_pull(
    client: LanguageClient, previous: dict[str, str] | None = None
) -> dict[str, Any]:
    got = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri=u, value=v) for u, v in (previous or {}).items()
            ]
        )
    )
    return {item.uri: item for item in got.items}


def check_json(workspace_root: Path, *files: str) -> dict[str, set[tuple[int, str]]]:
    """`qrels-lsp check --format json` of the files, (line, code) per file: the oracle."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "check", "--format", "json", *files],
        capture_output=True, text=True, cwd=workspace_root, timeout=120, check=False,
    )  # fmt: skip
    found: dict[str, set[tuple[int, str]]] = {}
    for f in json.loads(out.stdout)["findings"]:
        found.setdefault(str((workspace_root / f["path"]).resolve()), set()).add(
            (f["line"] - 1, f["code"])
        )
    return found


@pytest.mark.asyncio
async def test_workspace_diagnostics_report_the_files_not_open(
    puller: LanguageClient, workspace_root: Path
) -> None:
    client = puller
    options = client.init_result.capabilities.diagnostic_provider  # type: ignore[attr-defined]
    assert options.workspace_diagnostics is True
    golden = workspace_root / GOLDEN
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=golden.as_uri(), language_id="yaml", version=1,
                                   text=golden.read_text(encoding="utf-8"))
        )
    )  # fmt: skip
    first = await workspace_pull(client)
    files = ("runs/bm25.run.yaml", DENSE, HYBRID, "runs/passages.run.yaml")  # (a run of chunks)
    runs = {workspace_root / r for r in files}
    assert set(first) == {p.as_uri() for p in runs}  # the open golden set is the document pull's
    oracle = check_json(workspace_root, ".")  # the whole workspace, as the editor sees it
    for path in runs:
        report = first[path.as_uri()]
        assert report.kind == "full"
        got = {(d.range.start.line, d.code) for d in report.items}
        assert got == oracle.get(str(path.resolve()), set()), path
    assert any(first[p.as_uri()].items for p in runs)
    # asked again with the result ids: unchanged, nothing analysed again
    again = await workspace_pull(client, {u: r.result_id for u, r in first.items()})
    assert {r.kind for r in again.values()} == {"unchanged"}
    # a run edited on disk (and said so): reported again, with its new findings
    dense = workspace_root / DENSE
    dense.write_text(dense.read_text(encoding="utf-8") + "  ghost-query: [kb/dns-settings.md]\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=dense.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    third = await workspace_pull(client, {u: r.result_id for u, r in first.items()})
    assert third[dense.as_uri()].kind == "full"
    assert "QR201" in {d.code for d in third[dense.as_uri()].items}
    # a run deleted: its diagnostics are cleared
    hybrid = workspace_root / HYBRID
    hybrid.unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=hybrid.as_uri(), type=types.FileChangeType.Deleted)]
        )
    )
    fourth = await workspace_pull(client, {u: r.result_id for u, r in third.items()})
    assert fourth[hybrid.as_uri()].kind == "full" and not fourth[hybrid.as_uri()].items
