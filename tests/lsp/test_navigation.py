"""Go to definition, references, the outline and workspace symbols end to end, for VS Code,
Neovim 0.11 and Emacs 29 capabilities. Expected places are found in the files' text here."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, open_doc, position_of, range_of, units

GOLDEN = "support.qrels.yaml"
RUNS = [
    "runs/bm25.run.yaml",
    "runs/dense.run.yaml",
    "runs/hybrid.trec",
    "runs/passages.run.yaml",  # a run of chunks: `kb/x.md#3` (the golden set's `chunks:`)
]


def doc_params(uri: str, pos: types.Position) -> types.TextDocumentPositionParams:
    return types.TextDocumentPositionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos
    )


async def definition(client: LanguageClient, uri: str, pos: types.Position) -> list[types.Location]:
    got = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    if got is None:
        return []
    assert isinstance(got, list)
    return [loc for loc in got if isinstance(loc, types.Location)]


async def references(
    client: LanguageClient, uri: str, pos: types.Position, declaration: bool
) -> list[types.Location]:
    got = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=pos,
            context=types.ReferenceContext(include_declaration=declaration),
        )
    )
    return list(got or [])


def key(loc: types.Location) -> tuple[str, int, int, int, int]:
    r = loc.range
    return (loc.uri, r.start.line, r.start.character, r.end.line, r.end.character)


def chunk_ranges(text: str, doc: str, encoding: str) -> list[types.Range]:
    """Every chunk id `doc#N` written in a run of chunks (the key of a `chunk: score` line)."""
    out = []
    for i, line in enumerate(text.splitlines()):
        m = re.match(rf"^\s+({re.escape(doc)}#\d+):", line)
        if m:
            start = units(line[: m.start(1)], encoding)
            end = start + units(m.group(1), encoding)
            out.append(types.Range(types.Position(i, start), types.Position(i, end)))
    return out


def token_ranges(text: str, token: str, encoding: str) -> list[types.Range]:
    """Every place ``token`` is written as a whole id outside comments."""
    out = []
    for i, line in enumerate(text.splitlines()):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        for m in re.finditer(rf"(?<![\w/.-]){re.escape(token)}(?![\w/.-])", code):
            start = units(line[: m.start()], encoding)
            out.append(
                types.Range(
                    start=types.Position(i, start),
                    end=types.Position(i, start + units(token, encoding)),
                )
            )
    return out


def first_per_query_trec(text: str, doc: str, encoding: str) -> list[types.Range]:
    """A TREC run's retrievals of ``doc`` (the first per query: duplicates are not scored)."""
    seen = set()
    out = []
    for i, line in enumerate(text.splitlines()):
        parts = line.split()
        if len(parts) == 6 and parts[2] == doc and parts[0] not in seen:
            seen.add(parts[0])
            start = units(line[: line.index(f" {doc} ") + 1], encoding)
            out.append(
                types.Range(
                    types.Position(i, start), types.Position(i, start + units(doc, encoding))
                )
            )
    return out


