"""The valid inputs the fuzzers start from (the embedded demo, in every format the tool reads),
and the parser-level checks each mutated input goes through."""

from __future__ import annotations

import contextlib
import random
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fixtures import apply_edits, assert_spans_in
from qrels_lsp.core.checks import check_golden, check_run
from qrels_lsp.core.formats import parse_as
from qrels_lsp.core.formats.corpus import Corpus, load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.topics import parse_queries_jsonl, parse_queries_tsv, parse_trec_topics
from qrels_lsp.core.model import FileKind, Qrels, Run
from qrels_lsp.core.project.config import parse_config_text

from .mutate import TOML_MUTATORS, TREC_MUTATORS, YAML_MUTATORS, Mutator, mutate

EXAMPLES = Path(__file__).resolve().parents[2] / "server" / "qrels_lsp" / "examples"

CONFIG = """\
# qrels-lsp configuration for the fuzzed workspace
k = 5
metrics = ["recall@5", "mrr", "ndcg@10"]

[[qrels]]
path = "support.qrels"
corpus = "corpus"
topics = "topics.jsonl"

[[qrels]]
path = "beir.tsv"
corpus = "corpus"
"""


@dataclass(frozen=True)
class TargetFile:
    name: str
    path: str  # relative to the workspace
    kind: FileKind
    text: str
    mutators: list[Mutator]
    language: str = "yaml"
    config: str = CONFIG


def _read(rel: str) -> str:
    return (EXAMPLES / rel).read_text(encoding="utf-8")


def _trec_qrels() -> str:
    golden = parse_golden(_read("support.qrels.yaml"))
    return "".join(
        f"{qid} 0 {doc} {grade}\n"
        for qid, docs in golden.grades().items()
        for doc, grade in docs.items()
    )


def _beir() -> str:
    lines = [line.split() for line in _trec_qrels().splitlines()]
    return "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, _, d, g in lines)


def _topics() -> str:
    import json

    golden = parse_golden(_read("support.qrels.yaml"))
    return "".join(
        json.dumps({"_id": q.qid, "text": q.question or ""}, ensure_ascii=False) + "\n"
        for q in golden.queries.values()
    )


SEEDS = [
    TargetFile(
        "golden", "support.qrels.yaml", "golden", _read("support.qrels.yaml"), YAML_MUTATORS
    ),
    TargetFile(
        "run-yaml", "runs/bm25.run.yaml", "run-yaml", _read("runs/bm25.run.yaml"), YAML_MUTATORS
    ),
    TargetFile(
        "run-yaml-scores",
        "runs/dense.run.yaml",
        "run-yaml",
        _read("runs/dense.run.yaml"),
        YAML_MUTATORS,
    ),
    TargetFile(
        "run-yaml-chunks",
        "runs/passages.run.yaml",
        "run-yaml",
        _read("runs/passages.run.yaml"),
        YAML_MUTATORS,
    ),
    TargetFile(
        "trec-run",
        "runs/hybrid.trec",
        "trec-run",
        _read("runs/hybrid.trec"),
        TREC_MUTATORS,
        "plaintext",
    ),
    TargetFile(
        "trec-qrels", "support.qrels", "trec-qrels", _trec_qrels(), TREC_MUTATORS, "plaintext"
    ),
    TargetFile("beir-qrels", "beir.tsv", "beir-qrels", _beir(), TREC_MUTATORS, "plaintext"),
]
TOPICS = _topics()


@cache
def demo_corpus() -> Corpus:
    corpus = load_corpus(EXAMPLES / "corpus")
    assert isinstance(corpus, Corpus)
    return corpus


def _fixes_apply(text: str, model: Qrels | Run, findings: list) -> None:  # type: ignore[type-arg]
    """Every fix applies cleanly (inside the text, no overlap) and its result parses."""
    for f in findings:
        for fix in f.fixes:
            edits = [e for e in fix.edits if e.path is None]
            if edits:
                parse_as(
                    "golden" if isinstance(model, Qrels) else "run-yaml", apply_edits(text, edits)
                )


