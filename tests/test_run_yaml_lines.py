"""The line reader of run YAML (core/formats/run_yaml_lines.py) against the full parser: on every
input, the run model it builds equals PyYAML's tree path's (spans and findings included), its
span-free rankings equal the model's, and a file it calls clean has nothing left out of its
scores. Inputs: runs generated in the layouts it reads (ids near the edge of what it accepts,
comments, blank lines, duplicates, keys in any order), those runs mutated character by character,
and arbitrary text."""

from __future__ import annotations

from pathlib import Path

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.findings import dropping
from qrels_lsp.core.formats import run_yaml_lines
from qrels_lsp.core.formats.run_yaml import (
    name_written,
    parse_run_yaml,
    parse_run_yaml_tree,
    qrels_named,
    read_run_yaml_ids,
)
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project

SETTINGS = settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# Ids the reader takes, and ids at its edge that it must leave to the parser (or read alike).
PLAIN = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,8}", fullmatch=True)
EDGE = st.sampled_from(
    [
        "yes",
        "No",
        "null",
        "~",
        "on",
        "y",
        "true",
        "1e3",
        "0x1F",
        "1_000",
        ".5",
        "-x",
        "a:b",
        "a #b",
        "'q'",
        '"d"',
        "a b",
        "[x]",
        "{y}",
        "&a",
        "*a",
        "!t",
        "d,e",
        "文書",
        "😀",
        "a\tb",
        "",
        "-",
        "?",
        "%",
        "@x",
        "`x",
        "a|b",
        ">x",
        "2001-01-01",
        "1.5",
        "=",
    ]
)
IDS = st.one_of(PLAIN, PLAIN, PLAIN, EDGE)
NUMBER = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["1.", ".5", "-0.0", "+3", "1e-05", "1E5", "1_0", "0x10", ".inf", "nan", "12"]),
)
NOISE = st.sampled_from(["", "# a comment", "  # indented comment", "   ", "#", "\t", "---"])


@st.composite
def entries(draw: st.DrawFn, indent: str, inner: str) -> list[str]:
    qid = draw(IDS)
    docs = draw(st.lists(IDS, min_size=0, max_size=6))
    layout = draw(st.sampled_from(["flow", "block", "scores"]))
    if layout == "flow":
        return [f"{indent}{qid}: [{', '.join(docs)}]"]
    lines = [f"{indent}{qid}:"]
    for d in docs:
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append(draw(NOISE))
        if layout == "block":
            lines.append(f"{indent}{inner}- {d}")
        else:
            lines.append(f"{indent}{inner}{d}: {draw(NUMBER)}")
    return lines


@st.composite
def runs(draw: st.DrawFn) -> str:
    indent = draw(st.sampled_from(["  ", "  ", " ", "    "]))
    inner = draw(st.sampled_from(["  ", "  ", " ", "    "]))
    body: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        body += draw(entries(indent, inner))
        if draw(st.booleans()) and draw(st.booleans()):
            body.append(draw(NOISE))
    head = [
        draw(st.sampled_from(["qrels: golden.qrels.yaml", "qrels: ../g.qrels.yaml", "qrels: yes"])),
        draw(st.sampled_from(["name: bm25", "name: dense v2 😀", "name: a # b", "name: 'q'"])),
        "description: what made it",
    ]
    head = draw(st.lists(st.sampled_from(head), max_size=3))
    after = draw(st.lists(st.sampled_from(["name: late", "qrels: x.yaml", "results:"]), max_size=1))
    trailing = draw(st.sampled_from(["\n", "", "\n\n", "  \n"]))
    return "\n".join([*head, "results:", *body, *after]) + trailing


def agree(text: str) -> None:
    tree = parse_run_yaml_tree(text)
    assert parse_run_yaml(text) == tree
    assert read_run_yaml_ids(text) == tree.ranked_ids()
    assert qrels_named(text) == tree.qrels
    assert name_written(text) == tree.name
    if run_yaml_lines.clean(text):
        assert not dropping(tree.findings)


@SETTINGS
@given(runs())
def test_generated_runs_are_read_as_the_parser_reads_them(text: str) -> None:
    agree(text)


@SETTINGS
@given(runs(), st.data())
def test_mutated_runs_are_read_as_the_parser_reads_them(text: str, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        put = data.draw(
            st.sampled_from(["", " ", "\n", "#", ":", "-", ",", "]", "[", "\t", "\r", "x", "'"])
        )
        text = text[:at] + put + text[at + cut :]
    agree(text)


@SETTINGS
@given(st.lists(st.sampled_from([*" \n:-[],#abq0.1'\"\t", "results:\n", "  q: [", ", "])))
def test_arbitrary_text_is_read_as_the_parser_reads_it(pieces: list[str]) -> None:
    agree("".join(pieces))


LAYOUTS = """\
qrels: golden.qrels.yaml
name: dense
results:
  q1: [d1, d2, d3]
  # a comment
  q2:
    - d3
    - d1

  q3:
    d1: 12.5
    d2: 13
    d9: 1e-05
"""


def test_the_common_layouts_take_the_line_reader() -> None:
    """Not a vacuous agreement: the layouts runs are written in are read by lines."""
    assert run_yaml_lines.scan(LAYOUTS) is not None
    assert run_yaml_lines.rankings(LAYOUTS) == {
        "q1": ["d1", "d2", "d3"],
        "q2": ["d3", "d1"],
        "q3": ["d2", "d1", "d9"],
    }
    agree(LAYOUTS)


def test_what_it_does_not_read_exactly_is_left_to_the_parser() -> None:
    for text in (
        LAYOUTS.replace("d2, d3", "'d2', d3"),  # a quote
        LAYOUTS.replace("q2:", "q2: # note"),  # a comment after a key
        LAYOUTS.replace("  q3:", "\tq3:"),  # a tab
        LAYOUTS.replace("\n", "\r\n"),  # CRLF
        LAYOUTS.replace("[d1, d2, d3]", "{d1: 1}"),  # a flow mapping
        LAYOUTS.replace("d2, d3", "yes, d3"),  # a boolean, not an id
        LAYOUTS + "name: twice\n",  # a key given twice
        LAYOUTS.replace("    - d1", "     - d1"),  # an indentation that changes
    ):
        assert run_yaml_lines.scan(text) is None, text
        agree(text)


def test_repeats_are_read_with_spans_and_declined_without() -> None:
    text = LAYOUTS.replace("[d1, d2, d3]", "[d1, d2, d1]") + "  q1: [x]\n"
    assert run_yaml_lines.scan(text) is not None
    assert run_yaml_lines.rankings(text) is None
    assert not run_yaml_lines.clean(text)
    assert {f.code for f in parse_run_yaml(text).findings} == {"QR101", "QR203"}
    agree(text)


def test_a_run_read_without_spans_keeps_the_name_it_gives_itself(tmp_path: Path) -> None:
    """Scoring reads a run YAML by lines, without its model: its lens and report are still
    headed by its `name:`, not its file name."""
    (tmp_path / "g.qrels.yaml").write_text(
        "runs: [r.run.yaml]\nqueries:\n  q1:\n    question: a?\n    relevant: [d1]\n"
    )
    (tmp_path / "r.run.yaml").write_text("name: dense v2\nresults:\n  q1: [d2, d1]\n")
    project = Project(Config(root=tmp_path), boundary=Boundary.of([tmp_path]))
    analysis = project.analyse(tmp_path / "g.qrels.yaml")
    assert analysis is not None
    assert [(r.name, r.run, r.evaluation.per_query["q1"]["mrr"]) for r in analysis.runs] == [
        ("dense v2", None, 0.5)
    ]
