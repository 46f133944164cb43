"""The JSON Schemas in grammars/ (used by yaml-language-server) against the embedded example.

The schemas check shapes only; the planted mistakes of the example that are shape errors (a grade
written as the string "2") must be the only thing they reject in it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

jsonschema = pytest.importorskip(
    "jsonschema", reason="jsonschema is not installed (it is in the `test` extra)"
)

ROOT = Path(__file__).resolve().parents[1]
GRAMMARS = ROOT / "grammars"
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"
GOLDEN = EXAMPLES / "support.qrels.yaml"
RUNS = [EXAMPLES / "runs" / "bm25.run.yaml", EXAMPLES / "runs" / "dense.run.yaml"]


def load_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((GRAMMARS / name).read_text(encoding="utf-8"))
    return schema


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def errors(schema: dict[str, Any], data: Any) -> list[tuple[str, ...]]:
    """The instance paths of the schema errors, sorted."""
    validator = jsonschema.Draft7Validator(schema)
    return sorted(tuple(str(p) for p in e.absolute_path) for e in validator.iter_errors(data))


@pytest.fixture(scope="module")
def golden_schema() -> dict[str, Any]:
    return load_schema("golden-set.schema.json")


@pytest.fixture(scope="module")
def run_schema() -> dict[str, Any]:
    return load_schema("run.schema.json")


@pytest.fixture()
def golden() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(GOLDEN)
    # The one planted shape error (`kb/factory-reset.md: "2"  # demo: QR103`), fixed.
    data["queries"]["e5012-settings"]["relevant"]["kb/factory-reset.md"] = 2
    return data


@pytest.mark.parametrize("name", ["golden-set.schema.json", "run.schema.json"])
def test_schema_is_valid_draft_07(name: str) -> None:
    schema = load_schema(name)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(schema)


def _subschemas(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every schema a key or value is checked against (what completion and hover show)."""
    out: list[tuple[str, dict[str, Any]]] = []
    if not isinstance(node, dict):
        return out
    for key, sub in node.get("properties", {}).items():
        out += [(f"{where}.{key}", sub), *_subschemas(sub, f"{where}.{key}")]
    for key in ("additionalProperties", "items"):
        if isinstance(node.get(key), dict):
            out += [(f"{where}[{key}]", node[key]), *_subschemas(node[key], f"{where}[{key}]")]
    for i, sub in enumerate(node.get("oneOf", [])):
        out += [(f"{where}|{i}", sub), *_subschemas(sub, f"{where}|{i}")]
    for key, sub in node.get("definitions", {}).items():
        out += [(f"#{key}", sub), *_subschemas(sub, f"#{key}")]
    return out


@pytest.mark.parametrize("name", ["golden-set.schema.json", "run.schema.json"])
def test_every_key_is_documented(name: str) -> None:
    schema = load_schema(name)
    assert schema.get("description")
    subs = _subschemas(schema, "")
    assert subs
    # a bare {"$ref": ...} is documented by the definition it points to (checked as "#name")
    undocumented = [w for w, sub in subs if not sub.get("description") and "$ref" not in sub]
    assert undocumented == []


def test_embedded_golden_set_only_shape_error_is_the_planted_string_grade(
    golden_schema: dict[str, Any],
) -> None:
    raw = load_yaml(GOLDEN)
    assert raw["queries"]["e5012-settings"]["relevant"]["kb/factory-reset.md"] == "2"
    assert errors(golden_schema, raw) == [("queries", "e5012-settings", "relevant")]
    assert '"2"  # demo: QR103' in GOLDEN.read_text(encoding="utf-8")


def test_embedded_golden_set_validates_once_fixed(
    golden_schema: dict[str, Any], golden: dict[str, Any]
) -> None:
    assert errors(golden_schema, golden) == []


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_embedded_runs_validate(run_schema: dict[str, Any], path: Path) -> None:
    data = load_yaml(path)
    assert errors(run_schema, data) == []


def test_embedded_dense_run_uses_both_result_forms() -> None:
    results = load_yaml(RUNS[1])["results"]
    kinds = {type(r) for r in results.values()}
    assert kinds == {list, dict}


def _break(data: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "error_at"),
    [
        # grade written as a string, and as a float
        (
            ("queries", "e1042-node", "relevant", "kb/compare-models.md"),
            "2",
            ("queries", "e1042-node", "relevant"),
        ),
        (
            ("queries", "e1042-node", "relevant", "kb/compare-models.md"),
            1.5,
            ("queries", "e1042-node", "relevant"),
        ),
        # relevant as a bare integer, and a list holding a number
        (("queries", "factory-reset", "relevant"), 3, ("queries", "factory-reset", "relevant")),
        (
            ("queries", "factory-reset", "relevant"),
            ["kb/factory-reset.md", 7],
            ("queries", "factory-reset", "relevant"),
        ),
        # unknown keys, at the top and in a query (e.g. a typo of `relevant`)
        (("corpra",), "corpus/", ()),
        (
            ("queries", "factory-reset", "relevent"),
            ["kb/factory-reset.md"],
            ("queries", "factory-reset"),
        ),
        # wrong scalar types
        (("k",), "5", ("k",)),
        (("k",), 0, ("k",)),
        (
            ("queries", "apple-watch-app", "unanswerable"),
            "yes",
            ("queries", "apple-watch-app", "unanswerable"),
        ),
        (("queries", "factory-reset", "question"), 42, ("queries", "factory-reset", "question")),
        (("runs",), "runs/*.run.yaml", ("runs",)),
        (("queries",), ["factory-reset"], ("queries",)),
    ],
)
def test_golden_set_schema_rejects(
    golden_schema: dict[str, Any],
    golden: dict[str, Any],
    path: tuple[str, ...],
    value: Any,
    error_at: tuple[str, ...],
) -> None:
    assert errors(golden_schema, _break(golden, path, value)) == [error_at]


def test_golden_set_schema_requires_queries(golden_schema: dict[str, Any]) -> None:
    assert errors(golden_schema, {"corpus": "corpus/", "k": 5}) == [()]
    assert errors(golden_schema, {"queries": {}}) == []


@pytest.mark.parametrize(
    ("path", "value", "error_at"),
    [
        (
            ("results", "e1042-node", "errors/e1042-firmware-mismatch.md"),
            "high",
            ("results", "e1042-node"),
        ),
        (("results", "factory-reset"), "kb/factory-reset.md", ("results", "factory-reset")),
        (("results", "factory-reset"), [1, 2, 3], ("results", "factory-reset")),
        (("ranking",), {}, ()),
        (("name",), 7, ("name",)),
        (("qrels",), ["../support.qrels.yaml"], ("qrels",)),
    ],
)
def test_run_schema_rejects(
    run_schema: dict[str, Any], path: tuple[str, ...], value: Any, error_at: tuple[str, ...]
) -> None:
    data = load_yaml(RUNS[1])
    assert errors(run_schema, _break(data, path, value)) == [error_at]


def test_run_schema_requires_results(run_schema: dict[str, Any]) -> None:
    assert errors(run_schema, {"name": "bm25"}) == [()]


def test_query_keys_of_the_schema_are_the_formats() -> None:
    """Every key a golden set's question may have is in the schema, and no other: the YAML
    extension validates with it."""
    from qrels_lsp.core.formats.keys import QUERY_KEYS

    schema = load_schema("golden-set.schema.json")
    assert set(schema["definitions"]["query"]["properties"]) == set(QUERY_KEYS)