def check_parsers(rng: random.Random, target: TargetFile) -> str:
    text = mutate(rng, target.text, target.mutators)
    model = parse_as(target.kind, text)
    assert_spans_in(text, model.findings)
    corpus = demo_corpus() if rng.random() < 0.7 else None
    if isinstance(model, Qrels):
        found = check_golden(model, text, corpus)
        assert_spans_in(text, found)
        if target.kind == "golden":
            _fixes_apply(text, model, list(model.findings) + found)
        for q in model.queries.values():
            for j in q.judgments:
                assert 0 <= j.span.start <= j.span.end <= len(text)
    else:
        golden = parse_golden(SEEDS[0].text)
        found = check_run(model, golden, corpus, k=5)
        assert_spans_in(text, found)
        for r in model.rankings.values():
            for d in r.docs:
                assert 0 <= d.span.start <= d.span.end <= len(text)
    return text


def check_config(rng: random.Random) -> str:
    text = mutate(rng, CONFIG, TOML_MUTATORS)
    for name in ("qrels-lsp.toml", "pyproject.toml"):
        source = f"[tool.qrels-lsp]\n{text}" if name == "pyproject.toml" else text
        config = parse_config_text(source, Path("/nonexistent") / name)
        assert_spans_in(source, config.findings)
    return text


def check_corpus_jsonl(rng: random.Random) -> str:
    """Mutated JSONL corpora and query files load without raising; ids are located."""
    import json

    docs = list(demo_corpus().documents())[:12]
    base = "".join(
        json.dumps(
            {"_id": d.doc_id, "title": d.title, "text": d.text[:200]},
            ensure_ascii=rng.random() < 0.5,
        )
        + "\n"
        for d in docs
    )
    text = mutate(rng, base, TREC_MUTATORS + YAML_MUTATORS[:2])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        corpus = load_corpus(path)
        if isinstance(corpus, Corpus):
            data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
            lines = re.split(r"\r\n|\r|\n", data.decode("utf-8", "replace"))
            for d in corpus.documents():
                if d.line is not None and d.id_span is not None and d.line < len(lines):
                    assert 0 <= d.id_span.start <= d.id_span.end <= len(lines[d.line]) + 1
    for parse in (parse_queries_jsonl, parse_queries_tsv, parse_trec_topics):
        assert_spans_in(text, parse(text).findings)
    return text


def hostile_settings(rng: random.Random, keys: tuple[str, ...] | None = None) -> dict[str, object]:
    """Settings as an editor may send them (JSON: strings, numbers, lists, objects, null), a few
    keys of the configuration (or unknown ones) each holding hostile text or the wrong shape."""
    from qrels_lsp.core.project.config import SETTINGS

    from .mutate import hostile_text

    pool = list(keys if keys is not None else SETTINGS)

    def value(depth: int = 0) -> object:
        pick = rng.randrange(9 if depth < 2 else 5)
        if pick == 0:
            return hostile_text(rng)
        if pick == 1:
            return rng.choice([0, -1, 2**63, 10**400 if rng.random() < 0.5 else 1e308, 0.5])
        if pick == 2:
            return rng.choice([True, False, None, "", "path", "stem", "pooled", "rrf"])
        if pick == 3:
            return rng.choice(["recall@5", "**/*.yaml", "bm25", "#", "(?P<doc>.+)#", "QR110"])
        if pick == 4:
            return hostile_text(rng)[:5_000]
        if pick in (5, 6):
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        keys_here = ["path", "runs", "name", "method", "separator", "pattern", "corpus", "k"]
        return {rng.choice(keys_here): value(depth + 1) for _ in range(rng.randint(0, 4))}

    out: dict[str, object] = {}
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(pool) if rng.random() < 0.9 else hostile_text(rng)[:3000]
        out[key] = value()
    return out


def check_settings(rng: random.Random) -> str:
    """Hostile settings from an editor give findings (their values capped), never an exception;
    the metric names among them are read by the metric parser the same way."""
    from qrels_lsp.core.metrics import parse_metric
    from qrels_lsp.core.project.config import Config, config_from_mapping

    settings = hostile_settings(rng)
    config = config_from_mapping(settings, Config(root=Path("/nonexistent")))
    for f in config.findings:
        assert len(f.message) < 20_000, "a finding quotes a whole hostile value"
    metrics = settings.get("metrics")
    for name in metrics if isinstance(metrics, list) else []:
        if isinstance(name, str):
            with contextlib.suppress(ValueError):
                parse_metric(name, 5)
    return repr(settings)[:2000]
