"""The ``qrels-lsp`` command: check, score, convert, demo, serve.

Every command is a thin shell over ``core``: the same parsers, checks and metrics the language
server uses, so CI and the editor never disagree. Imports are local to each command so that
``qrels-lsp check`` does not pay for pygls, and ``serve`` starts as fast as a bare server.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from . import __version__

if TYPE_CHECKING:
    from .core.boundary import Boundary
    from .core.config import Config
    from .core.findings import Finding
    from .core.project import Analysis, Project, QrelsContext, RunResult


class UsageError(Exception):
    """A mistake in how the command was called: exit code 2."""


def _log(text: object) -> str:
    """Untrusted text (ids, questions, file names, messages quoting them) for the terminal or a
    CI log, where a line starting with ``::`` is a GitHub workflow command (see core/escape.py)."""
    from .core.escape import for_log

    return for_log(str(text))


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"qrels-lsp {args.command}: {_log(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `qrels-lsp score ... | head`
        return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="qrels-lsp",
        description="Check and score retrieval evaluation files: golden sets, runs, TREC qrels.",
    )
    p.add_argument("--version", action="version", version=f"qrels-lsp {__version__}")
    sub = p.add_subparsers(dest="command")

    c = sub.add_parser("check", help="report problems in golden sets, runs and TREC/BEIR files")
    c.add_argument("paths", nargs="+", type=Path, help="files or folders")
    c.add_argument("--format", choices=["text", "json", "github"], default="text")
    c.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    c.add_argument("--ignore", default="", help="comma-separated check codes to silence")
    c.add_argument("--config", type=Path, help="a qrels-lsp.toml or pyproject.toml to use")
    _allow_outside(c)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("score", help="per-query metrics and means, as trec_eval computes them")
    s.add_argument("golden", type=Path, help="a golden set YAML, TREC qrels or BEIR qrels file")
    s.add_argument("runs", nargs="*", type=Path, help="runs (default: the golden set's `runs:`)")
    s.add_argument("-k", type=int, help="cutoff (default: the golden set's k, the config, or 10)")
    s.add_argument("--metrics", help="comma-separated, e.g. recall@5,mrr,ndcg@10,map")
    s.add_argument("-l", "--relevance-level", type=int, help="minimum grade that is relevant")
    s.add_argument("--format", choices=["table", "json", "markdown", "trec"], default="table")
    s.add_argument("--config", type=Path)
    s.add_argument(
        "--baseline", choices=["bm25"], help="also score a BM25 run over the golden set's corpus"
    )
    _allow_outside(s)
    s.set_defaults(func=cmd_score)

    b = sub.add_parser("bm25", help="export the BM25 baseline of a golden set as a TREC run")
    b.add_argument("golden", type=Path, help="a golden set (or qrels file) with a corpus")
    b.add_argument("-o", "--output", type=Path, required=True, help="the TREC run to write")
    b.add_argument("--depth", type=int, default=100, help="documents per query (default 100)")
    b.add_argument("--config", type=Path)
    _allow_outside(b)
    b.set_defaults(func=cmd_bm25)

    v = sub.add_parser(
        "convert", help="golden set <-> TREC qrels (+ topics), run YAML <-> TREC run"
    )
    v.add_argument("input", type=Path)
    v.add_argument("-o", "--output", type=Path, required=True, help="output file (format by name)")
    v.add_argument(
        "--topics",
        type=Path,
        help="golden set -> TREC: also write the questions here; "
        "TREC -> golden set: read the questions from here",
    )
    v.add_argument("--name", help="run name written into a TREC run's tag column")
    v.set_defaults(func=cmd_convert)

    d = sub.add_parser("demo", help="check and score the embedded example")
    d.set_defaults(func=cmd_demo)

    srv = sub.add_parser("serve", help="start the language server (stdio by default)")
    srv.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    srv.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    srv.set_defaults(func=cmd_serve)
    return p


# -- shared -------------------------------------------------------------------------------------


def _allow_outside(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-outside",
        action="store_true",
        help="let the files' own paths (corpus, runs, qrels, topics) lead outside the current "
        "folder and the paths named here; off by default, as a repository under test may be "
        "hostile",
    )


def _workspace(named: Sequence[Path]) -> list[Path]:
    """The command line's workspace: the current folder and the paths named on it (a file
    stands for its folder). A golden set's own paths are read only inside it."""
    return [Path.cwd(), *(p if p.is_dir() else p.parent for p in named)]


