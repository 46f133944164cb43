"""`qrels-lsp gate` (issue 17) on generated runs with planted regressions: a significant drop, a
drop under the tolerance that is not significant, a critical question that got worse, low
coverage, improvements only. Exit codes, verdicts and summaries are asserted; the comparison the
verdict rests on is the one `compare --format json` prints. Then the README's GitHub Actions
workflow, run with its environment (GITHUB_STEP_SUMMARY, `--format github`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_cli import ENV, qrels_lsp, write

N = 40
ROOT = Path(__file__).resolve().parents[1]


def golden(critical: tuple[str, ...] = ()) -> str:
    """40 questions; each judges its two relevant documents and eight non-relevant ones, so
    the runs below are fully judged in their top 10."""
    lines = ["k: 5", "runs: [runs/*.trec]", "queries:"]
    for q in range(N):
        qid = f"q{q:02d}"
        grades = {f"{qid}-r{i}": 1 for i in range(2)} | {f"{qid}-n{i}": 0 for i in range(8)}
        inner = ", ".join(f"{d}: {g}" for d, g in grades.items())
        lines += [f"  {qid}:", f"    question: question {q}"]
        if qid in critical:
            lines.append("    tags: [critical]")
        lines.append(f"    relevant: {{{inner}}}")
    return "\n".join(lines) + "\n"


def ranking(qid: str, relevant_at: tuple[int, ...], unjudged: int = 0) -> list[str]:
    """Ten documents: the relevant ones at the 0-based ranks given, judged non-relevant ones
    (or, ``unjudged`` of them first, documents nobody judged) elsewhere."""
    others = [f"{qid}-x{i}" for i in range(unjudged)] + [f"{qid}-n{i}" for i in range(8)]
    out: list[str | None] = [None] * 10
    for i, rank in enumerate(relevant_at):
        out[rank] = f"{qid}-r{i}"
    fill = iter(others)
    return [d if d is not None else next(fill) for d in out]


def trec(rankings: dict[str, list[str]], tag: str) -> str:
    return "".join(
        f"{q} Q0 {d} {i} {10 - i} {tag}\n" for q, ids in rankings.items() for i, d in enumerate(ids)
    )


BASE = {f"q{q:02d}": ranking(f"q{q:02d}", (0, 1)) for q in range(N)}


def workspace(tmp_path: Path, head: dict[str, list[str]], critical: tuple[str, ...] = ()) -> Path:
    write(tmp_path / "g.qrels.yaml", golden(critical))
    write(tmp_path / "runs" / "base.trec", trec(BASE, "base"))
    write(tmp_path / "runs" / "head.trec", trec(head, "head"))
    return tmp_path / "g.qrels.yaml"


def gate(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    path = tmp_path / "g.qrels.yaml"
    summary = tmp_path / "summary.md"
    args = [
        "gate",
        path,
        "--base",
        tmp_path / "runs" / "base.trec",
        "--head",
        tmp_path / "runs" / "head.trec",
    ]
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", *map(str, args), "--summary", str(summary), *extra],
        capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, env=env or ENV, timeout=120,
    )  # fmt: skip
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, r.stdout, summary.read_text(encoding="utf-8")


def assert_tables_are_well_formed(markdown: str) -> None:
    """Every Markdown table has as many cells in each row as in its header (else GitHub does not
    render it as a table)."""
    for block in re.split(r"\n\s*\n", markdown):
        rows = [r for r in block.splitlines() if r.startswith("|")]
        if rows:
            widths = {r.count(" | ") for r in rows}
            assert len(widths) == 1, block


def test_a_significant_drop_fails(tmp_path: Path) -> None:
    head = {q: ranking(q, (5, 7)) if i < 30 else BASE[q] for i, q in enumerate(BASE)}
    workspace(tmp_path, head)
    code, out, summary = gate(tmp_path, "--metric", "recall@5")
    assert code == 1 and out.startswith("❌ fail: head against base")
    assert summary.startswith("## qrels-lsp gate: ❌ fail\n")
    assert "recall@5 -0.7500 (worse; p (Holm)" in summary
    compared = json.loads(
        qrels_lsp(
            "compare",
            tmp_path / "g.qrels.yaml",
            tmp_path / "runs" / "base.trec",
            tmp_path / "runs" / "head.trec",
            "--metrics",
            "recall@5",
            "--format",
            "json",
            cwd=tmp_path,
        ).stdout
    )
    [c] = [c for c in compared["comparisons"] if c["run"] == "head"]
    assert (
        c["significant"]
        and f"| recall@5 | worse | {c['base_mean']:.4f} | {c['run_mean']:.4f} | {c['delta']:+.4f} |"
        in summary
    )
    assert "**Worse: 30**" in summary and "### Coverage" in summary and "### What to do" in summary
    assert_tables_are_well_formed(summary)


def test_a_small_drop_that_is_not_significant_passes(tmp_path: Path) -> None:
    head = dict(BASE)
    head["q00"] = ranking("q00", (0, 5))  # recall@5 0.5 on one question of 40: -0.0125
    workspace(tmp_path, head)
    code, out, summary = gate(tmp_path, "--metric", "recall@5")
    assert code == 0 and out.startswith("✅ pass")
    assert "## qrels-lsp gate: ✅ pass" in summary and "**Worse: 1**" in summary
    # the same drop with no tolerance fails
    code, out, summary = gate(tmp_path, "--metric", "recall@5", "--max-drop", "0.01")
    assert code == 1 and "more than 0.01" in out


def test_a_critical_question_that_gets_worse_fails(tmp_path: Path) -> None:
    head = dict(BASE)
    head["q07"] = ranking("q07", (0, 5))
    workspace(tmp_path, head, critical=("q07",))
    code, out, summary = gate(tmp_path, "--metric", "recall@5,mrr")
    assert code == 1, out
    assert "critical question q07 got worse (recall@5 -0.50)" in summary
    assert "| `q07` (critical) |" in summary
    # another tag: q07 is not critical for it, and the small drop passes
    code, _out, _summary = gate(tmp_path, "--metric", "recall@5", "--critical", "billing")
    assert code == 0


def test_low_coverage_cannot_tell(tmp_path: Path) -> None:
    head = {
        q: ranking(q, (0, 1), unjudged=6) if i % 2 == 0 else BASE[q] for i, q in enumerate(BASE)
    }
    workspace(tmp_path, head)
    code, out, summary = gate(tmp_path)
    assert code == 1 and out.startswith("⚠️ cannot tell: judge first")
    assert "judged@5 of head is 0.70, below 0.8" in summary
    assert "qrels-lsp pool " in summary and "--depth 5" in summary  # as deep as judged@5
    pooled = json.loads(
        qrels_lsp(
            "pool", tmp_path / "g.qrels.yaml", "head", "--format", "json", cwd=tmp_path
        ).stdout
    )
    assert len(pooled) == 20 * 6  # six unjudged documents in the top 10 of every other question
    code, out, _ = gate(tmp_path, "--min-judged", "0.6")
    assert code == 0, out


def test_improvements_only_pass(tmp_path: Path) -> None:
    base_worse = {q: ranking(q, (3, 6)) for q in BASE}
    write(tmp_path / "g.qrels.yaml", golden())
    write(tmp_path / "runs" / "base.trec", trec(base_worse, "base"))
    write(tmp_path / "runs" / "head.trec", trec(BASE, "head"))
    code, out, summary = gate(tmp_path)
    assert code == 0 and out.startswith("✅ pass")
    assert "**Worse" not in summary and "**Better: 40**" in summary
    assert_tables_are_well_formed(summary)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    workspace(tmp_path, BASE)
    for extra in (
        ["--max-drop", "2"],
        ["--alpha", "0"],
        ["--metric", "judged@5"],
        ["--metric", "bleu"],
    ):
        r = qrels_lsp(
            "gate",
            tmp_path / "g.qrels.yaml",
            "--base",
            "base",
            "--head",
            "nosuch",
            *extra,
            cwd=tmp_path,
        )
        assert r.returncode == 2, (extra, r.stdout, r.stderr)
    r = qrels_lsp(
        "gate", tmp_path / "g.qrels.yaml", "--base", "base", "--head", "head", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr  # runs named by their names: the golden set's runs
    assert "head against base" in r.stdout


def test_the_github_actions_workflow_of_the_readme(tmp_path: Path) -> None:
    """The README's workflow step, run with GitHub's environment: the summary goes to
    $GITHUB_STEP_SUMMARY (appended to), annotations point at the golden set's lines, and ids
    written to forge workflow commands stay data."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    step = re.search(
        r"\n\s*- name: Gate on retrieval quality\n\s*run: (qrels-lsp gate [^\n]+)", readme
    )
    assert step is not None, "the README's workflow has a gate step"
    hostile = "q00::error::forged%0A::add-mask::x"
    text = golden(critical=("q01",)).replace("  q00:", f'  "{hostile}":').replace("q00-", "x00-")
    write(tmp_path / "evals" / "support.qrels.yaml", text)
    head = dict(BASE)
    head["q01"] = ranking("q01", (0, 5))
    head[hostile] = ranking("x00", (0, 6))
    base = {
        (hostile if q == "q00" else q): (ranking("x00", (0, 1)) if q == "q00" else ids)
        for q, ids in BASE.items()
    }
    write(tmp_path / "runs" / "production.trec", trec(base, "production"))
    write(tmp_path / "runs" / "candidate.trec", trec(head, "candidate"))
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    env = {**ENV, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    import shlex
    import subprocess
    import sys

    words = shlex.split(step.group(1))
    r = subprocess.run([sys.executable, "-m", "qrels_lsp.cli", *words[1:]], capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, env=env, timeout=120)  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr  # the critical question q01 got worse
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("earlier step\n## qrels-lsp gate: ❌ fail")
    annotations = [line for line in r.stdout.splitlines() if line.startswith("::")]
    lines = text.splitlines()
    assert any(a.startswith("::error file=evals/support.qrels.yaml,line=") for a in annotations)
    for a in annotations:
        m = re.match(
            r"::(error|warning) file=evals/support\.qrels\.yaml,line=(\d+),title=[^:]*::(.*)$", a
        )
        assert m is not None, a  # one command per line, nothing forged inside it
        assert lines[int(m.group(2)) - 1].lstrip().startswith(('"q00', "q0", "q1", "q2", "q3")), a
    assert not any(line.startswith("::add-mask") for line in r.stdout.splitlines())
    assert not any(line.lstrip().startswith("::") for line in written.splitlines())
    assert f"`{hostile}`" in written  # quoted as code, as it was written


def test_broken_input_is_an_input_error(tmp_path: Path) -> None:
    """A golden set with a syntax error, or a run with malformed lines, does not pass: exit 2,
    with what was left out said; so does a golden set with no question to compare."""
    workspace(tmp_path, BASE)
    path = tmp_path / "g.qrels.yaml"
    path.write_text(golden() + "  q99:\n    relevant: [q99-r0\n", encoding="utf-8")
    r = qrels_lsp("gate", path, "--base", "base", "--head", "head", cwd=tmp_path)
    assert r.returncode == 2 and "QR001" in r.stderr, r.stdout + r.stderr
    path.write_text(golden(), encoding="utf-8")
    with (tmp_path / "runs" / "head.trec").open("a", encoding="utf-8") as f:
        f.write("q00 Q0 broken\n")
    r = qrels_lsp("gate", path, "--base", "base", "--head", "head", cwd=tmp_path)
    assert r.returncode == 2 and "QR301" in r.stderr, r.stdout + r.stderr
    write(
        tmp_path / "u.qrels.yaml", "runs: [runs/*.trec]\nqueries:\n  q00:\n    unanswerable: true\n"
    )
    r = qrels_lsp(
        "gate", tmp_path / "u.qrels.yaml", "--base", "base", "--head", "base", cwd=tmp_path
    )
    assert r.returncode == 2 and "no question to compare" in r.stderr, r.stdout + r.stderr


def test_a_drop_of_exactly_the_tolerance_passes(tmp_path: Path) -> None:
    """0.48 - 0.50 is -0.020000000000000018 in floats: a drop of 0.02 with --max-drop 0.02 is
    allowed, not more than it."""
    base = {q: ranking(q, (0, 1)) if i < 25 else ranking(q, (5, 6)) for i, q in enumerate(BASE)}
    head = dict(base)
    head["q00"] = ranking("q00", (5, 6))  # one question of 50... of 40: recall@1 0.625 -> 0.600
    write(tmp_path / "g.qrels.yaml", golden())
    write(tmp_path / "runs" / "base.trec", trec(base, "base"))
    write(tmp_path / "runs" / "head.trec", trec(head, "head"))
    code, out, _ = gate(tmp_path, "--metric", "recall@1", "--max-drop", "0.025")
    assert code == 0, out  # 0.625 - 0.600 = 0.025 (plus float noise): allowed
