"""How complete the judgments are (`judgments: exhaustive | pooled`, docs/compare.md): the gate
on the golden sets people have. Most list only the relevant documents, so judged@10 is low
whatever the run, and a coverage rule would block every decision; a pooled set's low coverage
must still say "judge first".

Data: the Vaswani collection (tests/data/vaswani: 93 real questions whose judgments list only
relevant documents), its BM25 run, and the same run with the relevant documents of a seeded 40%
of the questions demoted out of the top 10 (tests/compare_data.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_data import bm25, demoted, grades
from conftest import TEST_DATA
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.findings import Finding
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from test_by_tag import run_text
from test_cli import qrels_lsp, write


def golden_yaml(judgments: str | None = None, zeros: int = 0) -> str:
    """The Vaswani judgments as a golden set; ``zeros``: that many of BM25's top irrelevant
    documents per question judged 0 too, as a pool would judge them."""
    lines = [f"judgments: {judgments}"] if judgments else []
    lines += ["k: 10", "runs: [bm25.trec, demoted.trec]", "queries:"]
    ranked = bm25()
    for qid, judged in grades().items():
        marks = dict(judged)
        for doc in [d for d in ranked.get(qid, []) if d not in judged][:zeros]:
            marks[doc] = 0
        inner = ", ".join(f"'{d}': {g}" for d, g in marks.items())
        lines += [f"  '{qid}':", f"    question: question {qid}", f"    relevant: {{{inner}}}"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def vaswani(tmp_path: Path) -> Path:
    write(tmp_path / "bm25.trec", run_text(bm25(), "bm25"))
    write(tmp_path / "demoted.trec", run_text(demoted(), "demoted"))
    return tmp_path


def gate(root: Path, golden: str, base: str, head: str) -> tuple[int, str, str]:
    r = qrels_lsp(
        "gate", golden, "--base", base, "--head", head, "--metric", "recall@10,ndcg@10",
        "--summary", "summary.md", cwd=root,
    )  # fmt: skip
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, r.stdout, (root / "summary.md").read_text(encoding="utf-8")


def test_a_positives_only_golden_set_gates_on_quality_not_coverage(vaswani: Path) -> None:
    write(vaswani / "g.qrels.yaml", golden_yaml())  # no key: read as exhaustive (no grade 0)
    code, out, summary = gate(vaswani, "g.qrels.yaml", "demoted.trec", "bm25.trec")
    assert code == 0 and out.startswith("✅ pass: bm25 against demoted"), out
    assert "judgments: exhaustive (inferred: no grade-0 judgment)" in out
    assert "Judgments: exhaustive (inferred: no grade-0 judgment)" in summary
    (vaswani / "summary.md").unlink()
    code, out, summary = gate(vaswani, "g.qrels.yaml", "bm25.trec", "demoted.trec")
    assert code == 1 and out.startswith("❌ fail: demoted against bm25"), out
    assert "recall@10 -" in out and "(worse; p (Holm)" in out
    assert "Judgments: exhaustive" in summary


def test_a_pooled_golden_set_with_low_coverage_says_judge_first(vaswani: Path) -> None:
    write(vaswani / "p.qrels.yaml", golden_yaml(zeros=2))  # grade-0 judgments: pooled
    code, out, summary = gate(vaswani, "p.qrels.yaml", "demoted.trec", "bm25.trec")
    assert code == 1 and out.startswith("⚠️ cannot tell: judge first"), out
    assert "Judgments: pooled" in summary and "qrels-lsp pool" in summary
    assert "judgments: pooled (inferred: 93 questions with grade-0 judgments)" in out
    write(vaswani / "s.qrels.yaml", golden_yaml("pooled"))  # said, with no grade 0
    code, out, _ = gate(vaswani, "s.qrels.yaml", "demoted.trec", "bm25.trec")
    assert code == 1 and "judgments: pooled (from the golden set)" in out, out


def test_the_trec_qrels_take_the_key_from_their_table_and_the_configuration(
    vaswani: Path,
) -> None:
    qrels = (TEST_DATA / "vaswani" / "qrels").read_text(encoding="utf-8")
    write(vaswani / "vaswani.qrels", qrels)
    table = '[[qrels]]\npath = "vaswani.qrels"\njudgments = "pooled"\n'
    write(vaswani / "qrels-lsp.toml", table)
    _, out, _ = gate(vaswani, "vaswani.qrels", "demoted.trec", "bm25.trec")
    assert "judgments: pooled (from its [[qrels]] table)" in out
    write(vaswani / "qrels-lsp.toml", 'judgments = "pooled"\n')
    _, out, _ = gate(vaswani, "vaswani.qrels", "demoted.trec", "bm25.trec")
    assert "judgments: pooled (from the configuration)" in out
    (vaswani / "qrels-lsp.toml").unlink()
    code, out, _ = gate(vaswani, "vaswani.qrels", "demoted.trec", "bm25.trec")
    assert code == 0 and "judgments: exhaustive (inferred" in out
    # the golden set's own key wins over the configuration's
    write(vaswani / "qrels-lsp.toml", 'judgments = "pooled"\n')
    write(vaswani / "g.qrels.yaml", golden_yaml("exhaustive"))
    _, out, _ = gate(vaswani, "g.qrels.yaml", "demoted.trec", "bm25.trec")
    assert "judgments: exhaustive (from the golden set)" in out


# -- QR120 --------------------------------------------------------------------------------------

TEXT = """\
# our golden set
k: 5
queries:  # questions from the support inbox
  q1:
    question: how do I reset my password
    relevant: [kb/reset.md]
  q2:
    question: what does E1042 mean
    relevant: {kb/errors.md: 2}
