"""The workspace boundary in the core: what a golden set, a run or a configuration may make the
tool read (core/base/boundary.py, core/base/globs.py), with real files and symlinks in tmp_path.

The outside world is a sibling folder of the workspace holding a "secret" corpus; every test
checks both that the refusal is said (QR112 where the path is written) and that nothing of the
outside reached the result (no corpus loaded, no id suggested from it, no run scored).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.globs import MAX_MATCHES, MAX_VISITS, expand
from qrels_lsp.core.base.text import LineIndex
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project

SECRET_IDS = ("id_rsa", "shadow", "token-ghp_0123456789")


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(workspace, outside): a workspace with a corpus and a run, and a secret folder beside it."""
    ws = tmp_path / "ws"
    (ws / "corpus").mkdir(parents=True)
    (ws / "corpus" / "a.md").write_text("Reset the password from the login page.\n")
    (ws / "corpus" / "b.md").write_text("The router blinks red when the firmware fails.\n")
    (ws / "runs").mkdir()
    (ws / "runs" / "r.run.yaml").write_text("results:\n  q1: [a.md, b.md]\n")
    out = tmp_path / "outside"
    out.mkdir()
    for name in SECRET_IDS:
        (out / name).write_text(f"secret {name}\n")
    (out / "stolen.run.yaml").write_text("results:\n  q1: [id_rsa]\n")
    (out / "other.qrels.yaml").write_text("queries:\n  q1:\n    question: x\n    relevant: [a]\n")
    return ws, out


def golden(ws: Path, corpus: str, runs: str = "[runs/r.run.yaml]") -> Path:
    path = ws / "g.qrels.yaml"
    path.write_text(
        f"corpus: {corpus}\nruns: {runs}\nqueries:\n  q1:\n    question: How do I reset it?\n"
        "    relevant: [id_rsa]\n"
    )
    return path


def analyse(path: Path, boundary: Boundary) -> tuple[list[tuple[str, str]], Project]:
    project = Project(load_config(path.parent), boundary=boundary)
    analysis = project.analyse(path)
    assert analysis is not None
    text = analysis.text
    spans = [(f.code, text[f.span.start : f.span.end]) for f in analysis.findings]
    messages = " ".join(f.message for f in analysis.findings)
    for secret in SECRET_IDS[1:]:  # id_rsa is the golden set's own (unknown) id
        assert secret not in messages, "an outside file name leaked into a message"
    return spans, project


@pytest.mark.parametrize(
    "corpus",
    ["OUT", "../outside", "../../../../../../..{OUT}", "corpus/../../outside"],
)
def test_a_corpus_outside_the_workspace_is_refused_where_it_is_written(
    world: tuple[Path, Path], corpus: str
) -> None:
    ws, out = world
    corpus = corpus.replace("OUT", str(out)).replace("{", "").replace("}", "")
    path = golden(ws, corpus)
    found, project = analyse(path, Boundary.of([ws]))
    assert ("QR112", corpus) in found
    assert not any(code in ("QR106", "QR109") for code, _ in found)  # the corpus was not used
    assert project.files._corpora == {}  # nothing was loaded from it


def test_a_symlink_out_of_the_workspace_counts_as_outside(world: tuple[Path, Path]) -> None:
    ws, out = world
    (ws / "linked").symlink_to(out, target_is_directory=True)
    found, project = analyse(golden(ws, "linked"), Boundary.of([ws]))
    assert ("QR112", "linked") in found
    assert project.files._corpora == {}


def test_the_users_own_allowance_lets_it_through(world: tuple[Path, Path]) -> None:
    ws, out = world
    (ws / "linked").symlink_to(out, target_is_directory=True)
    found, _ = analyse(golden(ws, "linked"), Boundary.of([ws], [out]))
    assert "QR112" not in {code for code, _ in found}
    assert ("QR106", "id_rsa") not in found  # id_rsa is in the allowed corpus
    found, _ = analyse(golden(ws, str(out)), Boundary.everywhere())
    assert "QR112" not in {code for code, _ in found}