def _config(explicit: Path | None, near: Path, workspace: Sequence[Path] = ()) -> Config:
    from .core.config import load_config, load_config_file

    if explicit is not None:  # named by the user: theirs, so trusted to widen the boundary
        if not explicit.is_file():
            raise UsageError(f"config file {explicit} does not exist")
        return load_config_file(explicit)
    return load_config(near.resolve(), workspace)


def _boundary(args: argparse.Namespace, config: Config, workspace: Sequence[Path]) -> Boundary:
    from .core.boundary import Boundary

    if getattr(args, "allow_outside", False) or config.allow_anywhere:
        return Boundary.everywhere()
    return Boundary.of(workspace, config.allow_outside)


def _progress(stream: TextIO = sys.stderr) -> Callable[[str, int, int], None] | None:
    """Progress on a terminal, nothing on a pipe or in CI logs."""
    if not stream.isatty():
        return None

    def report(what: str, done: int, total: int) -> None:
        end = "\n" if total and done >= total else ""
        stream.write(f"\r{what}: {done:,}/{total:,}" + " " * 8 + end)
        stream.flush()

    return report


def _location(text: str, offset: int) -> tuple[int, int]:
    from .core.text import LineIndex

    line, col = LineIndex(text).position(offset)
    return line + 1, col + 1


# -- check --------------------------------------------------------------------------------------


MAX_CHECK_ENTRIES = 1_000_000
"""Files and folders `check FOLDER` looks at before it stops (and says so)."""


def _collect(paths: list[Path], config: Config) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += _files_of_ours(path, config)
        elif path.exists():
            out.append(path)
        else:
            raise UsageError(f"{path} does not exist")
    return out


def _files_of_ours(folder: Path, config: Config) -> list[Path]:
    """The files under ``folder`` whose names make them ours, hidden folders and symlinked
    folders not entered (a link loop, or a link to ``/``, is not walked)."""
    import os

    from .core.kinds import kind_by_name

    found: list[Path] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > MAX_CHECK_ENTRIES:
            print(
                f"qrels-lsp check: {_log(folder)}: stopped after {MAX_CHECK_ENTRIES:,} files and "
                "folders; name the folders that hold the evaluation files",
                file=sys.stderr,
            )
            break
        for name in filenames:
            candidate = Path(dirpath) / name
            if candidate.is_file() and kind_by_name(candidate, config) is not None:
                found.append(candidate)
    return sorted(found)


def cmd_check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .core.config import MAX_CONFIG_BYTES
    from .core.files import read_text
    from .core.findings import Severity, finding
    from .core.project import Project
    from .core.text import Span

    workspace = _workspace(args.paths)
    config = _config(args.config, args.paths[0], workspace)
    extra = {c.strip().upper() for c in args.ignore.split(",") if c.strip()}
    config = replace(config, ignore=config.ignore | extra)
    project = Project(config, progress=_progress(), boundary=_boundary(args, config, workspace))
    reports: list[tuple[str, str, list[Finding]]] = []
    if config.source is not None and config.findings:
        config_text, _ = read_text(config.source, MAX_CONFIG_BYTES)
        reports.append((str(config.source), config_text or "", list(config.findings)))
    explicit = {p for p in args.paths if not p.is_dir()}
    for path in _collect(args.paths, config):
        text, message = project.read(path)
        if text is None:
            reports.append(
                (str(path), "", [finding("QR006", Span(0, 0), f"Cannot read: {message}.")])
            )
            continue
        found: list[Finding] = []  # undecodable bytes: analyse() points at the first U+FFFD
        analysis = project.analyse(path, with_runs=False)
        if analysis is None:
            if path in explicit:
                print(
                    f"qrels-lsp check: {_log(path)}: not a golden set, run or qrels file; skipped",
                    file=sys.stderr,
                )
            continue
        reports.append((str(path), analysis.text, found + analysis.findings))
    worst = max((f.severity for _, _, fs in reports for f in fs), default=None, key=lambda s: -s)
    _print_findings(reports, args.format)
    if worst is None:
        return 0
    if worst == Severity.ERROR or (args.strict and worst == Severity.WARNING):
        return 1
    return 0


