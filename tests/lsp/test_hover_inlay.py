"""Inlay hints and hover end to end, for VS Code, Neovim 0.11 and Emacs 29 capabilities.

Labels and numbers are computed here from the files themselves (yaml.safe_load, str.split) and
pytrec_eval, never from qrels-lsp's parsers or metrics.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytrec_eval
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import Workspace, diagnostics, open_doc, position_of, range_of, settled_lenses, units
from .oracle import demo_runs, golden_qrels

GOLDEN = "support.qrels.yaml"
RUNS = {"bm25": "runs/bm25.run.yaml", "dense": "runs/dense.run.yaml", "hybrid": "runs/hybrid.trec"}
# Every run of the golden set as the server lists them: the files (`passages` a run of chunks,
# scored by document) and the fused run `rrf` (tests/lsp/oracle.py says how each is made).
ALL_RUNS = ["bm25", "dense", "passages", "hybrid", "rrf"]
CUTOFFS = (1, 3, 5, 10, 20, 100)


def as_shown(markdown: str) -> str:
    """Markdown's text with its backslash escapes read (CommonMark: any ASCII punctuation)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def ranked(scores: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then document id descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda x: (x[1], x[0]), reverse=True)]


def judgment(grades: dict[str, int], doc: str) -> str:
    if doc not in grades:
        return "?"
    return f"✓{grades[doc]}" if grades[doc] >= 1 else f"✗{grades[doc]}"


def end_of(text: str, at: int, encoding: str) -> types.Position:
    line = text.count("\n", 0, at)
    return types.Position(
        line=line, character=units(text[text.rfind("\n", 0, at) + 1 : at], encoding)
    )


def whole(text: str) -> types.Range:
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=text.count("\n") + 1, character=0),
    )


async def hints(client: LanguageClient, uri: str, rng: types.Range) -> list[tuple[int, int, str]]:
    got = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=rng)
    )
    out = []
    for h in got or []:
        assert isinstance(h.label, str)
        out.append((h.position.line, h.position.character, h.label))
    return out


async def hover(client: LanguageClient, uri: str, pos: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )


def yaml_run_ids(text: str) -> list[tuple[str, str, int]]:
    """(qid, doc id, offset of the id's end) of a run YAML written one id per line."""
    out = []
    qid = None
    offset = 0
    for line in text.splitlines(keepends=True):
        if m := re.match(r"  ([^\s#][^:]*):\s*(#.*)?$", line):
            qid = m.group(1)
        elif qid and (m := re.match(r"    (?:- )?([^\s:#]+)", line)):
            out.append((qid, m.group(1), offset + m.end(1)))
        offset += len(line)
    return out


@pytest.mark.asyncio
async def test_run_hints_are_judgments(client: LanguageClient, ws: Workspace) -> None:
    qrels, _unanswerable, _k = golden_qrels(ws.root / GOLDEN)
    for rel in ("runs/dense.run.yaml", "runs/bm25.run.yaml"):
        text = ws.text(rel)
        uri = await open_doc(client, ws, rel)
        expected = sorted(
            (*_pos(end_of(text, end, ws.encoding)), judgment(qrels[qid], doc))
            for qid, doc, end in yaml_run_ids(text)
            if qid in qrels
        )
        assert len(expected) > 300
        assert sorted(await hints(client, uri, whole(text))) == expected
    assert {label for *_, label in expected} >= {"✓1", "✓3", "?"}


def _pos(p: types.Position) -> tuple[int, int]:
    return p.line, p.character


@pytest.mark.asyncio
@pytest.mark.slow
async def test_trec_run_hints_only_for_the_range(client: LanguageClient, ws: Workspace) -> None:
    rel = RUNS["hybrid"]
    text = ws.text(rel)
    qrels, _, _ = golden_qrels(ws.root / GOLDEN)
    uri = await open_doc(client, ws, rel, language="plaintext")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("ethernet-backhaul "))
    rng = types.Range(
        start=types.Position(line=first, character=0),
        end=types.Position(line=first + 2, character=0),
    )
    expected = []
    for i in range(first, first + 2):  # the range ends before the third line's id
        qid, _q0, doc, *_ = lines[i].split()
        col = units(lines[i][: lines[i].index(f" {doc} ") + 1 + len(doc)], ws.encoding)
        expected.append((i, col, judgment(qrels[qid], doc)))
    got = await hints(client, uri, rng)
    assert sorted(got) == sorted(expected)


