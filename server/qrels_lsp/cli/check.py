"""`qrels-lsp check PATH...`: every finding of golden sets, runs and TREC/BEIR files, for people or CI."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    UsageError,
    allow_outside,
    boundary_for,
    config_for,
    log_text,
    progress_on,
    workspace_of,
)
from .render import print_findings

if TYPE_CHECKING:
    from ..core.base.findings import Finding
    from ..core.project.config import Config


def add(sub: Any) -> None:
    """The ``check`` subcommand's arguments."""
    c = sub.add_parser("check", help="report problems in golden sets, runs and TREC/BEIR files")
    c.add_argument("paths", nargs="+", type=Path, help="files or folders")
    c.add_argument("--format", choices=["text", "json", "github"], default="text")
    c.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    c.add_argument("--ignore", default="", help="comma-separated check codes to silence")
    c.add_argument("--config", type=Path, help="a qrels-lsp.toml or pyproject.toml to use")
    allow_outside(c)
    c.set_defaults(func=run)


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

    from ..core.formats import detect_by_name

    found: list[Path] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(dirnames) + len(filenames)
        if seen > MAX_CHECK_ENTRIES:
            print(
                f"qrels-lsp check: {log_text(folder)}: stopped after {MAX_CHECK_ENTRIES:,} files and "
                "folders; name the folders that hold the evaluation files",
                file=sys.stderr,
            )
            break
        for name in filenames:
            candidate = Path(dirpath) / name
            if candidate.is_file() and detect_by_name(candidate, config) is not None:
                found.append(candidate)
    return sorted(found)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..core.base.files import read_text
    from ..core.base.findings import Severity, finding
    from ..core.base.text import Span
    from ..core.formats import recognise
    from ..core.project.config import MAX_CONFIG_BYTES
    from ..core.project.project import Project

    workspace = workspace_of(args, args.paths)
    config = config_for(args.config, args.paths[0], workspace)
    extra = {c.strip().upper() for c in args.ignore.split(",") if c.strip()}
    config = replace(config, ignore=config.ignore | extra)
    project = Project(
        config, progress=progress_on(), boundary=boundary_for(args, config, workspace)
    )
    reports: list[tuple[str, str, list[Finding]]] = []
    if config.source is not None and config.findings:
        config_text, _ = read_text(config.source, MAX_CONFIG_BYTES)
        reports.append((str(config.source), config_text or "", list(config.findings)))
    explicit = {p for p in args.paths if not p.is_dir()}
    read_as: dict[str, str | None] = {}  # each file looked at: what it was read as
    unknown: list[Path] = []
    collected = _collect(args.paths, config)
    for folder in (p for p in args.paths if p.is_dir()):
        if not any(folder in c.parents for c in collected):
            unknown.append(folder)
    for path in collected:
        text, message = project.read(path)
        if text is None:
            reports.append(
                (str(path), "", [finding("QR006", Span(0, 0), f"Cannot read: {message}.")])
            )
            read_as[str(path)] = None
            continue
        found: list[Finding] = []  # undecodable bytes: analyse() points at the first U+FFFD
        analysis = project.analyse(path, with_runs=False)
        if analysis is None:
            seen_as = recognise(path, text, config)[1]
            read_as[str(path)] = seen_as
            if path in explicit:
                if seen_as is None:
                    unknown.append(path)
                else:  # a topics file or a corpus: known, with nothing of its own to check
                    print(
                        f"qrels-lsp check: {log_text(path)}: recognised as {seen_as}: not a "
                        "golden set, run or qrels file; skipped",
                        file=sys.stderr,
                    )
            continue
        read_as[str(path)] = analysis.kind
        reports.append((str(path), analysis.text, found + analysis.findings))
    worst = max((f.severity for _, _, fs in reports for f in fs), default=None, key=lambda s: -s)
    print_findings(reports, args.format, read_as)
    for path in unknown:  # a path that checked nothing is no pass
        what = (
            "holds no golden set, run or qrels file"
            if path.is_dir()
            else "is not a golden set, run or qrels file by its name or content"
        )
        print(f"qrels-lsp check: {log_text(path)}: {what}", file=sys.stderr)
    if unknown:
        return 2
    if worst is None:
        return 0
    if worst == Severity.ERROR or (args.strict and worst == Severity.WARNING):
        return 1
    return 0
