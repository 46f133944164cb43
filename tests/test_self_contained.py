"""A clone runs its tests alone, and the default run is the fast one.

The sources of the tests, the benchmarks, the fuzzer and CI may not name a path outside the
checkout: no climbing above it from ``__file__`` (``ROOT.parent``, ``parents[k]`` past the top), no
path into the folder beside the checkout where the data first came from (:data:`BESIDE`), and no
absolute path of this machine. Every data file under tests/data has its
provenance in tests/data/README.md. pytest's default options leave the slow tests out, CI runs
both the README's commands, and every test module keeps a test in the fast run.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, TEST_DATA, THOROUGH, examples

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TESTS = ROOT / "tests"
SCANNED = [
    p
    for p in [*TESTS.rglob("*.py"), ROOT / ".ci" / "run", *(ROOT / "scripts").glob("*")]
    if p != Path(__file__).resolve()  # this file names the shapes it looks for
    and not any(
        part == "node_modules" or part.startswith(".") for part in p.parts[len(ROOT.parts) :]
    )
]
# Path(__file__).resolve() or a name bound to a climb from it, then .parent / .parents[k] steps.
ANCHOR = re.compile(
    r"(?P<base>Path\(__file__\)\.resolve\(\)|Path\(__file__\)|\b[A-Z][A-Z_]*\b)"
    r"(?P<steps>(?:\.parent\b|\.parents\[\d+\])+)"
)
BINDING = re.compile(r"^(?P<name>[A-Z][A-Z_]*)\s*=\s*(?P<value>.+)$")
BESIDE = "sha" + "red"
"""The folder beside the checkout the data was copied from, spelled so that a search of the
sources for a path into it finds no line of this file either."""
OUTSIDE = re.compile(rf"\.\./{BESIDE}|/work/|/home/|/root/|{BESIDE}\"\s*/\s*\"data")


def climb(steps: str) -> int:
    """How many folders ``steps`` (``.parent``, ``.parents[k]``, chained) goes up."""
    return sum(int(k) + 1 if k else 1 for k in re.findall(r"\.parent(?:s\[(\d+)\])?", steps))


def escapes(text: str, relative: Path) -> Iterator[str]:
    """The lines of ``text``, a file at ``relative`` in the checkout, that reach out of it.

    A file at ROOT/a/b/x.py is ``depth`` 3: climbing 3 folders from the file is ROOT, 4 is out.
    Names bound to a climb (``HERE``, ``ROOT``) carry their height; ``ROOT`` is the checkout
    wherever it comes from (conftest exports it).
    """
    depth = len(relative.parts)
    heights = {"ROOT": depth}
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#")[0]  # comments may say where data once was
        if OUTSIDE.search(code) or any(h > depth for h in _climbs(code, heights)):
            yield f"{relative}:{number}: {line.strip()}"
        bound = BINDING.match(code.strip())
        value = ANCHOR.fullmatch(bound["value"].strip()) if bound else None
        if bound and value:
            heights[bound["name"]] = next(_climbs(value[0], heights), 0)


def _climbs(code: str, heights: dict[str, int]) -> Iterator[int]:
    """The height above the file of each climb in ``code`` from ``__file__`` or a bound name."""
    for match in ANCHOR.finditer(code):
        base = match["base"]
        start = 0 if base.startswith("Path(") else heights.get(base)
        if start is not None:
            yield start + climb(match["steps"])


def test_the_data_is_in_the_checkout() -> None:
    assert TEST_DATA.resolve().is_relative_to(ROOT.resolve())
    assert any(TEST_DATA.rglob("*.trec")), TEST_DATA


def test_no_test_reads_outside_the_checkout() -> None:
    found = [
        line
        for path in SCANNED
        if path.is_file()
        for line in escapes(path.read_text(encoding="utf-8"), path.relative_to(ROOT))
    ]
    assert found == []


def test_the_escape_finder_sees_a_climb_out() -> None:
    """The finder catches the shapes that once read the data beside the checkout, and passes
    honest ones."""
    cases = {
        f'DATA = ROOT.parent / "{BESIDE}" / "data"': True,
        "X = Path(__file__).resolve().parents[3]": True,
        "HERE = Path(__file__).resolve().parent\nUP = HERE.parents[2]": True,
        f'DATA = Path("../{BESIDE}/data")': True,
        "X = Path(__file__).resolve().parents[2]": False,
        "HERE = Path(__file__).resolve().parent\nROOT = HERE.parents[1]": False,
        f'VASWANI = ROOT / "tests" / "data"  # ../{BESIDE} once': False,
    }
    for text, bad in cases.items():
        found = list(escapes(text, Path("tests/bench/probe.py")))
        assert bool(found) is bad, (text, found)


def test_every_data_file_has_its_provenance() -> None:
    note = (TEST_DATA / "README.md").read_text(encoding="utf-8")
    files = {
        p.relative_to(TEST_DATA).as_posix()
        for p in TEST_DATA.rglob("*")
        if p.is_file() and p.suffix not in {".md", ".py"}
    }
    named = set(re.findall(r"^\| `([^`]+)` \|", note, re.M))
    assert named == files


@pytest.mark.slow
def test_the_bm25_run_is_made_as_its_note_says() -> None:
    """tests/data/make_bm25_run.py (rank_bm25 over the Vaswani files) makes the committed run."""
    made = subprocess.run(
        [sys.executable, str(TEST_DATA / "make_bm25_run.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert made == (TEST_DATA / "vaswani" / "bm25_top100.run").read_text(encoding="utf-8")


def test_the_default_run_leaves_the_slow_tests_out() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = shlex.split(options["tool"]["pytest"]["ini_options"]["addopts"])
    assert addopts[addopts.index("-m") + 1] == "not slow"


def test_property_tests_draw_a_fifth_by_default() -> None:
    assert not THOROUGH and examples(200) == 40 and examples(6) == 2


@pytest.mark.slow
def test_the_slow_run_takes_every_property_test() -> None:
    """``-m slow`` selects the property tests too (conftest marks them slow in that run) and runs
    them at their full count, whatever mark expression runs this test."""
    test = "tests/test_locate.py::test_queries_in_a_window_are_those_a_pass_finds"
    own = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}  # the project's options
    command = f"-m pytest -p no:cacheprovider -m slow {test} --hypothesis-show-statistics"
    slow = subprocess.run(
        [sys.executable, *command.split()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=own,
    )
    assert slow.returncode == 0 and "1 passed" in slow.stdout, slow
    assert "max_examples=200" in slow.stdout, slow.stdout


def test_ci_runs_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in (".venv/bin/python -m pytest\n", ".venv/bin/python -m pytest -m slow\n"):
        assert command.strip() in readme
        assert command in ci


def _marked_slow(node: ast.AST) -> bool:
    """``pytest.mark.slow`` itself, or a list of marks holding it (not a slow parameter)."""
    marks = node.elts if isinstance(node, ast.List) else [node]
    return any(ast.unparse(m) == "pytest.mark.slow" for m in marks)


def test_every_module_keeps_a_fast_test() -> None:
    """Marking tests slow never takes a module out of the default run whole."""
    modules = [
        p
        for p in TESTS.rglob("test_*.py")
        if not {"editors", "bench", "fuzz"} & set(p.relative_to(TESTS).parts)
    ]
    assert len(modules) > 30
    without = []
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_slow = any(
            isinstance(n, ast.Assign)
            and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
            and _marked_slow(n.value)
            for n in tree.body
        )
        fast = [
            n
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("test_")
            and not any(_marked_slow(d) for d in n.decorator_list)
        ]
        if module_slow or not fast:
            without.append(path.relative_to(ROOT).as_posix())
    assert without == []