@pytest.mark.asyncio
async def test_golden_hints_are_ranks_per_run(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    runs = demo_runs(ws.root)
    assert list(runs) == ALL_RUNS
    orders = {name: {q: ranked(s) for q, s in run.items()} for name, run in runs.items()}
    start = position_of(text, "\n  slow-far-room:", ws.encoding).line + 1
    end = position_of(text, "\n  ethernet-backhaul:", ws.encoding).line
    rng = types.Range(
        start=types.Position(line=start, character=0), end=types.Position(line=end, character=0)
    )
    block = "\n".join(text.splitlines()[start:end])
    docs = re.findall(r"^      (\S+): \d", block, re.M)
    assert docs == [
        "kb/slow-speeds-troubleshooting.md",
        "setup/node-placement-guide.md",
        "errors/e1107-weak-backhual.md",
    ]
    expected = []
    for doc in docs:
        p = range_of(text, f"      {doc}:", ws.encoding).end
        at = (p.line, p.character - units(":", ws.encoding))
        for name, order in orders.items():
            ranking = order.get("slow-far-room", [])
            label = f"#{ranking.index(doc) + 1} {name}" if doc in ranking else f"– {name}"
            expected.append((*at, label))
    assert await hints(client, uri, rng) == expected
    assert any(label.startswith("– ") for *_, label in expected)
    assert any(label.startswith("#") for *_, label in expected)


EMOJI_GOLDEN = (
    "corpus: corpus/\n"
    "runs: [emoji.run.yaml]\n"
    "queries:\n"
    "  q😀:\n"
    "    question: 路由器😀 wifi 🙂 どうやって\n"
    "    relevant: {kb/路由器😀.md: 0, kb/factory-reset.md: 2}  # 😀\n"
)
EMOJI_RUN = (
    "qrels: emoji.qrels.yaml\n"
    "results:\n"
    "  q😀: [kb/路由器😀.md, kb/guest-network.md, kb/factory-reset.md]  # 🙂\n"
)


@pytest.mark.asyncio
async def test_hints_and_hover_after_emoji_and_cjk(client: LanguageClient, ws: Workspace) -> None:
    (ws.root / "emoji.qrels.yaml").write_text(EMOJI_GOLDEN, encoding="utf-8")
    (ws.root / "emoji.run.yaml").write_text(EMOJI_RUN, encoding="utf-8")
    run_uri = await open_doc(client, ws, "emoji.run.yaml")
    got = await hints(client, run_uri, whole(EMOJI_RUN))
    enc = ws.encoding
    assert got == [
        (*_pos(range_of(EMOJI_RUN, "kb/路由器😀.md", enc).end), "✗0"),
        (*_pos(range_of(EMOJI_RUN, "kb/guest-network.md", enc).end), "?"),
        (*_pos(range_of(EMOJI_RUN, "kb/factory-reset.md", enc).end), "✓2"),
    ]
    golden_uri = await open_doc(client, ws, "emoji.qrels.yaml")
    got = await hints(client, golden_uri, whole(EMOJI_GOLDEN))
    assert got == [
        (*_pos(range_of(EMOJI_GOLDEN, "kb/路由器😀.md", enc).end), "#1 emoji"),
        (*_pos(range_of(EMOJI_GOLDEN, "kb/factory-reset.md", enc).end), "#3 emoji"),
    ]
    target = range_of(EMOJI_RUN, "kb/factory-reset.md", enc)
    h = await hover(client, run_uri, types.Position(target.start.line, target.start.character + 1))
    assert h is not None and h.range == target
    assert isinstance(h.contents, types.MarkupContent)
    assert h.contents.kind == types.MarkupKind.Markdown
    assert h.contents.value.endswith(
        "Judged by 1 query: `q😀` (2).\n\n"
        "Retrieved at #3 for `q😀`: judged relevant (grade 2) · `✓2`."
    )
    q = range_of(EMOJI_RUN, "q😀", enc)
    h = await hover(client, run_uri, q.end)
    assert h is not None and h.range == q
    assert h.contents.value.startswith("**q😀**: 路由器😀 wifi 🙂 どうやって\n")  # type: ignore[union-attr]
    missing = range_of(EMOJI_GOLDEN, "kb/路由器😀.md", enc)
    h = await hover(client, golden_uri, missing.start)
    assert h is not None and h.range == missing
    assert h.contents.value == (  # type: ignore[union-attr]
        "**`kb/路由器😀.md`**: not in the corpus.\n\n"
        "Judged by 1 query: `q😀` (0).\n\n"
        "For `q😀`: #1 emoji."
    )


def pytrec_table(
    qrels: dict[str, int], runs: dict[str, dict[str, float]], k: int
) -> dict[str, dict[str, float]]:
    measures = {"recip_rank", "map"} | {
        f"{m}.{','.join(map(str, sorted({*CUTOFFS, k})))}" for m in ("recall", "P", "ndcg_cut")
    }
    out = {}
    for name, run in runs.items():
        ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, measures)
        res = ev.evaluate({"q": run})["q"]
        row = {"mrr": res["recip_rank"], "map": res["map"]}
        for c in sorted({*CUTOFFS, k}):
            row[f"recall@{c}"] = res[f"recall_{c}"]
            row[f"precision@{c}"] = res[f"P_{c}"]
            row[f"ndcg@{c}"] = res[f"ndcg_cut_{c}"]
        out[name] = row
    return out


