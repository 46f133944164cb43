"""`qrels-lsp fmt`, run for real: in place, `--check` and `--diff` for CI, a file it cannot
format among others, files it must not write (a symlink, one outside the current folder, one
that is not UTF-8), and the embedded example formatted with every option scoring and checking
exactly as before."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import EXAMPLES
from test_cli import qrels_lsp, write

MESSY = "queries:\n  q2:\n    relevant: [kb/a.md]\n    question: second  # asked twice\n  q1:\n    question: first\nk: 5\n"
TIDY = "k: 5\nqueries:\n  q2:\n    question: second  # asked twice\n    relevant: [kb/a.md]\n  q1:\n    question: first\n"


def test_fmt_writes_in_place_and_then_has_nothing_to_do(tmp_path: Path) -> None:
    path = write(tmp_path / "g.qrels.yaml", MESSY)
    path.chmod(0o640)
    done = qrels_lsp("fmt", "g.qrels.yaml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert "reformatted g.qrels.yaml" in done.stderr
    assert path.read_text(encoding="utf-8") == TIDY
    assert path.stat().st_mode & 0o777 == 0o640  # the file's own permissions
    again = qrels_lsp("fmt", ".", cwd=tmp_path)
    assert again.returncode == 0 and "0 files reformatted, 1 unchanged" in again.stderr


def test_check_exits_1_and_changes_nothing(tmp_path: Path) -> None:
    messy = write(tmp_path / "a.qrels.yaml", MESSY)
    tidy = write(tmp_path / "b.qrels.yaml", TIDY)
    before = messy.stat().st_mtime_ns
    done = qrels_lsp("fmt", "--check", ".", cwd=tmp_path)
    assert done.returncode == 1
    assert "would reformat a.qrels.yaml" in done.stderr and "b.qrels.yaml" not in done.stderr
    assert messy.read_text(encoding="utf-8") == MESSY and messy.stat().st_mtime_ns == before
    assert qrels_lsp("fmt", "--check", "b.qrels.yaml", cwd=tmp_path).returncode == 0
    assert tidy.read_text(encoding="utf-8") == TIDY


def test_diff_prints_the_change_escaped_for_a_log(tmp_path: Path) -> None:
    hostile = MESSY.replace("# asked twice", "# ::error::forged")
    path = write(tmp_path / "g.qrels.yaml", hostile)
    done = qrels_lsp("fmt", "--diff", "g.qrels.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("--- a/g.qrels.yaml\n+++ b/g.qrels.yaml\n@@ ")
    assert "+k: 5\n" in done.stdout and "-k: 5\n" in done.stdout
    assert not any(line.lstrip().startswith("::") for line in done.stdout.splitlines())
    assert path.read_text(encoding="utf-8") == hostile


def test_a_file_that_cannot_be_formatted_is_named_and_the_others_are_done(tmp_path: Path) -> None:
    write(tmp_path / "bad.qrels.yaml", "queries:\n  q1: [\n")
    good = write(tmp_path / "good.qrels.yaml", MESSY)
    done = qrels_lsp("fmt", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.qrels.yaml:3:1: not formatted: QR001 YAML syntax error" in done.stderr
    assert good.read_text(encoding="utf-8") == TIDY
    assert "1 file reformatted, 0 unchanged, 1 not formatted" in done.stderr


def test_what_is_not_written(tmp_path: Path) -> None:
    target = write(tmp_path / "target.yaml", MESSY)
    (tmp_path / "link.qrels.yaml").symlink_to(target)
    raw = MESSY.encode("utf-8").replace(b"first", b"fir\xffst")
    (tmp_path / "latin.qrels.yaml").write_bytes(raw)
    write(tmp_path / "run.trec", "q1 Q0 d1 1 1.0 x\n")
    done = qrels_lsp("fmt", "link.qrels.yaml", "latin.qrels.yaml", "run.trec", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "link.qrels.yaml: not formatted: not written: link.qrels.yaml is a symlink" in done.stderr
    )
    assert "latin.qrels.yaml: not formatted: not UTF-8 (at byte" in done.stderr
    assert "run.trec: not formatted: not a golden set or run YAML" in done.stderr
    assert target.read_text(encoding="utf-8") == MESSY
    assert (tmp_path / "latin.qrels.yaml").read_bytes() == raw
    outside = qrels_lsp("fmt", str(target), cwd=tmp_path / "..")
    assert outside.returncode == 2


def test_a_byte_order_mark_and_crlf_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "g.qrels.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + MESSY.replace("\n", "\r\n").encode("utf-8"))
    assert qrels_lsp("fmt", "g.qrels.yaml", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + TIDY.replace("\n", "\r\n").encode("utf-8")


def test_the_example_formatted_every_way_scores_and_checks_the_same(tmp_path: Path) -> None:
    """Every number `score` prints (five runs: YAML, TREC, chunks, a fusion) and every finding
    `check` reports, before and after formatting the example sorted and in each style."""
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES, ws)
    score = ["score", "support.qrels.yaml", "--format", "json"]
    before_scores = _scores(qrels_lsp(*score, cwd=ws).stdout)
    before_check = _codes(qrels_lsp("check", ".", "--format", "json", cwd=ws).stdout)
    assert before_scores["runs"] and before_check
    for style in ("flow", "block", "mapping", "list", "keep"):
        (ws / "qrels-lsp.toml").write_text(
            f'format = {{sort_queries = true, relevant = "{style}"}}\n', encoding="utf-8"
        )
        done = qrels_lsp("fmt", ".", cwd=ws)
        assert done.returncode == 0, done.stderr
        os.remove(ws / "qrels-lsp.toml")
        assert _scores(qrels_lsp(*score, cwd=ws).stdout) == before_scores, style
        assert _codes(qrels_lsp("check", ".", "--format", "json", cwd=ws).stdout) == before_check, (
            style
        )


def _scores(report: str) -> dict[str, object]:
    """`score`'s JSON with its lists of questions as sets: sorted questions are listed in their
    new order (every number is compared as it is)."""
    data: dict[str, object] = json.loads(report)
    for run in data["runs"]:  # type: ignore[attr-defined]
        for key, value in run.items():
            if isinstance(value, list):
                run[key] = sorted(value)
    return data


def _codes(report: str) -> list[tuple[str, str]]:
    """Each finding's file and code (not its place: lines move)."""
    data = json.loads(report)
    return sorted((Path(f["path"]).name, f["code"]) for f in data["findings"])
