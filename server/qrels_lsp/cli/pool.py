"""`qrels-lsp pool GOLDEN [RUN...]`: the judging queue, the unjudged (question, document) pairs
of the runs' top documents in the order that raises their judged@k fastest
(core/coverage/pool.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UsageError, allow_outside, log_text, positive_option

if TYPE_CHECKING:
    from ..core.coverage.pool import Pair, Pool
    from ..core.project.results import QrelsContext


def add(sub: Any) -> None:
    """The ``pool`` subcommand's arguments."""
    s = sub.add_parser(
        "pool", help="the judging queue: unjudged documents of the runs' top k, most shared first"
    )
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument(
        "runs",
        nargs="*",
        type=Path,
        help="run files, or names of the golden set's runs (default: its runs, as `score` "
        "finds them)",
    )
    s.add_argument(
        "--depth",
        type=int,
        help="how deep into each run to look (default: the pool_depth setting, 10)",
    )
    s.add_argument("--limit", type=int, help="the first N pairs only")
    s.add_argument("--format", choices=["table", "json", "yaml"], default="table")
    s.add_argument(
        "--baseline", choices=["bm25"], help="also pool a BM25 run over the golden set's corpus"
    )
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--config", type=Path)
    allow_outside(s)
    s.set_defaults(func=run, k=None, metrics=None, bounds=False)


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the queue (empty when everything retrieved is judged); 2 on a usage error."""
    from ..core.project.judging import pool_of
    from .score import golden_context, named_runs, project_for

    for name in ("depth", "limit"):
        positive_option(getattr(args, name), f"--{name}")
    project, config = project_for(args)
    ctx, _entries = golden_context(args, project, config)
    runs = named_runs(args.runs, project, ctx)
    for r in runs:
        if r.error:
            raise UsageError(f"{r.path}: {r.error}")
    if not args.runs:  # the golden set's runs, its fused runs too (as the editor pools them)
        runs = project.derived.context_runs(ctx, runs, baseline=False, build=True)
    if args.baseline and not any(r.baseline for r in runs):
        from .render import corpus_problem

        baseline = project.derived.baseline(ctx, build=True)
        if baseline is None:
            raise UsageError(f"--baseline bm25 needs a corpus: {corpus_problem(ctx)}")
        runs.append(baseline)
    pool = pool_of(ctx, runs, depth=args.depth, baseline=True)
    if pool is None:
        from ..ide.present import runs_hint

        raise UsageError(f"no runs for {args.golden}: name them after it, or {runs_hint(ctx)}")
    pairs = pool.pairs[: args.limit] if args.limit else pool.pairs
    print(render(pool, pairs, args.format, ctx), end="")
    return 0


def render(pool: Pool, pairs: list[Pair], fmt: str, ctx: QrelsContext) -> str:
    if fmt == "json":
        from ..core.base.escape import json_text

        rows = [
            {"query": p.query, "doc": p.doc, "runs": list(p.runs), "best_rank": p.best_rank}
            | ({"stale": p.stale} if p.stale else {})
            for p in pairs
        ]
        return json_text(rows) + "\n"
    if fmt == "yaml":
        return _yaml(pool, pairs, ctx)
    return _table(pool, pairs)


def _summary(pool: Pool, shown: int) -> str:
    runs = ", ".join(log_text(r) for r in pool.runs)  # names a file's author wrote
    head = f"{len(pool) - pool.stale:,} unjudged in the top {pool.depth} of {runs}"
    if pool.stale:
        head = f"{pool.stale:,} stale judgments (judge them again) and {head}"
    return head if shown == len(pool) else f"{head}; the first {shown:,}"


def _table(pool: Pool, pairs: list[Pair]) -> str:
    from .render import aligned

    rows = [["#", "query", "document", "runs", "best rank"]]
    for i, p in enumerate(pairs, start=1):
        rows.append(
            [
                str(i),
                log_text(p.query),
                log_text(p.doc),
                log_text(", ".join(p.runs)) + (f" (stale: {STALE[p.stale]})" if p.stale else ""),
                f"#{p.best_rank}" if p.best_rank else "-",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = "\n".join(aligned(row, widths) for row in rows) if pairs else ""
    return "\n".join(x for x in (table, _summary(pool, len(pairs)) + ".") if x) + "\n"


def _yaml(pool: Pool, pairs: list[Pair], ctx: QrelsContext) -> str:
    """Entries ready to paste under each question's `relevant:`, the grade left to the judge
    (an empty grade is QR103 until it is written); with blind judging, no run is named."""
    lines = [
        f"# {_summary(pool, len(pairs))} (qrels-lsp pool).",
        "# Write a grade after each id (0: not relevant; 1 or more: relevant) and add the lines",
        f"# to the question's `relevant:` mapping in {log_text(ctx.path.name)}.",
        "queries:",
    ]
    by_query: dict[str, list[Pair]] = {}
    for p in pairs:
        by_query.setdefault(p.query, []).append(p)
    for qid, judged in by_query.items():
        lines += [f"  {_scalar(qid)}:", "    relevant:"]
        for p in judged:
            lines.append(f"      {_scalar(p.doc)}:{_note(p, ctx)}")
    return "\n".join(lines) + "\n"


def _scalar(value: str) -> str:
    """An id as a YAML key that reads back as itself and cannot start a workflow command in a
    CI log: plain when safe, else a JSON string (valid YAML) with ``##[`` escaped."""
    from ..core.base.escape import json_text
    from ..core.formats.yaml.scalar import yaml_scalar

    if "##[" not in value:
        return yaml_scalar(value, flow=True)
    return json_text(value, indent=None)  # a JSON string is a YAML one, ##[ escaped


STALE = {"QR130": "was deleted", "QR131": "changed", "QR132": "was cut differently"}
"""What a stale pair's document did since it was judged, by its code (core/history/lock.py)."""


def _runs_note(p: Pair) -> str:
    n = len(p.runs)
    if not n:
        return "no run retrieved it"
    return f"{n} run{'s' if n != 1 else ''}, best #{p.best_rank}: " + log_text(", ".join(p.runs))


def _note(p: Pair, ctx: QrelsContext) -> str:
    """The comment after an entry: a negative grade to write over, and (not judging blind)
    which runs retrieved it."""
    parts = []
    grade = ctx.grades.get(p.query, {}).get(p.doc)
    if p.stale is not None:
        parts.append(f"graded {grade}, but the document {STALE[p.stale]} since: judge it again")
    elif grade is not None:
        parts.append(f"graded {grade} now: write the new grade over it")
    if not ctx.blind_judging:
        parts.append(_runs_note(p))
    return f"  # {'; '.join(parts)}" if parts else ""
