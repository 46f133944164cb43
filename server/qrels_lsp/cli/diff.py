"""`qrels-lsp diff OLD NEW [RUN...]` and `qrels-lsp diff GOLDEN [--against REV] [RUN...]`: what
changed between two versions of a golden set, and why each run's numbers moved (the golden
set's part, the run's part and their interaction; docs/history.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import UsageError, allow_outside, boundary_for, config_for, log_text, workspace_of

if TYPE_CHECKING:
    from ..core.history.diff import RunVersions
    from ..core.model import FileKind, Qrels
    from ..core.project.config import Config
    from ..core.project.files import Reader
    from ..core.project.project import Project
    from ..core.project.results import QrelsContext


def add(sub: Any) -> None:
    """The ``diff`` subcommand's arguments."""
    s = sub.add_parser(
        "diff",
        help="what changed in a golden set between two versions, and why each number moved",
    )
    s.add_argument(
        "files",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="OLD NEW [RUN...]: two golden sets (the runs the same on both sides); with "
        "--against, or alone: GOLDEN [RUN...]",
    )
    s.add_argument(
        "--against",
        metavar="REV",
        help="compare GOLDEN (and its runs) with the versions git revision REV holds (default "
        "with one file: the merge base of HEAD and the default branch); git runs nothing of "
        "the repository's (no hook, filter, textconv or fsmonitor)",
    )
    s.add_argument("--metrics", help="comma-separated, e.g. recall@5,mrr,ndcg@10")
    s.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    s.add_argument("--config", type=Path)
    allow_outside(s)
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the diff; 2 when a version cannot be read (said on stderr)."""
    from ..core.history.git import AUTO

    files: list[Path] = args.files
    against = args.against if args.against is not None else (AUTO if len(files) == 1 else None)
    if against is None and len(files) < 2:
        raise UsageError("name two golden sets (OLD NEW), or one with --against REV")
    workspace = workspace_of(args, files)
    golden = files[0] if against is not None else files[1]
    config = _config(args, golden, workspace)
    project = _project(args, config, workspace)
    new_model, kind = _golden(project, golden)
    new_ctx = project.context(golden, kind, new_model)
    named = files[1:] if against is not None else files[2:]
    paths = [p.resolve() for p in named] or new_ctx.run_paths
    if against is not None:
        base, head, old_model, old_reader = _revision(golden, against, kind)
        old_project = _project(args, config, workspace, old_reader)
        runs = [_versions(project, old_project, p, base) for p in paths]
    else:
        old_model, _ = _golden(project, files[0])
        base, head = str(files[0]), str(golden)
        runs = [_versions(project, None, p, base) for p in paths]
    return _print(args, project, new_ctx, old_model, new_model, base, head, runs)


def _print(
    args: argparse.Namespace,
    project: Project,
    new_ctx: QrelsContext,
    old_model: Qrels,
    new_model: Qrels,
    base: str,
    head: str,
    runs: list[RunVersions | None],
) -> int:
    from ..core.history.diff import history
    from ..core.history.versions import context_scoring, scoring_of
    from ..ide.history import history_json, markdown_report, text_report

    before = scoring_of(old_model, project.binding(new_ctx.path), project.config)
    after = context_scoring(new_ctx)
    found = history(base, head, old_model, new_model, before, after, [r for r in runs if r])
    if args.format == "json":
        from ..core.base.escape import json_text

        print(json_text(history_json(found)))
    elif args.format == "markdown":
        print(markdown_report(found, new_ctx.k), end="")
    else:
        print(text_report(found, new_ctx.k), end="")
    return 2 if any(r is None for r in runs) else 0


def _config(args: argparse.Namespace, golden: Path, workspace: list[Path]) -> Config:
    from dataclasses import replace

    from ..core.metrics import parse_metric
    from ..core.metrics.metric import split_metrics

    if not golden.exists():
        raise UsageError(f"{golden} does not exist")
    config = config_for(args.config, golden, workspace)
    if args.metrics:
        names = tuple(split_metrics(args.metrics))
        for name in names:
            try:
                parse_metric(name, 1)
            except ValueError as exc:
                raise UsageError(str(exc)) from exc
        config = replace(config, metrics=names)
    return config


def _project(
    args: argparse.Namespace, config: Config, workspace: list[Path], read: Reader | None = None
) -> Project:
    from ..core.project.project import Project
    from .score import _once

    boundary = boundary_for(args, config, workspace)
    return Project(config, read or _once(), boundary=boundary)


def _golden(project: Project, path: Path) -> tuple[Qrels, FileKind]:
    """A golden set (or qrels file) read with its questions, and its kind."""
    from ..core.model import Qrels

    if not path.exists():
        raise UsageError(f"{path} does not exist")
    kind, _text, model, error = project.load(path, role="qrels")
    if error is not None:
        raise UsageError(f"{path}: {error}")
    if not isinstance(model, Qrels) or kind is None:
        raise UsageError(f"{path} is not a golden set or qrels file")
    return model, kind


def _revision(golden: Path, rev: str, kind: FileKind) -> tuple[str, str, Qrels, Reader]:
    """The base's name, the head's, the golden set as ``rev`` holds it (empty when it did not
    exist there: every question is then added) and a reader of files at ``rev``."""
    from ..core.formats import parse_as
    from ..core.history.git import GitError, Repository
    from ..core.model import Qrels

    try:
        repo = Repository.of(golden.resolve())
        base = repo.base(rev)
        text, problem = repo.read(base.commit, golden)
    except GitError as exc:
        raise UsageError(str(exc)) from exc
    label = f"{base.label} ({base.short})" if base.label != base.short else base.short
    if text is None:
        say(golden, f"{problem}: every question is new")
        model = Qrels(format=kind)  # (a qrels kind: the new one's)
    else:
        parsed = parse_as(kind, text)
        assert isinstance(parsed, Qrels)
        model = parsed
    return label, f"{golden} (working tree)", model, repo.reader(base.commit)


def _versions(
    project: Project, old_project: Project | None, path: Path, base: str
) -> RunVersions | None:
    """A run's two versions: as the working tree and ``old_project``'s reader hold it (the
    same one twice when there is no old project, or the run is not in it)."""
    from ..core.history.diff import RunVersions

    _run, rankings, error, name = project.runs.read_run(path, fast=True)
    if error is not None:
        say(path, error)
        return None
    if old_project is None:
        return RunVersions(name, rankings, rankings)
    _run, old, problem, _name = old_project.runs.read_run(path, fast=True)
    if problem is not None:
        note = f"not read from {base} ({problem}): its version there is taken to be this one"
        return RunVersions(name, rankings, rankings, note)
    return RunVersions(name, old, rankings)


def say(path: object, message: str) -> None:
    print(f"qrels-lsp diff: {log_text(path)}: {log_text(message)}", file=sys.stderr)