@pytest.mark.asyncio
async def test_definition_of_a_document_opens_its_file(
    client: LanguageClient, ws: Workspace
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    doc = "kb/account-login-problems.md"
    start = range_of(text, doc, ws.encoding).start
    zero = types.Position(0, 0)
    want = [types.Location(uri=ws.uri(f"corpus/{doc}"), range=types.Range(zero, zero))]
    assert await definition(client, uri, start) == want
    run_text = ws.text(RUNS[2])
    run_uri = await open_doc(client, ws, RUNS[2], language="plaintext")
    assert await definition(client, run_uri, range_of(run_text, doc, ws.encoding).end) == want
    typo = range_of(text, "errors/e1107-weak-backhual.md", ws.encoding)
    assert await definition(client, uri, typo.start) == []


@pytest.mark.asyncio
@pytest.mark.slow
async def test_definition_of_a_run_query_is_its_golden_entry(
    client: LanguageClient, ws: Workspace
) -> None:
    golden = ws.text(GOLDEN)
    qid = "ethernet-backhaul"
    entry = range_of(golden, f"  {qid}:", ws.encoding)
    want = [
        types.Location(
            uri=ws.uri(GOLDEN),
            range=types.Range(
                types.Position(entry.start.line, entry.start.character + 2),
                types.Position(entry.end.line, entry.end.character - 1),
            ),
        )
    ]
    for rel, occurrence in ((RUNS[2], 2), (RUNS[1], 0)):
        text = ws.text(rel)
        uri = await open_doc(client, ws, rel)
        pos = range_of(text, qid, ws.encoding, occurrence=occurrence).start
        assert await definition(client, uri, pos) == want, rel
    dense = ws.text(RUNS[1])
    assert (
        await definition(
            client, ws.uri(RUNS[1]), position_of(dense, "  ipv6:", ws.encoding, delta=2)
        )
        == []
    )


@pytest.mark.asyncio
async def test_definition_into_a_jsonl_corpus_after_emoji(
    client: LanguageClient, ws: Workspace
) -> None:
    folder = ws.root / "jsonl"
    folder.mkdir()
    corpus = (
        json.dumps({"_id": "d1", "text": "plain"})
        + "\n"
        + json.dumps(
            {"title": "路由器😀 🙂", "_id": "d😀2", "text": "どうやって"}, ensure_ascii=False
        )
        + "\n"
    )
    (folder / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    golden = (
        "corpus: corpus.jsonl\nqueries:\n  q:\n    question: 🙂 where\n    relevant: [d1, d😀2]\n"
    )
    (folder / "g.qrels.yaml").write_text(golden, encoding="utf-8")
    uri = await open_doc(client, ws, "jsonl/g.qrels.yaml")
    got = await definition(client, uri, range_of(golden, "d😀2", ws.encoding).end)
    target = range_of(corpus, '"d😀2"', ws.encoding)
    inner = types.Range(
        types.Position(target.start.line, target.start.character + 1),
        types.Position(target.end.line, target.end.character - 1),
    )
    assert got == [types.Location(uri=ws.uri("jsonl/corpus.jsonl"), range=inner)]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=range_of(golden, "d😀2", ws.encoding).start,
        )
    )
    assert hover is not None
    assert hover.contents.value.startswith("**路由器😀 🙂**  \n`d😀2`\n")  # type: ignore[union-attr]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_definition_into_a_tsv_corpus_after_cjk(
    client: LanguageClient, ws: Workspace
) -> None:
    folder = ws.root / "tsv"
    folder.mkdir()
    corpus = "id\ttext\nd1\tplain\n  路由器😀\tどうやって 🙂\n"
    (folder / "corpus.tsv").write_bytes(corpus.encode("utf-8"))
    golden = "corpus: corpus.tsv\nqueries:\n  q:\n    relevant: [路由器😀]\n"
    (folder / "g.qrels.yaml").write_text(golden, encoding="utf-8")
    uri = await open_doc(client, ws, "tsv/g.qrels.yaml")
    got = await definition(client, uri, range_of(golden, "路由器😀", ws.encoding).start)
    assert got == [
        types.Location(
            uri=ws.uri("tsv/corpus.tsv"), range=range_of(corpus, "路由器😀", ws.encoding)
        )
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("declaration", [True, pytest.param(False, marks=pytest.mark.slow)])
async def test_references_of_a_document(
    client: LanguageClient, ws: Workspace, declaration: bool
) -> None:
    doc = "setup/node-placement-guide.md"
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    expected = [types.Location(uri=uri, range=r) for r in token_ranges(text, doc, ws.encoding)]
    assert len(expected) == 2
    for rel in RUNS:
        run_text = ws.text(rel)
        if rel.endswith(".trec"):
            ranges = first_per_query_trec(run_text, doc, ws.encoding)
        elif "passages" in rel:  # its chunks: whole ids `doc#N`, which the rule maps to doc
            ranges = chunk_ranges(run_text, doc, ws.encoding)
        else:
            ranges = token_ranges(run_text, doc, ws.encoding)
        assert ranges, rel
        expected += [types.Location(uri=ws.uri(rel), range=r) for r in ranges]
    if declaration:
        zero = types.Position(0, 0)
        expected.append(types.Location(ws.uri(f"corpus/{doc}"), types.Range(zero, zero)))
    got = await references(client, uri, range_of(text, doc, ws.encoding).start, declaration)
    assert sorted(map(key, got)) == sorted(map(key, expected))
    # The same answer from a run file.
    run_text = ws.text(RUNS[0])
    run_uri = await open_doc(client, ws, RUNS[0])
    got = await references(client, run_uri, range_of(run_text, doc, ws.encoding).end, declaration)
    assert sorted(map(key, got)) == sorted(map(key, expected))


@pytest.mark.asyncio
async def test_references_of_a_query(client: LanguageClient, ws: Workspace) -> None:
    qid = "e3050-used-hub"
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    pos = position_of(text, f"  {qid}:", ws.encoding, delta=2)
    expected = []
    for rel in [GOLDEN, *RUNS]:
        r = range_of(ws.text(rel), qid, ws.encoding)
        expected.append(types.Location(uri=ws.uri(rel), range=r))
    got = await references(client, uri, pos, True)
    assert sorted(map(key, got)) == sorted(map(key, expected))
    got = await references(client, uri, pos, False)
    assert sorted(map(key, got)) == sorted(map(key, expected[1:]))


@pytest.mark.asyncio
async def test_outline_of_golden_set_and_run(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols is not None
    data = yaml.safe_load(text)["queries"]
    assert [s.name for s in symbols] == list(data)
    for s in symbols:
        assert isinstance(s, types.DocumentSymbol)
        entry = range_of(text, f"\n  {s.name}:", ws.encoding)
        sel = types.Range(
            types.Position(entry.start.line + 1, 2),
            types.Position(entry.start.line + 1, 2 + units(s.name, ws.encoding)),
        )
        assert s.selection_range == sel
        assert s.range.start == sel.start
        rel = data[s.name].get("relevant") or []
        names = [c.name for c in s.children or []]
        if isinstance(rel, dict):  # a grade that is not an integer is reported, not judged
            assert names == [d for d, g in rel.items() if type(g) is int]
        else:
            assert names == [str(d) for d in rel]
        question = data[s.name].get("question")
        assert s.detail == (question[:80] + "…" if len(question) > 80 else question)
    by_name = {s.name: s for s in symbols}
    last_line = position_of(text, "relevant: [setup/wired-backhaul.md]", ws.encoding)
    assert by_name["ethernet-backhaul"].range.end.line == last_line.line
    run_text = ws.text(RUNS[2])
    run_uri = await open_doc(client, ws, RUNS[2], language="plaintext")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=run_uri))
    )
    assert symbols is not None
    qids = list(dict.fromkeys(line.split()[0] for line in run_text.splitlines() if line.strip()))
    assert [s.name for s in symbols] == qids
    eth = next(s for s in symbols if s.name == "ethernet-backhaul")
    assert isinstance(eth, types.DocumentSymbol)
    lines = [
        i for i, line in enumerate(run_text.splitlines()) if line.startswith("ethernet-backhaul ")
    ]
    assert eth.range.start == types.Position(lines[0], 0)
    assert eth.range.end.line == lines[-1]
    assert [c.detail for c in eth.children or []] == [f"#{i}" for i in range(1, len(lines) + 1)]
    # trec_eval's order (score, then id descending), not the written rank column.
    assert [c.name for c in eth.children or []][:3] == [
        run_text.splitlines()[lines[0]].split()[2],
        "setup/wired-backhaul.md",
        run_text.splitlines()[lines[1]].split()[2],
    ]


@pytest.mark.asyncio
async def test_workspace_symbols(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    await open_doc(client, ws, GOLDEN)
    data = yaml.safe_load(text)["queries"]
    every = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert every is not None
    assert [s.name for s in every] == list(data)
    for s in every:
        assert isinstance(s.location, types.Location)
        assert s.location.uri == ws.uri(GOLDEN)
        entry = range_of(text, f"\n  {s.name}:", ws.encoding)
        assert s.location.range == types.Range(
            types.Position(entry.start.line + 1, 2),
            types.Position(entry.start.line + 1, 2 + units(s.name, ws.encoding)),
        )
        assert s.container_name == GOLDEN
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ebay"))
    assert found is not None and "e3050-used-hub" in [s.name for s in found]
    assert all(
        "ebay" in (data[s.name].get("question") or "").lower() or _subsequence("ebay", s.name)
        for s in found
    )
    none = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zzzqqq"))
    assert not none


def _subsequence(needle: str, hay: str) -> bool:
    it = iter(hay.lower())
    return all(c in it for c in needle)
