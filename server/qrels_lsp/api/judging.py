"""``pool`` and ``check``: ``qrels-lsp pool`` and ``check`` for Python (``core/coverage/pool.py``
and the checks of ``core/checks`` through the project's analysis)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .bench import open_golden
from .evaluation import _scored_runs
from .results import Check, Finding, Pair, Pool

if TYPE_CHECKING:
    import os

    from ..core.project.config import Config
    from .inputs import GoldenInput, RunInput


def pool(
    golden: GoldenInput,
    runs: Mapping[str, RunInput] | Sequence[RunInput],
    depth: int | None = None,
    *,
    relevance_level: int | None = None,
) -> Pool:
    """The judging queue: every document a run puts in a question's top ``depth`` (default:
    the ``pool_depth`` setting, 10) that the golden set does not judge, most shared first, then
    best ranked (docs/compare.md, "Which documents to judge next")."""
    from ..core.project.judging import pool_of

    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    bench = open_golden(golden, relevance_level=relevance_level)
    results = _scored_runs(bench, runs)
    found = pool_of(bench.ctx, results, depth=depth, baseline=True)
    assert found is not None  # runs were given, each scorable
    pairs = [Pair(p.query, p.doc, list(p.runs), p.best_rank) for p in found.pairs]
    return Pool(found.depth, list(found.runs), pairs)


def check(*paths: str | os.PathLike[str]) -> Check:
    """Every finding of the golden sets, runs and TREC/BEIR/JSON files at ``paths`` (folders
    are walked for the files whose names make them ours), as ``qrels-lsp check --format json``
    reports them: each file in its project (its configuration, its golden set)."""
    from ..core.base.boundary import Boundary
    from ..core.base.text import line_index
    from ..core.project.config import load_config
    from ..core.project.project import Project

    named = [Path(p) for p in paths]
    if not named:
        raise ValueError("check needs a path")
    for p in named:
        if not p.exists():
            raise FileNotFoundError(f"{p} does not exist")
    config = load_config(named[0].resolve())
    roots = [config.root or named[0].resolve().parent, *(p.resolve() for p in named)]
    boundary = (
        Boundary.everywhere() if config.allow_anywhere else Boundary.of(roots, config.allow_outside)
    )
    project = Project(config, boundary=boundary)
    findings: list[Finding] = []
    files: dict[str, str | None] = {}
    for path in _files(named, config):
        analysis = project.analyse(path, with_runs=False)
        files[str(path)] = analysis.kind if analysis is not None else None
        if analysis is None:
            continue
        lines = line_index(analysis.text)
        for f in analysis.findings:
            (line, col), (end_line, end_col) = (
                lines.position(f.span.start),
                lines.position(f.span.end),
            )
            findings.append(
                Finding(
                    str(path),
                    line + 1,
                    col + 1,
                    end_line + 1,
                    end_col + 1,
                    f.severity.label,
                    f.code,
                    f.message,
                    [fix.title for fix in f.fixes],
                )
            )
    return Check(findings, files)


def _files(named: list[Path], config: Config) -> list[Path]:
    """The files named, and under each folder named the files whose names make them ours."""
    from ..core.project.walk import files_of_ours

    out: list[Path] = []
    for path in named:
        out += files_of_ours(path, config)[0] if path.is_dir() else [path]
    return out