def test_a_corpus_inside_is_read_as_before(world: tuple[Path, Path]) -> None:
    ws, _ = world
    found, project = analyse(golden(ws, "corpus"), Boundary.of([ws]))
    assert ("QR106", "id_rsa") in found
    assert "QR112" not in {code for code, _ in found}
    assert len(project.files._corpora) == 1


@pytest.mark.parametrize(
    "runs",
    ["[OUT/stolen.run.yaml]", "['OUT/*.yaml']", "['/**/**/**/*']", "['../outside/*']", "['/*']"],
)
def test_runs_outside_are_refused_and_never_scored(world: tuple[Path, Path], runs: str) -> None:
    ws, out = world
    runs = runs.replace("OUT", str(out))
    path = golden(ws, "corpus", runs)
    found, project = analyse(path, Boundary.of([ws]))
    written = runs.strip("[]'")
    assert ("QR112", written) in found, found
    analysis = project.analyse(path)
    assert analysis is not None and [r.name for r in analysis.runs if not r.baseline] == []


def test_a_nul_byte_in_a_path_is_a_finding_not_a_crash(world: tuple[Path, Path]) -> None:
    ws, _ = world
    path = ws / "g.qrels.yaml"
    path.write_text(
        'corpus: "corpus\\0x"\nruns: ["r\\0.run.yaml", "*\\0"]\nqueries:\n  q1:\n'
        "    question: x\n    relevant: [a.md]\n"
    )
    found, _ = analyse(path, Boundary.of([ws]))
    assert [code for code, _ in found].count("QR112") == 3


def test_a_runs_qrels_outside_is_refused(world: tuple[Path, Path]) -> None:
    ws, out = world
    run = ws / "runs" / "mine.run.yaml"
    run.write_text(f"qrels: {out}/other.qrels.yaml\nresults:\n  q1: [a]\n")
    found, _ = analyse(run, Boundary.of([ws]))
    assert ("QR112", f"{out}/other.qrels.yaml") in found
    assert "QR201" not in {code for code, _ in found}  # not scored against the outside set


def test_a_workspace_config_cannot_widen_the_boundary(world: tuple[Path, Path]) -> None:
    ws, out = world
    (ws / "qrels-lsp.toml").write_text(f'allow_outside = ["{out}"]\nk = 3\n')
    inside = load_config(ws, [ws])
    assert inside.allow_outside == () and inside.k == 3
    [problem] = inside.findings
    assert problem.code == "QR401" and "inside the workspace" in problem.message
    text = (ws / "qrels-lsp.toml").read_text()
    assert text[problem.span.start : problem.span.end] == "allow_outside"
    # The same file outside the workspace is the user's own.
    assert load_config(ws, [ws / "corpus"]).allow_outside == (out,)
    assert load_config(ws).allow_outside == (out,)


def test_config_bombs_are_bounded(tmp_path: Path) -> None:
    toml = tmp_path / "qrels-lsp.toml"
    toml.write_text("".join(f"unknown{i} = 1\n" for i in range(50_000)))
    config = load_config(tmp_path)
    assert len(config.findings) == 21 and "49,980 more" in config.findings[-1].message
    toml.write_text("".join(f'[[qrels]]\npath = "q{i}"\n' for i in range(5_000)))
    config = load_config(tmp_path)
    assert config.qrels == () and "more than 1,000" in config.findings[0].message
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate(2 << 30)  # sparse: 2 GB read as nothing
    toml.unlink()
    toml.symlink_to(big)
    config = load_config(tmp_path)
    assert config.findings[0].code == "QR401" and "larger than 1 MiB" in config.findings[0].message
    toml.unlink()
    os.mkfifo(toml)  # would block an open() for reading forever
    config = load_config(tmp_path)
    assert config.source is None or config.findings  # not read, and never blocks