def table_rows(markdown: str) -> dict[str, list[str]]:
    rows = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells:
            rows[cells[0].strip("*`")] = cells[1:]
    return rows


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "qid",
    [
        "slow-far-room",
        pytest.param("cant-login-app", marks=pytest.mark.slow),
        pytest.param("browser-admin", marks=pytest.mark.slow),
    ],
)
async def test_query_hover_equals_pytrec_eval(
    client: LanguageClient, ws: Workspace, qid: str
) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    qrels, _, k = golden_qrels(ws.root / GOLDEN)
    scores = demo_runs(ws.root)
    answered = {name: s[qid] for name, s in scores.items() if qid in s}
    expected = pytrec_table(qrels[qid], answered, k)
    target = range_of(text, qid, ws.encoding, occurrence=0)
    target = range_of(text, f"  {qid}:", ws.encoding)
    target = types.Range(
        start=types.Position(target.start.line, target.start.character + 2),
        end=types.Position(target.end.line, target.end.character - 1),
    )
    h = await hover(client, uri, target.start)
    assert h is not None and h.range == target
    value = h.contents.value  # type: ignore[union-attr]
    question = yaml.safe_load(text)["queries"][qid]["question"]
    assert value.startswith(f"**{qid}**: {question}\n")
    rows = table_rows(value)
    names = list(answered)
    assert rows["metric"] == names
    for metric in (
        "mrr",
        "map",
        *(f"{m}@{c}" for m in ("recall", "precision", "ndcg") for c in sorted({*CUTOFFS, k})),
    ):
        assert rows[metric] == [f"{expected[n][metric]:6.4f}".strip() for n in names], metric
    for doc, grade in qrels[qid].items():
        if grade < 1:
            continue
        want = []
        for n in names:
            order = ranked(answered[n])
            want.append(f"#{order.index(doc) + 1}" if doc in order else "–")
        assert rows[doc] == [str(grade), *want]
    for n in names:
        assert f"**{n}: ndcg@{k} = DCG / IDCG = " in value
        assert value.count(f"= {expected[n][f'ndcg@{k}']:6.4f}**") >= 1
    if len(answered) < len(ALL_RUNS):
        left = [n for n in ALL_RUNS if n not in answered]
        assert value.endswith(f"\nNot answered by: {', '.join(left)} (scores 0).")


@pytest.mark.asyncio
@pytest.mark.slow
async def test_run_query_hover_on_a_later_trec_line(client: LanguageClient, ws: Workspace) -> None:
    """Every line of a TREC run names its query: hovering the fourth line's shows all runs."""
    rel = RUNS["hybrid"]
    text = ws.text(rel)
    uri = await open_doc(client, ws, rel, language="plaintext")
    target = range_of(text, "ethernet-backhaul", ws.encoding, occurrence=3)
    h = await hover(client, uri, target.end)
    assert h is not None and h.range == target
    rows = table_rows(h.contents.value)  # type: ignore[union-attr]
    qrels, _, k = golden_qrels(ws.root / GOLDEN)
    scores = {name: run["ethernet-backhaul"] for name, run in demo_runs(ws.root).items()}
    expected = pytrec_table(qrels["ethernet-backhaul"], scores, k)
    assert rows["metric"] == ALL_RUNS
    assert rows["mrr"] == [f"{expected[n]['mrr']:.4f}" for n in ALL_RUNS]
    hybrid = ALL_RUNS.index("hybrid")
    assert rows["mrr"][hybrid] == "0.5000"  # the swapped rank column does not fool it


