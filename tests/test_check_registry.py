"""The check registry's contract: a per-query check reads only the inputs it declares (so the
per-entry cache, keyed on exactly those, can never hand back a finding computed from something
else), every code is declared once and documented, and every registered check runs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import EXAMPLES
from qrels_lsp.core.base.text import line_index
from qrels_lsp.core.checks import GOLDEN_CHECKS, QUERY_CHECKS, RUN_CHECKS, SuggestionBudget
from qrels_lsp.core.checks.check import ALWAYS, QueryInputs
from qrels_lsp.core.codes import CODES
from qrels_lsp.core.formats import get
from qrels_lsp.core.formats.corpus import Corpus, load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels


class Strict:
    """The inputs as a check may see them: only what it declared (and what is always there)."""

    def __init__(self, inputs: QueryInputs, allowed: frozenset[str]) -> None:
        self._inputs = inputs
        self._allowed = allowed

    def __getattr__(self, name: str) -> object:
        if name not in self._allowed:
            raise AssertionError(f"the check reads `{name}` without declaring it")
        return getattr(self._inputs, name)


def cases() -> list[tuple[str, str]]:
    golden = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")
    planted = (
        "queries:\n  a:\n    question: x\n    relevant: [kb/one.md, kb/one.md]\n"
        "  b:\n    unanswerable: true\n    relevant: [kb/factory-reset.md]\n  c: {}\n"
        "  d:\n    question: ''\n    relevant: {kb/nope.md: 0}\n"
    )
    trec = "a 0 kb/one.md 1\na 0 kb/one.md 2\nb 0 nope 0\n"
    return [("golden", golden), ("golden", planted), ("trec-qrels", trec)]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    loaded = load_corpus(EXAMPLES / "corpus")
    assert isinstance(loaded, Corpus)
    return loaded


@pytest.mark.parametrize("check", QUERY_CHECKS, ids=lambda c: "+".join(c.codes))
@pytest.mark.parametrize(("kind", "text"), cases(), ids=["demo", "planted", "trec"])
def test_a_query_check_reads_only_what_it_declares(
    check: object, kind: str, text: str, corpus: Corpus
) -> None:
    qrels = parse_golden(text) if kind == "golden" else parse_trec_qrels(text)
    allowed = frozenset(ALWAYS | check.reads)  # type: ignore[attr-defined]
    lines = line_index(text)
    for query in qrels.queries.values():
        inputs = QueryInputs(
            query, text, lines, SuggestionBudget(), corpus, 1, "\n", get(qrels.format).yaml
        )
        for f in check.run(Strict(inputs, allowed)):  # type: ignore[attr-defined]
            assert f.code in check.codes  # type: ignore[attr-defined]


def test_every_code_is_declared_once_and_every_check_code_is_registered() -> None:
    registered = [c for check in (*QUERY_CHECKS, *GOLDEN_CHECKS, *RUN_CHECKS) for c in check.codes]
    assert len(registered) == len(set(registered))
    assert set(registered) <= set(CODES)
    for code, check in CODES.items():
        assert check.code == code and check.summary.endswith(".")


def test_the_cache_follows_the_declared_inputs(tmp_path: Path) -> None:
    """A check that reads the relevance level is re-run when the level changes: the cached
    findings of an unchanged entry are not reused across levels."""
    from qrels_lsp.core.checks import CheckCache, check_golden

    text = "queries:\n  q:\n    question: x\n    relevant: {a: 1}\n"
    qrels = parse_golden(text)
    cache = CheckCache()
    at_one = [f.code for f in check_golden(qrels, text, None, level=1, cache=cache)]
    at_two = [f.code for f in check_golden(qrels, text, None, level=2, cache=cache)]
    assert "QR104" not in at_one and "QR104" in at_two


def test_a_module_reporting_a_code_imports_its_declaration() -> None:
    """A code's text and severity are looked up when a finding is made, so the module that
    declares it must be loaded by then: each module reporting a code by name imports (perhaps
    through others, or through its parent packages) the module that declares it. Otherwise a
    caller that imports only that module (a test, a script) gets a KeyError instead of a
    finding."""
    from test_architecture import graph, modules

    known = modules()
    edges = graph()
    declared_in: dict[str, str] = {}
    reported: dict[str, set[str]] = {}
    for name, path in known.items():
        source = path.read_text(encoding="utf-8")
        for code in re.findall(r'declare\(\s*"(QR\d{3})"', source):
            declared_in[code] = name
        reported[name] = {  # a code as a value of its own, not one named in a sentence
            node.value
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.fullmatch(r"QR\d{3}", node.value)
        }

    def loaded(name: str) -> set[str]:
        """Every module importing ``name`` loads: its imports and its parent packages', on."""
        seen: set[str] = set()
        todo = [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            parts = current.split(".")
            todo += [
                ".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in known
            ]
            todo += edges.get(current, ())
        return seen

    missing = [
        f"{name} reports {code}, declared in {declared_in[code]}, which it does not import"
        for name, codes in sorted(reported.items())
        for code in sorted(codes)
        if code in declared_in and declared_in[code] not in loaded(name)
    ]
    assert not missing, "\n".join(missing)
