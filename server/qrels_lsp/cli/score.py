"""`qrels-lsp score GOLDEN [RUN...]`: per-query values and means, as trec_eval computes them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    UsageError,
    allow_outside,
    boundary_for,
    by_tag,
    chunk_options,
    chunk_rule,
    config_for,
    cut_of,
    cut_options,
    log_text,
    positive_option,
    progress_on,
    workspace_of,
)
from .render import corpus_problem, located, render_scores

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.formats.format import Role
    from ..core.metrics import Evaluation
    from ..core.project.config import Config
    from ..core.project.files import Reader
    from ..core.project.project import Project
    from ..core.project.results import QrelsContext, RunResult


def add(sub: Any) -> None:
    """The ``score`` subcommand's arguments."""
    s = sub.add_parser("score", help="per-query metrics and means, as trec_eval computes them")
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="run files, or names of the golden set's runs (default: its `runs:`, its "
        "[[qrels]] runs and the runs whose `qrels:` names it, then its fused runs)",
    )
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument(
        "--metrics", help="comma-separated, e.g. recall@5,mrr,ndcg@10,map (recall alone: recall@k)"
    )
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--format", choices=["table", "json", "markdown", "trec"], default="table")
    s.add_argument("--summary", action="store_true", help="the means only, runs side by side")
    by_tag(s, "each tag's questions' count and means, after the whole set's")
    s.add_argument(
        "--bounds",
        action="store_true",
        help="also each metric's optimistic bound: its value if the unjudged documents in each "
        "run's top k were relevant",
    )
    s.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any line or entry of the files is left out of the scores",
    )
    s.add_argument("--config", type=Path)
    s.add_argument(
        "--baseline", choices=["bm25"], help="also score a BM25 run over the golden set's corpus"
    )
    chunk_options(s)
    cut_options(s)
    allow_outside(s)
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0; 2 when the golden set or a run cannot be scored (it is named on stderr and has no
    table); 1 with ``--strict`` when a file had lines or entries left out, or queries that
    trec_eval cannot score (judged only with negative grades)."""
    project, config = project_for(args)
    ctx, judged = golden_context(args, project, config)
    results, broken = _results(args, project, ctx)
    unscored = [r for r in results if r.error]
    for r in unscored:
        say(r.path, r.error or "")
    dropped = _report_dropped(project, [(args.golden, "qrels", judged), *_entries(results)])
    dropped |= _report_negative_only(ctx)
    _report_corpus_limits(ctx)
    scored = [r for r in results if not r.error]
    if scored:
        from ..core.project.comparing import tagged

        upper = _bounds(ctx, scored) if args.bounds else None
        tags = tagged(ctx) if args.by == "tag" else None
        out = render_scores(
            scored, ctx.k, args.format, project, summary=args.summary, upper=upper, tags=tags
        )
        print(out, end="")
    if unscored or broken:
        return 2
    return 1 if args.strict and dropped else 0


def _bounds(ctx: QrelsContext, results: list[RunResult]) -> list[Evaluation]:
    """Each run's optimistic bounds (core/coverage/bounds.py), in the order of ``results``."""
    from ..core.coverage.bounds import upper_bounds

    cut = ctx.cut.apply if ctx.cut is not None else lambda rankings, _grades: rankings
    return [
        upper_bounds(
            ctx.grades, cut(r.rankings, ctx.grades), ctx.metrics, ctx.k, ctx.level, ctx.unanswerable
        )
        for r in results
    ]


def say(path: object, message: str) -> None:
    print(f"qrels-lsp score: {log_text(path)}: {log_text(message)}", file=sys.stderr)


def project_for(args: argparse.Namespace) -> tuple[Project, Config]:
    from dataclasses import replace

    from ..core.metrics import parse_metric
    from ..core.metrics.metric import split_metrics
    from ..core.project.project import Project

    # (a run's name, `dense`, is inside: only a path, or a symlink of the checkout, leads out)
    workspace = workspace_of(args, [args.golden, *args.runs])
    if not args.golden.exists():
        raise UsageError(f"{args.golden} does not exist")
    if getattr(args, "bounds", False) and args.format == "trec":
        raise UsageError("--bounds has no trec_eval form: use --format table, json or markdown")
    if getattr(args, "by", None) and args.format == "trec":
        raise UsageError("--by tag has no trec_eval form: use --format table, json or markdown")
    positive_option(args.k, "-k")
    config = config_for(args.config, args.golden, workspace)
    if args.metrics:
        names = tuple(split_metrics(args.metrics))
        for name in names:  # checked now; `recall` and `recall@k` take the k in force
            try:
                parse_metric(name, args.k or 1)
            except ValueError as exc:
                raise UsageError(str(exc)) from exc
        config = replace(config, metrics=names)
    from ..core.formats.trec_stream import CHUNK_BYTES

    boundary = boundary_for(args, config, workspace)
    # TREC runs of any size: those past a chunk are scored as they are read, not held.
    project = Project(
        config, _once(), progress=progress_on(), boundary=boundary, stream_over=CHUNK_BYTES
    )
    return project, config


