"""A golden set made ready to score runs, through the project the command line uses
(``core/project``): a file is read, bound (its corpus, chunks rule, relevance level, preset) and
scored exactly as ``qrels-lsp score`` reads, binds and scores it; an in-memory golden set is the
same core model without a file. Nothing here computes a number."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.metrics import parse_metric
from ..core.model import Ref
from .inputs import NOWHERE, as_path, golden_model, run_model

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..core.project.project import Project
    from ..core.project.results import QrelsContext, RunResult

MEMORY = "<memory>"  # the name an in-memory golden set or run is kept under (never a file)


@dataclass(slots=True)
class Bench:
    """A golden set's context in its project, and each metric's key as the caller wrote it
    (``nDCG@10``) with the project's name for it (``ndcg@10``)."""

    project: Project
    ctx: QrelsContext
    keys: dict[str, str]


def open_golden(
    golden: object,
    *,
    k: int | None = None,
    relevance_level: int | None = None,
    metrics: Sequence[str] | None = None,
    preset: str | None = None,
) -> Bench:
    """The golden set ``golden`` (a path or an in-memory golden set) with ``k`` and
    ``relevance_level`` applied as ``score -k -l`` applies them, and ``metrics`` read in any
    tool's spelling (default: the configuration's, else the project's defaults at k); ``preset``
    names a known benchmark whose conventions apply (docs/presets.md), as `preset:` would."""
    # The project is imported here: importing the API loads no more than the commands' start.
    from ..core.base.boundary import Boundary
    from ..core.project.config import Config, preset_problem
    from ..core.project.project import Project

    if preset is not None and preset_problem(preset) is not None:
        raise ValueError(f"preset {preset!r}: {preset_problem(preset)}")
    path = as_path(golden)
    if path is None:
        project = Project(Config(), boundary=Boundary.of([]))
        model = golden_model(golden, k=k, level=relevance_level)
        model.preset = Ref(preset, NOWHERE) if preset is not None else None
        ctx = project.context(Path(MEMORY), "json-qrels", model)
    else:
        project, ctx = _golden_file(path, k, relevance_level, preset)
    if not ctx.grades and not ctx.unanswerable:
        raise ValueError(f"{golden if path is None else path}: the golden set holds no judgments")
    keys = {str(m): str(m) for m in ctx.metrics}
    if metrics is not None:
        if isinstance(metrics, str):
            metrics = [metrics]  # one metric, not its letters
        parsed = {name: parse_metric(name, ctx.k) for name in metrics}
        keys = {name: str(m) for name, m in parsed.items()}
        ctx = replace(ctx, metrics=list(dict.fromkeys(parsed.values())))
    return Bench(project, ctx, keys)


def _golden_file(
    path: Path, k: int | None, level: int | None, preset: str | None
) -> tuple[Project, QrelsContext]:
    """A golden set file read as ``score`` reads it: its configuration (the nearest
    ``qrels-lsp.toml``), its workspace (the configuration's folder, else the file's), its format
    by name and content."""
    from ..core.base.boundary import Boundary
    from ..core.model import Qrels
    from ..core.project.config import load_config
    from ..core.project.project import Project

    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    config = load_config(path.resolve())
    root = config.root or path.resolve().parent
    boundary = (
        Boundary.everywhere()
        if config.allow_anywhere
        else Boundary.of([root, path.resolve().parent], config.allow_outside)
    )
    project = Project(config, boundary=boundary)
    kind, _text, model, error = project.load(path, role="qrels")
    if not isinstance(model, Qrels) or kind is None:
        raise ValueError(f"{path}: {error or 'not a golden set or qrels file'}")
    if k is not None:
        model.k = k
    if level is not None:
        model.relevance_level = level
    if preset is not None:
        model.preset = Ref(preset, NOWHERE)
    return project, project.context(path, kind, model)


def score(bench: Bench, run: object, key: str, name: str | None = None) -> RunResult:
    """One run scored against the bench's golden set: a file as ``score`` scores it (its format,
    its name), an in-memory run as the same rankings would be; ``key`` keeps in-memory runs
    apart in the project's caches."""
    path = as_path(run)
    if path is None:
        named = run_model(run)
        result = bench.project.scoring.score_rankings(
            bench.ctx, Path(key), named.run.ranked_ids(), name or named.name or key
        )
    else:
        if not path.is_file():
            raise FileNotFoundError(f"run {path} does not exist")
        project = bench.project
        project.boundary = project.boundary.widened([path.resolve().parent])  # named: trusted
        result = project.scoring.score_run(bench.ctx, path, fast=True)
        if name is not None:
            result = replace(result, name=name)
    if result.error:
        raise ValueError(f"{path or key}: {result.error}")
    return result
