"""``fuse``: ``qrels-lsp fuse`` for Python (``core/fusion``, ranx's arithmetic in its order)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .inputs import as_path, run_model
from .results import Run

if TYPE_CHECKING:
    from ..core.fusion import Input, Params
    from .inputs import RunInput


def fuse(
    runs: Mapping[str, RunInput] | Sequence[RunInput],
    method: str = "rrf",
    *,
    k: float | None = None,
    weights: Sequence[float] | None = None,
    norm: str | None = None,
    depth: int | None = None,
    name: str | None = None,
) -> Run:
    """Fuse two runs or more: ``rrf`` (``k``, 60 by default), ``combsum``, ``combmnz`` or
    ``wsum`` (one weight per run), the score methods normalising each run's scores per query by
    ``norm`` (``min-max``, ``zmuv`` or ``sum``); ``depth``: each run's top documents only. The
    result is ranked in trec_eval's order, equals ``qrels-lsp fuse``'s file (``to_trec()``) and
    is a run the other functions take."""
    from ..core.fusion import METHODS
    from ..core.fusion import fuse as fused_of

    given = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    if len(given) < 2:
        raise ValueError("fuse needs two runs or more")
    params = _params(method, k, weights, norm, depth, len(given))
    needs_scores = METHODS[params.method].needs_scores
    done = fused_of(params, [_input(r, needs_scores) for r in given])
    return Run(name or params.method, done.rankings, done.scores)


def _params(
    method: str,
    k: float | None,
    weights: Sequence[float] | None,
    norm: str | None,
    depth: int | None,
    n: int,
) -> Params:
    """The fusion's parameters, checked by the rules a golden set's `fusions:` and the command
    line follow (``core/fusion/spec.py``)."""
    from ..core.fusion import DEFAULT_NORM, DEFAULT_RRF_K, METHODS, NORMS, Params, value_problem

    if method not in METHODS:
        raise ValueError(f"unknown fusion method {method!r}: one of {', '.join(METHODS)}")
    if norm is not None and norm not in NORMS:
        raise ValueError(f"unknown norm {norm!r}: one of {', '.join(NORMS)}")
    taken = tuple(weights) if weights is not None else None
    for key, value in (("depth", depth), ("k", k), ("weights", taken), ("norm", norm)):
        if value is None:
            continue
        if key not in METHODS[method].takes:
            raise ValueError(f"{method} takes no {key}")
        problem = value_problem(key, value)
        if problem is not None:
            raise ValueError(problem)
    if method == "wsum" and (taken is None or len(taken) != n):
        raise ValueError(f"wsum needs weights, one per run ({n})")
    return Params(method, DEFAULT_RRF_K if k is None else k, taken, norm or DEFAULT_NORM, depth)


def _input(run: RunInput, needs_scores: bool) -> Input:
    """One run's rankings (and scores, for a score method), read as ``fuse`` reads a file."""
    from ..core.base.boundary import Boundary
    from ..core.fusion import Input
    from ..core.project.config import Config
    from ..core.project.project import Project

    path = as_path(run)
    if path is not None:
        if not path.is_file():
            raise FileNotFoundError(f"run {path} does not exist")
        project = Project(Config(), boundary=Boundary.of([Path(path).resolve().parent]))
        model, rankings, error, _name = project.runs.read_run(path, fast=not needs_scores)
        if error is not None:
            raise ValueError(f"{path}: {error}")
    else:
        model = run_model(run).run
        rankings = model.ranked_ids()
    if not needs_scores:
        return Input(rankings)
    assert model is not None  # read with spans: a score method needs the scores
    scores: dict[str, list[float]] = {}
    for qid, ranking in model.rankings.items():
        values = [d.score for d in ranking.docs]
        if any(v is None for v in values):
            raise ValueError(
                f"{path or 'a run'}: query {qid!r} is ranked without scores (a list): the score "
                "methods add scores, use method='rrf'"
            )
        scores[qid] = values  # type: ignore[assignment]
    return Input(model.ranked_ids(), scores)