def _print_findings(reports: list[tuple[str, str, list[Finding]]], fmt: str) -> None:
    from .core.escape import github_data, github_property, json_text
    from .core.text import line_index

    rows = []
    for path, text, findings in reports:
        lines = line_index(text)
        for f in findings:
            line, col = lines.position(f.span.start)
            end_line, end_col = lines.position(f.span.end)
            rows.append((path, line + 1, col + 1, end_line + 1, end_col + 1, f))
    if fmt == "json":
        out = [
            {
                "path": path,
                "line": line,
                "column": col,
                "end_line": end_line,
                "end_column": end_col,
                "severity": f.severity.label,
                "code": f.code,
                "message": f.message,
                "fixes": [fix.title for fix in f.fixes],
            }
            for path, line, col, end_line, end_col, f in rows
        ]
        print(json_text({"findings": out}))
        return

    for path, line, col, end_line, end_col, f in rows:
        if fmt == "github":
            level = {1: "error", 2: "warning"}.get(int(f.severity), "notice")
            print(
                f"::{level} file={github_property(path)},line={line},col={col},"
                f"endLine={end_line},endColumn={end_col},title={github_property(f.code)}"
                f"::{github_data(f.message)}"
            )
        else:
            print(f"{_log(path)}:{line}:{col}: {f.severity.label} {f.code} {_log(f.message)}")
    if fmt == "text":
        counts: dict[str, int] = {}
        for *_, f in rows:
            counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
        files = len(reports)
        summary = ", ".join(f"{n} {label}{'s' if n != 1 else ''}" for label, n in counts.items())
        print(
            f"{files} file{'s' if files != 1 else ''} checked: {summary or 'no problems'}.",
            file=sys.stderr,
        )


# -- score --------------------------------------------------------------------------------------


def cmd_score(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .core.kinds import FileKind, kind_of
    from .core.metrics import parse_metric
    from .core.model import Run
    from .core.project import Project
    from .core.trec import read_trec_qrels_grades

    if not args.golden.exists():
        raise UsageError(f"{args.golden} does not exist")
    workspace = _workspace([args.golden, *args.runs])
    config = _config(args.config, args.golden, workspace)
    if args.k is not None and args.k < 1:
        raise UsageError("-k must be a positive integer")
    if args.metrics:
        try:
            metrics = tuple(str(parse_metric(m)) for m in args.metrics.split(",") if m.strip())
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        config = replace(config, metrics=metrics)
    project = Project(config, progress=_progress(), boundary=_boundary(args, config, workspace))
    from .core.model import Qrels

    grades = None
    kind: FileKind | None
    model: Qrels | Run | None
    text, _ = project.read(args.golden)
    if (
        text is not None
        and not args.baseline
        and kind_of(args.golden, text, config) == "trec-qrels"
    ):
        # Scoring needs the judgments, not their spans: 100k qrels lines read in a tenth of the time.
        kind, model, error = "trec-qrels", Qrels(format="trec"), None
        grades = read_trec_qrels_grades(text)
    else:
        kind, _text, model, error = project.load(args.golden)
    if not isinstance(model, Qrels) or kind is None:
        raise UsageError(
            f"{args.golden} is not a golden set or qrels file ({error or kind or 'unknown format'})"
        )
    if args.k is not None:
        model.k = args.k
    if args.relevance_level is not None:
        model.relevance_level = args.relevance_level
    ctx = project.context(args.golden, kind, model)
    if grades is not None:
        ctx.grades = grades
    run_paths = [p.resolve() for p in args.runs] or ctx.run_paths
    for p in run_paths:
        if not p.exists():
            raise UsageError(f"run {p} does not exist")
    if not run_paths and not args.baseline:
        raise UsageError(
            f"no runs: name them after {args.golden}, or list them under `runs:` in it"
        )
    results = [project.score_run(ctx, p, fast=True) for p in run_paths]
    if args.baseline:
        base = project.baseline(ctx, build=True)
        if base is None:
            raise UsageError(f"--baseline bm25 needs a corpus: {_corpus_problem(ctx)}")
        results.append(base)
    for r in results:
        if r.error:
            print(f"qrels-lsp score: {_log(r.path)}: {_log(r.error)}", file=sys.stderr)
    from .core.corpus import Corpus

    if isinstance(ctx.corpus, Corpus):  # (indexing may add notes: said after the baseline)
        for note in ctx.corpus.limits:
            print(f"qrels-lsp score: {_log(ctx.corpus_path)}: {_log(note)}", file=sys.stderr)
    print(_render_scores(results, ctx.k, args.format, project), end="")
    return 1 if any(r.error for r in results) else 0


def _render_scores(results: list[RunResult], k: int, fmt: str, project: Project) -> str:
    from .core.escape import json_text, md_text
    from .core.metrics import format_value

    cell = md_text if fmt == "markdown" else _log  # ids and names were written by anyone

    if fmt == "json":
        doc = {
            "runs": [
                {
                    "name": r.name,
                    "path": str(r.path),
                    "k": k,
                    "queries": r.evaluation.per_query,
                    "mean": r.evaluation.mean,
                    "n_queries": r.evaluation.n_queries,
                    "missing": r.evaluation.missing,
                    "unknown": r.evaluation.unknown,
                    "unanswerable": r.evaluation.unanswerable,
                }
                for r in results
            ]
        }
        return json_text(doc) + "\n"
    lines: list[str] = []
    for r in results:
        ev = r.evaluation
        names = list(ev.mean) or []
        if fmt == "trec":
            lines.append(f"{'runid':<22}\tall\t{cell(r.name)}")
            for qid, values in ev.per_query.items():
                for name in names:
                    lines.append(f"{name:<22}\t{cell(qid)}\t{format_value(values[name])}")
            lines.append(f"{'num_q':<22}\tall\t{ev.n_queries}")
            for name in names:
                lines.append(f"{name:<22}\tall\t{format_value(ev.mean[name])}")
            continue
        header = ["query", *names]
        body = [
            [cell(qid), *(format_value(v[n]) for n in names)] for qid, v in ev.per_query.items()
        ]
        mean = [f"mean ({ev.n_queries})", *(format_value(ev.mean[n]) for n in names)]
        if fmt == "markdown":
            lines.append(f"### {cell(r.name)}\n")
            lines.append("| " + " | ".join(header) + " |")
            lines.append("|" + "|".join(" --- " for _ in header) + "|")
            lines.extend("| " + " | ".join(row) + " |" for row in body)
            lines.append(
                "| **" + mean[0] + "** | " + " | ".join(f"**{v}**" for v in mean[1:]) + " |"
            )
            lines.append("")  # a line right under a table would render as one more row
        else:
            lines.append(f"{cell(r.name)}  ({cell(str(r.path))})")
            widths = [max(len(row[i]) for row in [header, *body, mean]) for i in range(len(header))]
            lines.extend(_aligned(row, widths) for row in [header, *body, mean])
        lines.extend(cell(note) if fmt == "markdown" else note for note in _notes(r))
        lines.append("")
    return "\n".join(lines) + ("\n" if lines and fmt == "trec" else "")


def _aligned(row: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w)
        for i, (c, w) in enumerate(zip(row, widths, strict=True))
    )


