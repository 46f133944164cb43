"""Names, ids, questions and settings longer than their caps (core/base/caps.py) are not used,
and say so: QR007 where a golden set or run holds one, QR403 for a setting, exit 2 for the
command line. A value at its cap is read as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from qrels_lsp.core.base.caps import MAX_ID, MAX_METRIC_NAME, MAX_QUESTION, MAX_SETTING
from qrels_lsp.core.formats.golden import parse_golden, parse_query_entry
from qrels_lsp.core.formats.run_yaml import name_written, parse_run_yaml, parse_run_yaml_tree
from qrels_lsp.core.formats.trec_run import trec_run_tag
from qrels_lsp.core.project.config import SETTINGS, config_from_mapping, parse_config_text
from test_cli import qrels_lsp, write

LONG_ID = "q" * (MAX_ID + 1)


def codes(findings: object) -> list[str]:
    return [f.code for f in findings]  # type: ignore[attr-defined]


def golden(*, qid: str = "q1", doc: str = "d1", question: str = "Why?", tag: str = "t") -> str:
    """A golden set with these values; keys are written explicitly (``? key``), as YAML allows
    a plain key of at most 1,024 characters."""
    return (
        "queries:\n"
        f"  ? {qid}\n"
        "  : question: " + question + "\n"
        f"    tags: [{tag}]\n"
        f"    relevant: [{doc}, d2]\n"
        "  q2:\n"
        "    question: Where?\n"
        "    relevant:\n"
        f"      ? {doc}\n"
        "      : 2\n"
        "      d3: 1\n"
    )


def test_a_query_id_over_its_cap_leaves_its_entry_out() -> None:
    text = golden(qid=LONG_ID)
    qrels = parse_golden(text)
    assert list(qrels.queries) == ["q2"]
    (found,) = [f for f in qrels.findings if f.code == "QR007"]
    assert text[found.span.start : found.span.end] == LONG_ID
    assert "4,097 characters long, more than the 4,096" in found.message
    assert "q" * 100 not in found.message  # the value itself is never quoted


def test_an_entry_is_not_reparsed_alone_when_its_id_is_over_its_cap() -> None:
    assert parse_query_entry(f"? {LONG_ID}\n: relevant: [d1]\n", LONG_ID, 2) is None


def test_a_document_id_over_its_cap_is_left_out_of_lists_and_mappings() -> None:
    qrels = parse_golden(golden(doc=LONG_ID))
    assert [j.doc_id for j in qrels.queries["q1"].judgments] == ["d2"]
    assert [j.doc_id for j in qrels.queries["q2"].judgments] == ["d3"]
    assert codes(qrels.findings) == ["QR007", "QR007"]


def test_a_question_or_tag_over_its_cap_is_not_read() -> None:
    qrels = parse_golden(golden(question="w" * (MAX_QUESTION + 1), tag="t" * (MAX_ID + 1)))
    query = qrels.queries["q1"]
    assert query.question is None and query.tags == ()
    assert codes(qrels.findings) == ["QR007", "QR007"]


def test_values_at_their_caps_are_read() -> None:
    qid, doc, tag = "q" * MAX_ID, "d" * MAX_ID, "t" * MAX_ID
    qrels = parse_golden(golden(qid=qid, doc=doc, question="w" * MAX_QUESTION, tag=tag))
    assert "QR007" not in codes(qrels.findings)
    assert len(qrels.queries) == 2
    query = qrels.queries[qid]
    assert query.question == "w" * MAX_QUESTION and query.tags == (tag,)
    assert [j.doc_id for j in query.judgments] == [doc, "d2"]


@pytest.mark.parametrize("layout", ["lines", "tree"])
def test_a_run_name_over_its_cap_is_not_used(layout: str) -> None:
    name = "n" * (MAX_ID + 1)
    text = f"name: {name}\nresults:\n  q1: [d1, d2]\n"
    parse = parse_run_yaml if layout == "lines" else parse_run_yaml_tree
    run = parse(text)
    assert run.name is None and codes(run.findings) == ["QR007"]
    assert list(run.rankings) == ["q1"]
    assert name_written(text) is None
    assert parse(text.replace(name, "n" * MAX_ID)).name == "n" * MAX_ID


def test_a_trec_run_tag_over_its_cap_is_not_its_name() -> None:
    assert trec_run_tag(f"q1 Q0 d1 1 2.5 {'t' * (MAX_ID + 1)}\n") is None
    assert trec_run_tag(f"q1 Q0 d1 1 2.5 {'t' * MAX_ID}\n") == "t" * MAX_ID


# -- settings -------------------------------------------------------------------------------------

LONG_VALUES = {
    "k": None,  # numbers and booleans have no text
    "relevance_level": None,
    "ignore": ["Q" * (MAX_SETTING + 1)],
    "metrics": ["ndcg@10" + " " * MAX_METRIC_NAME],
    "golden": ["g" * (MAX_SETTING + 1)],
    "runs": ["r" * (MAX_SETTING + 1)],
    "bm25_baseline": None,
    "corpus_ids": "p" * (MAX_SETTING + 1),
    "qrels": [{"path": "x.qrels", "runs": ["r" * (MAX_SETTING + 1)]}],
    "fusions": [{"name": "f" * (MAX_SETTING + 1), "method": "rrf", "runs": ["a", "b"]}],
    "chunks": {"pattern": "(?P<doc>.+)" + "x" * MAX_SETTING},
    "compare_to": "c" * (MAX_SETTING + 1),
    "judgments": "j" * (MAX_SETTING + 1),
    "alpha": None,
    "min_difference": None,
    "min_judged": None,
    "pool_depth": None,
    "blind_judging": None,
    "allow_outside": ["/" + "a" * MAX_SETTING],
    "format": {"relevant": "l" * (MAX_SETTING + 1)},
    "preset": "q" * (MAX_SETTING + 1),
    "diff_base": "d" * (MAX_SETTING + 1),
}


def test_every_setting_is_listed_here() -> None:
    assert set(LONG_VALUES) == set(SETTINGS)


@pytest.mark.parametrize("key", [k for k, v in LONG_VALUES.items() if v is not None])
def test_a_setting_over_its_cap_is_qr403_and_keeps_its_default(key: str) -> None:
    from qrels_lsp.core.project.config import Config

    config = config_from_mapping({key: LONG_VALUES[key]}, Config(root=Path("/w")))
    assert codes(config.findings) == ["QR403"]
    assert getattr(config, key) == getattr(Config(), key)


def test_qr403_is_located_at_the_key_in_the_file() -> None:
    text = f'k = 5\n\nruns = ["{"r" * (MAX_SETTING + 1)}"]\n'
    config = parse_config_text(text, Path("/w/qrels-lsp.toml"))
    (found,) = config.findings
    assert found.code == "QR403" and text[found.span.start : found.span.end] == "runs"
    assert config.k == 5


def test_a_metric_at_its_cap_is_read_from_the_settings() -> None:
    from qrels_lsp.core.project.config import Config

    name = "ndcg@10" + " " * (MAX_METRIC_NAME - 7)
    assert config_from_mapping({"metrics": [name]}, Config()).metrics == (name,)


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["score", "g.qrels.yaml", "--metrics", "m" * (MAX_SETTING + 1)],
        ["check", "p" * (MAX_SETTING + 1)],
        ["gate", "g.qrels.yaml", "--base", "b" * (MAX_SETTING + 1), "--head", "h"],
    ],
    ids=["--metrics", "a path", "--base"],
)
def test_command_line_text_over_its_cap_exits_2(tmp_path: Path, args: list[str]) -> None:
    r = qrels_lsp(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "4,097 characters long, more than the 4,096" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_metric_over_its_cap_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "g.qrels.yaml", "queries:\n  q1:\n    relevant: [d1]\n")
    r = qrels_lsp("score", "g.qrels.yaml", "--metrics", "ndcg" + " " * 194 + "@10", cwd=tmp_path)
    assert r.returncode == 2 and "more than the 200" in r.stderr


# -- what a hostile value costs downstream -------------------------------------------------------


def test_a_message_quoting_a_megabyte_shows_its_start_and_end() -> None:
    from qrels_lsp.core.base.caps import MAX_MESSAGE
    from qrels_lsp.core.formats.trec_run import parse_trec_run

    qid = "q" * (1 << 20)
    run = parse_trec_run(f"{qid} Q0 d1 1 2.0 t\n{qid} Q0 d1 2 1.0 t\n")
    (found,) = [f for f in run.findings if qid[:100] in f.message]
    assert len(found.message) <= MAX_MESSAGE and " characters) … " in found.message
    assert found.message.startswith("document d1 is retrieved twice for query qqq")
    assert found.message.endswith(
        "the first occurrence is scored (trec_eval refuses the run): remove one"
    )


def test_line_starts_of_a_megabyte_of_undecodable_bytes() -> None:
    """The vectorised line index copies the text as 32-bit code points: the codec's
    surrogatepass took a second per megabyte of lone surrogates (a TREC file's invalid bytes)."""
    from qrels_lsp.core.base.text import _line_starts_vectorised

    text = "a\n" + "\udcff\udcfe" * (1 << 19) + "\nb😀\nc"
    assert list(_line_starts_vectorised(text)) == [0, 2, len(text) - 4, len(text) - 1]


def test_a_run_naming_a_golden_set_longer_than_a_file_name_is_a_finding(tmp_path: Path) -> None:
    """pathlib's is_file() raised on a name too long for the system: every command, and the
    server's analysis of the run, stopped with a traceback."""
    from qrels_lsp.core.base.boundary import Boundary
    from qrels_lsp.core.project.config import Config
    from qrels_lsp.core.project.project import Project

    write(tmp_path / "g.qrels.yaml", "queries:\n  q1:\n    relevant: [d1]\n")
    run = write(tmp_path / "a.run.yaml", f"qrels: {'n' * 300}.yaml\nresults:\n  q1: [d1]\n")
    project = Project(Config(root=tmp_path), boundary=Boundary.of([tmp_path]))
    analysis = project.analyse(run)
    assert any("does not exist" in f.message for f in analysis.findings)