"""


def analysed(root: Path, text: str, project: Project | None = None) -> list[Finding]:
    path = root / "g.qrels.yaml"
    path.write_text(text, encoding="utf-8")
    project = project or Project(load_config(root), boundary=Boundary.everywhere())
    analysis = project.analyse(path)
    assert analysis is not None
    return [f for f in analysis.findings if f.code == "QR120"]


def test_qr120_says_what_the_judgments_are_read_as_and_writes_the_key(tmp_path: Path) -> None:
    (found,) = analysed(tmp_path, TEXT)
    assert TEXT[found.span.start : found.span.end] == "queries"
    assert "read as `exhaustive`: no judgment has grade 0" in found.message
    (fix,) = found.fixes
    (edit,) = fix.edits
    fixed = TEXT[: edit.span.start] + edit.new_text + TEXT[edit.span.end :]
    assert fixed == TEXT.replace("queries:  #", "judgments: exhaustive\nqueries:  #", 1)
    assert analysed(tmp_path, fixed) == []  # said: nothing to say
    pooled = TEXT.replace("{kb/errors.md: 2}", "{kb/errors.md: 2, kb/other.md: 0}")
    (found,) = analysed(tmp_path, pooled)
    assert "read as `pooled`: 1 question judges documents not relevant (grade 0)" in found.message
    assert found.fixes[0].edits[0].new_text == "judgments: pooled\n"


def test_qr120_follows_an_edit_of_one_grade(tmp_path: Path) -> None:
    """The inference is kept between edits (a count of the questions with a grade 0), so an
    edit that adds or removes the only grade 0 flips it, as a fresh analysis says."""
    project = Project(load_config(tmp_path), boundary=Boundary.everywhere())
    assert "`exhaustive`" in analysed(tmp_path, TEXT, project)[0].message
    zero = TEXT.replace("{kb/errors.md: 2}", "{kb/errors.md: 0}")
    assert "`pooled`" in analysed(tmp_path, zero, project)[0].message
    assert "`exhaustive`" in analysed(tmp_path, TEXT, project)[0].message


def test_a_bad_value_is_qr004_and_the_inference_applies(tmp_path: Path) -> None:
    path = write(tmp_path / "g.qrels.yaml", "judgments: complete\n" + TEXT)
    r = qrels_lsp("check", "--format", "json", path, cwd=tmp_path)
    codes = [f["code"] for f in json.loads(r.stdout)["findings"]]
    assert codes == ["QR004", "QR120"], r.stdout
