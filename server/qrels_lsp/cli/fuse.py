"""`qrels-lsp fuse RUN... --method rrf -o fused.trec`: runs fused as a golden set's `fusions:`
fuses them (the same code, docs/compare.md "Fusion"), written as a TREC run in trec_eval's order
with the fused scores, so trec_eval, ranx and `qrels-lsp score` read the run it made."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    UsageError,
    allow_outside,
    boundary_for,
    chunk_options,
    chunk_rule,
    config_for,
    log_text,
    progress_on,
    workspace_of,
    write_file,
)

if TYPE_CHECKING:
    from ..core.chunks import ChunkRule
    from ..core.fusion import Fused, Input, Params
    from ..core.project.project import Project


def add(sub: Any) -> None:
    """The ``fuse`` subcommand's arguments."""
    f = sub.add_parser(
        "fuse", help="fuse runs (RRF, CombSUM, CombMNZ, weighted sum) into a TREC run"
    )
    f.add_argument("runs", nargs="+", type=Path, help="two runs or more, in any run format")
    f.add_argument("-o", "--output", type=Path, required=True, help="the TREC run to write")
    f.add_argument(
        "--method", choices=["rrf", "combsum", "combmnz", "wsum"], default="rrf", help="default rrf"
    )
    f.add_argument("--k", type=float, help="RRF's constant: each run adds 1 / (k + rank); 60")
    f.add_argument(
        "--norm",
        choices=["min-max", "zmuv", "sum"],
        help="how score methods normalise each run's scores per query (default min-max)",
    )
    f.add_argument("--weights", help="wsum: one weight per run, comma-separated: 0.7,0.3")
    f.add_argument("--depth", type=int, help="each run's top documents fused (default: all)")
    f.add_argument("--name", help="the run tag written (default: the method)")
    f.add_argument("--config", type=Path)
    chunk_options(f)
    allow_outside(f)
    f.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.project.project import Project

    params = _params(args)
    workspace = workspace_of(args, args.runs)
    for p in args.runs:
        if not p.is_file():
            raise UsageError(f"run {p} does not exist")
    if len(args.runs) < 2:
        raise UsageError("fuse needs two runs or more")
    config = config_for(args.config, args.runs[0], workspace)
    project = Project(
        config, progress=progress_on(), boundary=boundary_for(args, config, workspace)
    )
    rule = chunk_rule(args)
    inputs = [_input(project, p, params, rule) for p in args.runs]
    from ..core.formats.trec_run import run_tag
    from ..core.fusion import fuse

    fused = fuse(params, inputs)
    tag = run_tag(args.name or params.method, params.method)
    # Ids are written back byte for byte: an invalid UTF-8 byte a TREC run held (read as a lone
    # surrogate, as trec_eval compares ids as bytes) is that byte again.
    write_file(args.output, trec_text(fused, tag), errors="surrogateescape")
    lines = sum(len(r) for r in fused.rankings.values())
    print(
        f"wrote {log_text(args.output)}: {len(fused.rankings)} queries, {lines:,} lines, "
        f"{params.method} of {len(inputs)} runs",
        file=sys.stderr,
    )
    return 0


def _params(args: argparse.Namespace) -> Params:
    from ..core.fusion import DEFAULT_NORM, DEFAULT_RRF_K, Params
    from ..core.fusion.spec import value_problem

    weights = None
    if args.weights is not None:
        try:
            weights = tuple(float(w) for w in args.weights.split(","))
        except ValueError as exc:
            raise UsageError(f"--weights: numbers, comma-separated ({exc})") from exc
    # the same rules as a golden set's and the configuration's fusions (finite numbers)
    for key, value in (("depth", args.depth), ("k", args.k), ("weights", weights)):
        problem = value_problem(key, value) if value is not None else None
        if problem is not None:
            raise UsageError(f"--{key}: {problem.replace(f'`{key}` ', '', 1)}")
    if args.method == "wsum":
        if weights is None or len(weights) != len(args.runs):
            raise UsageError(f"wsum needs --weights, one per run ({len(args.runs)})")
    elif weights is not None:
        raise UsageError(f"--weights is for wsum; {args.method} takes none")
    if args.method == "rrf" and args.norm is not None:
        raise UsageError("--norm is for the score methods; rrf uses ranks")
    if args.method != "rrf" and args.k is not None:
        raise UsageError("--k is RRF's constant; the score methods take none")
    k = DEFAULT_RRF_K if args.k is None else args.k
    return Params(args.method, k, weights, args.norm or DEFAULT_NORM, args.depth)


def _input(project: Project, path: Path, params: Params, rule: ChunkRule | None) -> Input:
    """One run's rankings (and scores, for a score method), of documents under ``rule``."""
    from ..core.chunks import documents, mapper, scored_documents
    from ..core.fusion import METHODS, Input

    needs_scores = METHODS[params.method].needs_scores
    run, rankings, error, _name = project.runs.read_run(path, fast=not needs_scores)
    if error is not None:
        raise UsageError(f"{path}: {error}")
    doc_of = mapper(rule) if rule is not None else None
    if not needs_scores:
        if doc_of is not None:
            rankings = {q: documents(r, doc_of) for q, r in rankings.items()}
        return Input(rankings)
    assert run is not None  # read with spans: a score method needs its model
    ranked: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    for qid, ranking in run.rankings.items():
        pairs = []
        for d in ranking.docs:
            if d.score is None:
                raise UsageError(
                    f"{path}: {params.method} adds the runs' scores, and `{qid}` is ranked without "
                    "them (a run YAML's list, an MS MARCO run): use --method rrf"
                )
            pairs.append((d.doc_id, d.score))
        if doc_of is not None:
            pairs = scored_documents(pairs, doc_of)
        ranked[qid] = [d for d, _ in pairs]
        scores[qid] = [s for _, s in pairs]
    return Input(ranked, scores)


def trec_text(fused: Fused, tag: str) -> str:
    """TREC run lines in trec_eval's order: queries by id (as bytes), then score descending and
    document id descending (the order ``fuse`` made), each score written to the last bit."""
    from ..core.formats.trec_run import run_lines
    from ..core.metrics.order import c_bytes

    return "".join(
        line
        for qid in sorted(fused.rankings, key=c_bytes)
        for line in run_lines(qid, zip(fused.rankings[qid], fused.scores[qid], strict=True), tag)
    )