def _notes(r: RunResult) -> list[str]:
    ev = r.evaluation
    out = [f"means over {ev.n_queries} quer{'y' if ev.n_queries == 1 else 'ies'}"]
    if ev.missing:
        out.append(f"missing from the run (scored 0): {_log(', '.join(ev.missing))}")
    if ev.unknown:
        out.append(f"not in the golden set (ignored): {_log(', '.join(ev.unknown))}")
    if ev.unanswerable:
        out.append(f"unanswerable (excluded): {_log(', '.join(ev.unanswerable))}")
    return out


def _corpus_problem(ctx: QrelsContext) -> str:
    from .core.corpus import CorpusError

    if ctx.corpus_path is None:
        return "the golden set names none (`corpus:`)"
    if isinstance(ctx.corpus, CorpusError):
        return f"{ctx.corpus_path}: {ctx.corpus.message}"
    return f"{ctx.corpus_path} could not be indexed"


def cmd_bm25(args: argparse.Namespace) -> int:
    from .core.baseline import baseline_trec
    from .core.corpus import Corpus
    from .core.model import Qrels
    from .core.project import Project

    if args.depth < 1:
        raise UsageError("--depth must be a positive integer")
    if not args.golden.exists():
        raise UsageError(f"{args.golden} does not exist")
    workspace = _workspace([args.golden])
    config = _config(args.config, args.golden, workspace)
    project = Project(config, progress=_progress(), boundary=_boundary(args, config, workspace))
    kind, _text, model, error = project.load(args.golden)
    if not isinstance(model, Qrels) or kind is None:
        raise UsageError(
            f"{args.golden} is not a golden set or qrels file ({error or kind or 'unknown format'})"
        )
    ctx = project.context(args.golden, kind, model)
    index = project.indexes.build(ctx.corpus) if isinstance(ctx.corpus, Corpus) else None
    if index is None:
        raise UsageError(f"no corpus to search: {_corpus_problem(ctx)}")
    args.output.write_text(baseline_trec(model, index, args.depth), encoding="utf-8")
    print(
        f"wrote {_log(args.output)}: {len(model.queries)} queries, depth {args.depth}",
        file=sys.stderr,
    )
    return 0