def _once() -> Reader:
    """The disk, each file read once: scoring a run, counting what it left out and naming it
    (runid) see the same text, and a million-line run is not read and decoded three times."""
    from ..core.base.files import read_text, resolve

    texts: dict[Path, tuple[str | None, str | None]] = {}

    def read(path: Path) -> tuple[str | None, str | None]:
        key = resolve(path)
        if key not in texts:
            texts[key] = read_text(path)
        return texts[key]

    return read


def golden_context(
    args: argparse.Namespace, project: Project, config: Config, *, spans: bool = False
) -> tuple[QrelsContext, int | None]:
    """The golden set's context, with ``-k`` and ``-l`` applied, and how many judgments a
    span-free reader took (None when it was read with spans: ``spans``, or for the baseline,
    which needs the questions)."""
    from dataclasses import replace

    from ..core.formats import detect
    from ..core.model import Qrels

    text, problem = project.read(args.golden)
    if text is None:
        raise UsageError(f"{args.golden}: {problem}")
    fmt = detect(args.golden, text, config, "qrels")
    if fmt is None or fmt.role != "qrels":
        what = f"read as {fmt.display}" if fmt is not None else "of no format qrels-lsp reads"
        raise UsageError(f"{args.golden} is not a golden set or qrels file ({what})")
    grades = None
    if (
        fmt.read_grades is not None
        and not args.baseline
        and not spans
        and not getattr(args, "by", None)  # the tags are the questions' own
        and not _fuses_baseline(project, args.golden)
    ):
        # Scoring needs the judgments, not their spans: 100k qrels lines read in a tenth of the time.
        model: Qrels = Qrels(format=fmt.name)  # role qrels: one of those
        grades = fmt.read_grades(text)
    else:
        _kind, _text, loaded, _error = project.load(args.golden, role="qrels")
        assert isinstance(loaded, Qrels)
        model = loaded
    if args.k is not None:
        model.k = args.k
    if args.relevance_level is not None:
        model.relevance_level = args.relevance_level
        if args.relevance_level < 0:
            from ..core.formats.golden import negative_level_note

            say(args.golden, negative_level_note(args.relevance_level))
    ctx = project.context(args.golden, fmt.name, model)
    if grades is not None:
        ctx = replace(ctx, grades=grades, grades_since=None)
    rule = chunk_rule(args)
    if rule is not None:
        ctx = replace(ctx, chunks=rule)
    cut = cut_of(args)
    if cut is not None:
        ctx = replace(ctx, cut=cut)
    if not ctx.grades and not ctx.unanswerable:
        why = project.runs.dropped(args.golden, "qrels")
        reason = f"; the first of {len(why):,} left out: {why[0].message}" if why else ""
        raise UsageError(f"{args.golden}: read as {fmt.display}, it holds no judgments{reason}")
    entries = sum(map(len, grades.values())) if grades is not None else None
    return ctx, entries


def _fuses_baseline(project: Project, golden: Path) -> bool:
    """Whether a TREC/BEIR qrels file's fusions (from the configuration) fuse the BM25
    baseline, which needs the questions (its topics), not only the judgments."""
    from ..core.project.comparing import BASELINE_ALIASES

    binding = project.binding(golden)
    fusions = binding.fusions if binding is not None else None
    fusions = fusions if fusions is not None else project.config.fusions
    return any(r.value.casefold() in BASELINE_ALIASES for f in fusions for r in f.runs)


