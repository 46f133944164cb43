"""The layering, checked on the source (docs/architecture.md says why each rule holds):

- no import cycle anywhere in server/ (imports for type checking aside), and none in core/ even
  counting those;
- core/ and ide/ never import pygls or lsprotocol: the editor layer answers in editor terms;
- pygls's private API is used in lsp/compat.py only;
- every LSP handler is a short convert-and-return function (40 lines at most).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "qrels_lsp"
PRIVATE_PYGLS = (
    "_send_data",
    "_include_headers",
    "_apply_incremental_change",
    "_create_text_document",
    "_position_codec",
    "_sync_kind",
    "_shutdown",
    "_result_types",
    "_converter",
    "_send_response",
    "_stop_event",
    "fm",
    "__class__",
)


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["qrels_lsp", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in ast.walk(node):
                if hasattr(inner, "lineno"):
                    lines.add(inner.lineno)
    return lines


def imports(
    name: str, path: Path, known: dict[str, Path], *, typing: bool = False
) -> Iterator[str]:
    """Every module of the package ``name`` imports, at module level or in a function (and,
    with ``typing``, for type checking too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if typing else _type_checking_lines(tree)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import formats` imports a module
                full = f"{target}.{alias.name}"
                yield full if full in known else target
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def graph(*, typing: bool = False) -> dict[str, set[str]]:
    known = modules()
    return {
        name: {t for t in imports(name, path, known, typing=typing) if t in known and t != name}
        for name, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle() -> None:
    edges = graph()
    # A package's __init__ that gathers its modules is imported by none of them.
    assert cycles(edges) == []


def test_no_import_cycle_in_core_even_for_type_checking() -> None:
    """core/ is the foundation every other layer stands on: its modules import each other one
    way only, type annotations included (a cycle there is a model that lacks a lower module)."""
    core = {
        name: {t for t in targets if t.startswith("qrels_lsp.core")}
        for name, targets in graph(typing=True).items()
        if name.startswith("qrels_lsp.core")
    }
    assert cycles(core) == []


def test_a_planted_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_core_and_ide_never_import_the_protocol() -> None:
    for name, path in modules().items():
        if not name.startswith(("qrels_lsp.core", "qrels_lsp.ide")):
            continue
        for target in imports(name, path, modules()):
            assert not target.startswith(("pygls", "lsprotocol")), f"{name} imports {target}"
            assert not target.startswith(("qrels_lsp.lsp", "qrels_lsp.cli")), (name, target)
        if name.startswith("qrels_lsp.core"):
            for target in imports(name, path, modules()):
                assert not target.startswith("qrels_lsp.ide"), f"{name} reaches up to {target}"


def test_private_pygls_only_in_compat() -> None:
    for name, path in modules().items():
        if name == "qrels_lsp.lsp.compat" or not name.startswith("qrels_lsp.lsp"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_PYGLS:
                raise AssertionError(f"{name}:{node.lineno} uses pygls's `{node.attr}`")


def test_every_handler_is_short() -> None:
    for name, path in modules().items():
        if not name.startswith("qrels_lsp.lsp"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if any(".feature(" in d or ".command(" in d for d in decorators):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 40, f"{name}.{node.name} is {length} lines"