# -- convert ------------------------------------------------------------------------------------


def cmd_convert(args: argparse.Namespace) -> int:
    from .core import convert
    from .core.config import Config
    from .core.files import read_text
    from .core.kinds import kind_of

    text, message = read_text(args.input)
    if text is None:
        raise UsageError(f"cannot read {args.input}: {message}")
    kind = kind_of(args.input, text, Config(root=args.input.parent))
    out_name = args.output.name.lower()
    to_yaml = out_name.endswith((".yaml", ".yml"))
    if kind in ("golden", "run-yaml") and to_yaml:
        raise UsageError(
            "both sides are YAML: write to a .trec/.qrels/.txt file to convert to TREC"
        )
    try:
        result, topics = convert.convert(
            kind,
            text,
            to_yaml=to_yaml,
            topics_text=_maybe_read(args.topics) if to_yaml else None,
            name=args.name or args.input.stem.removesuffix(".run"),
        )
    except convert.ConversionError as exc:
        raise UsageError(str(exc)) from exc
    args.output.write_text(result, encoding="utf-8")
    if kind == "golden" and not to_yaml:
        # TREC qrels have no line for a question without judgments (unanswerable, or not yet
        # linked): say which ones were left out rather than drop them silently.
        from .core.golden import parse_golden

        left_out = [qid for qid, q in parse_golden(text).queries.items() if not q.judgments]
        if left_out:
            print(
                f"note: {len(left_out)} question(s) without judgments have no TREC qrels line "
                f"and were left out: {_log(', '.join(left_out))}",
                file=sys.stderr,
            )
    if topics is not None and args.topics is not None and not to_yaml:
        args.topics.write_text(topics, encoding="utf-8")
    print(
        f"wrote {_log(args.output)}"
        + (
            f" and {_log(args.topics)}"
            if topics is not None and args.topics and not to_yaml
            else ""
        ),
        file=sys.stderr,
    )
    return 0


def _maybe_read(path: Path | None) -> str | None:
    if path is None:
        return None
    from .core.files import read_text

    text, message = read_text(path)
    if text is None:
        raise UsageError(f"cannot read {path}: {message}")
    return text


# -- demo ---------------------------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    from .core.boundary import Boundary
    from .core.config import Config
    from .core.project import Project
    from .core.text import LineIndex

    root = Path(__file__).with_name("examples")
    golden = root / "support.qrels.yaml"
    project = Project(
        Config(root=root),
        progress=_progress(),
        boundary=Boundary.of([root]),
        build_indexes=True,
    )
    analysis = project.analyse(golden)
    assert analysis is not None and analysis.context is not None
    ctx = analysis.context
    q = ctx.qrels
    print(f"qrels-lsp demo: {golden}")
    print(
        f"{len(q.queries)} questions, {len(q.unanswerable())} unanswerable, corpus "
        f"{ctx.corpus_path.name if ctx.corpus_path else '-'} "
        f"({len(ctx.corpus) if hasattr(ctx.corpus, '__len__') else 'not loaded'} documents), k = {ctx.k}\n"  # type: ignore[arg-type]
    )
    files: list[Analysis] = [analysis]
    for r in analysis.runs:
        run_analysis = project.analyse(r.path, with_runs=False)
        if run_analysis is not None:
            files.append(run_analysis)
    print("Findings (what `qrels-lsp check` and the editor report):")
    for a in files:
        lines = LineIndex(a.text)
        rel = a.path.relative_to(root) if a.path.is_relative_to(root) else a.path
        for f in a.findings:
            line, col = lines.position(f.span.start)
            print(f"  {rel}:{line + 1}:{col + 1}: {f.severity.label} {f.code} {_log(f.message)}")
    print()
    print("Scores (what the editor shows as code lenses):")
    print(_render_scores(analysis.runs, ctx.k, "table", project))
    return 0


# -- serve --------------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace) -> int:
    import gc

    # lsprotocol builds thousands of long-lived objects at import: collecting while they are made
    # only walks them again and again. They are frozen out of every later collection instead.
    gc.disable()
    from .lsp.server import serve

    gc.enable()
    gc.freeze()
    host, port = None, None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not port_text.isdigit():
            raise UsageError("--tcp expects HOST:PORT")
        port = int(port_text)
    serve(host=host or None, port=port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