def _results(
    args: argparse.Namespace, project: Project, ctx: QrelsContext
) -> tuple[list[RunResult], bool]:
    """The runs scored (those named, else the golden set's), the BM25 baseline with
    ``--baseline``, then the golden set's fused runs that can be made of them; and whether a
    fusion could not be made (said on stderr: no silent omission)."""
    from dataclasses import replace

    from ..core.base.findings import Severity

    if not args.runs and not ctx.run_paths and not args.baseline:
        from ..ide.present import runs_hint

        raise UsageError(f"no runs for {args.golden}: name them after it, or {runs_hint(ctx)}")
    results = named_runs(args.runs, project, ctx)
    if args.runs:  # the fusions of the runs named (as the golden set names its runs), but those
        named = {r.name for r in results}  # named themselves
        fusions = [f for f in project.derived.fusions_of(ctx, results) if f.name not in named]
        ctx = replace(ctx, fusions=fusions)
    baseline = bool(args.baseline) and not any(r.baseline for r in results)
    problems: list[Finding] = []
    results = project.derived.context_runs(
        ctx, results, baseline=baseline, problems=problems, build=True
    )
    if args.baseline and not any(r.baseline for r in results):
        raise UsageError(f"--baseline bm25 needs a corpus: {corpus_problem(ctx)}")
    broken = False
    for f in problems:
        broken |= f.severity == Severity.ERROR
        say(ctx.path, f"{f.code} {f.message}")
    return results, broken


def named_runs(named: list[Path], project: Project, ctx: QrelsContext) -> list[RunResult]:
    """The runs named on the command line, scored: a file, or the name of one of the golden
    set's runs (``dense``; ``bm25`` for its BM25 baseline; a fused run, whose baseline, if it
    fuses it, is built for it); none named: the golden set's runs."""
    from ..core.project.comparing import find_run

    if not named:
        return [project.scoring.score_run(ctx, p, fast=True) for p in ctx.run_paths]
    bound: list[RunResult] | None = None
    out = []
    for arg in named:
        if arg.exists():
            out.append(project.scoring.score_run(ctx, arg.resolve(), fast=True))
            continue
        if bound is None:
            bound = _every_run(project, ctx)
        found = find_run(bound, str(arg))
        if found is None:
            names = ", ".join(sorted({r.name for r in bound if not r.error})) or "none"
            raise UsageError(
                f"run {arg}: no such file, and no run of {ctx.path.name} has that name "
                f"(its runs: {names})"
            )
        out.append(found)
    return out


def _every_run(project: Project, ctx: QrelsContext) -> list[RunResult]:
    """Every run a name on the command line may mean: the golden set's runs, its BM25 baseline
    (built now, with progress on a terminal: a fusion of it needs it too) and its fused runs."""
    runs = [project.scoring.score_run(ctx, p, fast=True) for p in ctx.run_paths]
    return project.derived.context_runs(
        ctx, runs, baseline=project.config.bm25_baseline, build=True
    )


def _entries(results: list[RunResult]) -> list[tuple[Path, Role, int | None]]:
    """Each run file with how many ranked ids a span-free reader took from it."""
    return [
        (r.path, "run", sum(map(len, r.rankings.values())) if r.run is None else None)
        for r in results
        if r.from_file and not r.error
    ]


def _report_dropped(project: Project, files: list[tuple[Path, Role, int | None]]) -> bool:
    """Say on stderr, per file, how many lines or entries its scores leave out and why (by
    check code); True if any."""
    from ..core.base.findings import CODES

    any_dropped = False
    for path, role, entries in files:
        found = project.runs.dropped(path, role, entries)
        if not found:
            continue
        any_dropped = True
        counts: dict[str, int] = {}
        for f in found:
            counts[f.code] = counts.get(f.code, 0) + 1
        why = ", ".join(f"{n:,} {code} {CODES[code].name}" for code, n in sorted(counts.items()))
        text, _ = project.read(path)
        where = (
            f"the first: {located(path, text, found[0])}" if text is not None else "where"
        )  # (a file past the editor's cap has no text to locate in: `check` reads what it can)
        say(path, f"{len(found):,} left out of the scores ({why}); {where}")
    return any_dropped


def _report_negative_only(ctx: QrelsContext) -> bool:
    """Say on stderr which queries are judged only with negative grades (check's QR104 on
    them), which trec_eval fails on; True if any."""
    from ..core.formats.grades import NEGATIVE_ONLY, negative_only

    queries = [
        q for q, g in ctx.grades.items() if q not in ctx.unanswerable and negative_only(g.values())
    ]
    if not queries:
        return False
    shown = ", ".join(queries[:10]) + (" ..." if len(queries) > 10 else "")
    n = len(queries)
    say(
        ctx.path,
        f"warning QR104: {n:,} quer{'y is' if n == 1 else 'ies are'} judged only with negative "
        f"grades ({shown}): {NEGATIVE_ONLY}",
    )
    return True


def _report_corpus_limits(ctx: QrelsContext) -> None:
    from ..core.formats.corpus import Corpus

    if isinstance(ctx.corpus, Corpus):  # (indexing may add notes: said after the baseline)
        for note in ctx.corpus.limits:
            say(ctx.corpus_path, note)