# -- globs ----------------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "x.run.yaml", "y.trec", ".hidden", "r.run.yaml", "z.txt"])
TREES = st.lists(st.lists(NAMES, min_size=1, max_size=4), min_size=1, max_size=12)
PATTERNS = st.sampled_from(
    [
        "**/*.run.yaml",
        "**/**/**/*",
        "*/*.trec",
        "a/**/*.yaml",
        "**/b/*",
        "?/*",
        "[ab]/**/[xy].*",
        "**/.hidden",
        "**/*",
        "*.run.yaml",
        "a/b/x.run.yaml",
    ]
)


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(tree=TREES, pattern=PATTERNS)
def test_expand_matches_glob_on_ordinary_trees(tmp_path_factory, tree, pattern) -> None:  # type: ignore[no-untyped-def]
    """Bounded expansion finds what ``glob.glob(recursive=True)`` finds (its regular files),
    on trees without symlinks."""
    root = tmp_path_factory.mktemp("tree")
    for parts in tree:
        folder = root.joinpath(*parts[:-1])
        if any(p.is_file() for p in [folder, *folder.parents] if p != root and p.exists()):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        leaf = folder / parts[-1]
        if not leaf.exists():
            leaf.write_text("x")
    expected = sorted(  # (glob.glob lists a file once per way `**/**` reaches it)
        {
            Path(p).resolve()
            for p in glob.glob(str(root / pattern), recursive=True)
            if Path(p).is_file()
        }
    )
    found = expand(root, pattern, Boundary.of([root])).paths
    # (a pattern without wildcards names its path whatever it is: scoring says what is wrong)
    assert [p for p in found if p.is_file()] == expected


@pytest.mark.slow
def test_a_glob_bomb_stops_at_its_limits(tmp_path: Path) -> None:
    for i in range(60):
        folder = tmp_path / f"d{i}"
        folder.mkdir()
        for j in range(200):
            (folder / f"f{j}.run.yaml").write_text("")
    result = expand(tmp_path, "**/**/**/**/*.run.yaml", Boundary.of([tmp_path]))
    assert len(result.paths) == MAX_MATCHES and "stopped at 10,000" in (result.problem or "")
    few = expand(tmp_path, "**/x*", Boundary.of([tmp_path]))
    assert few.paths == [] and few.problem is None  # 12,060 entries, under MAX_VISITS
    assert MAX_VISITS > 12_060


def test_a_symlinked_file_out_of_the_workspace_is_not_matched(world: tuple[Path, Path]) -> None:
    ws, out = world
    (ws / "runs" / "evil.run.yaml").symlink_to(out / "stolen.run.yaml")
    (ws / "runs" / "loop").symlink_to(ws, target_is_directory=True)
    found = expand(ws, "**/*.run.yaml", Boundary.of([ws])).paths
    assert found == [ws / "runs" / "r.run.yaml"]


def test_refusal_says_how_to_allow(world: tuple[Path, Path]) -> None:
    ws, out = world
    message = Boundary.of([ws]).refusal(out)
    assert str(ws) in message and "allow_outside" in message and "--allow-outside" in message
    assert LineIndex(message).line_count == 1


def test_a_workspace_given_through_a_symlinked_folder(tmp_path: Path) -> None:
    """Editors often name the workspace through a link (/tmp -> /private/tmp): a path written
    that way is inside, resolved from the real folder without a look at the link."""
    real_ws = tmp_path / "real"
    (real_ws / "corpus").mkdir(parents=True)
    (real_ws / "corpus" / "a.md").write_text("x")
    (tmp_path / "link").symlink_to(real_ws, target_is_directory=True)
    given = tmp_path / "link"
    boundary = Boundary.of([given])
    assert boundary.resolve(given / "corpus" / "a.md") == real_ws / "corpus" / "a.md"
    assert boundary.resolve(real_ws / "corpus") == real_ws / "corpus"
    assert boundary.resolve(given / ".." / "real" / "corpus") is None  # `..` out of the root
    assert boundary.resolve(tmp_path / "elsewhere") is None