@pytest.mark.asyncio
async def test_document_hover_in_golden_set(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    doc = "setup/node-placement-guide.md"
    target = range_of(text, doc, ws.encoding, occurrence=1)  # under slow-far-room
    h = await hover(client, uri, target.start)
    assert h is not None and h.range == target
    value = h.contents.value  # type: ignore[union-attr]
    body = (ws.root / "corpus" / doc).read_text(encoding="utf-8").splitlines()
    title = body[0].lstrip("# ").strip()
    assert value.startswith(f"**{title}**  \n`{doc}`\n\n```text\n")
    first_lines = [line for line in body[1:] if line.strip()][:6]
    assert "\n".join(first_lines) in value
    data = yaml.safe_load(text)["queries"]
    judges = []
    for qid, entry in data.items():
        rel = entry.get("relevant") or []
        if doc in rel:
            judges.append(f"`{qid}` ({rel[doc] if isinstance(rel, dict) else 1})")
    orders = {n: ranked(run.get("slow-far-room", {})) for n, run in demo_runs(ws.root).items()}
    ranks = " · ".join(
        f"#{o.index(doc) + 1} {n}" if doc in o else f"– {n}" for n, o in orders.items()
    )
    assert value.endswith(
        f"\n\nJudged by {len(judges)} queries: {', '.join(judges)}.\n\n"
        f"For `slow-far-room`: {ranks}."
    )


@pytest.mark.asyncio
async def test_summary_hover_equals_header_lens(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    lenses = await settled_lenses(client, uri)
    header = [lens.command.title for lens in lenses if lens.range.start.line == 0 and lens.command]
    target = range_of(text, "5", ws.encoding, occurrence=0)
    target = range_of(text, "k: 5", ws.encoding)
    target.start = types.Position(target.start.line, target.start.character + 3)
    h = await hover(client, uri, target.start)
    assert h is not None and h.range == target
    assert as_shown(h.contents.value) == "  \n".join(header)  # type: ignore[union-attr]
    run_text = ws.text(RUNS["dense"])
    run_uri = await open_doc(client, ws, RUNS["dense"])
    lenses = await settled_lenses(client, run_uri)
    h = await hover(client, run_uri, range_of(run_text, "results", ws.encoding).start)
    assert h is not None and lenses and lenses[0].command is not None
    assert as_shown(h.contents.value) == lenses[0].command.title  # type: ignore[union-attr]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_nothing_to_hover(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    assert (
        await hover(client, uri, position_of(text, "question: cant", ws.encoding, delta=12)) is None
    )
    assert await hover(client, uri, types.Position(line=1, character=0)) is None  # a comment


@pytest.mark.asyncio
async def test_first_line_says_what_the_file_was_read_as(
    client: LanguageClient, ws: Workspace
) -> None:
    uri = await open_doc(client, ws, GOLDEN)
    h = await hover(client, uri, types.Position(line=0, character=3))  # in a comment: no id
    assert h is not None
    lines = h.contents.value.split("  \n")  # type: ignore[union-attr]
    assert lines[0] == "Read as golden set (YAML)."
    assert lines[1].startswith("36 questions")  # then the header lens's lines


@pytest.mark.asyncio
@pytest.mark.slow
async def test_corpus_file_deleted_while_open(client: LanguageClient, ws: Workspace) -> None:
    text = ws.text(GOLDEN)
    uri = await open_doc(client, ws, GOLDEN)
    assert not [
        d for d in await diagnostics(client, uri, version=1) if "wired-backhaul" in d.message
    ]
    doc = "setup/wired-backhaul.md"
    path: Path = ws.root / "corpus" / doc
    corpus_uri = await open_doc(client, ws, f"corpus/{doc}", language="markdown")
    target = range_of(text, doc, ws.encoding)
    before = await hover(client, uri, target.start)
    assert before is not None and before.contents.value.startswith("**")  # type: ignore[union-attr]
    assert "not in the corpus" not in before.contents.value  # type: ignore[union-attr]
    path.unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=corpus_uri, type=types.FileChangeType.Deleted)]
        )
    )
    after = await hover(client, uri, target.start)
    assert after is not None and after.range == target
    assert after.contents.value.startswith(f"**`{doc}`**: not in the corpus.\n")  # type: ignore[union-attr]
    for _ in range(20):
        diags = client.diagnostics.get(uri, [])
        if any(d.code == "QR106" and d.range == target for d in diags):
            break
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert any(d.code == "QR106" and d.range == target for d in client.diagnostics[uri])
    run_text = ws.text(RUNS["bm25"])
    run_uri = await open_doc(client, ws, RUNS["bm25"])
    hints_after = await hints(client, run_uri, whole(run_text))
    assert hints_after
    again = await hover(client, uri, target.end)
    assert again is not None and again.contents.value.startswith(f"**`{doc}`**: not in the corpus.")  # type: ignore[union-attr]
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]
