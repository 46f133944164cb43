"""`qrels-lsp convert INPUT -o OUTPUT`: golden set <-> TREC qrels (+ topics), run YAML <-> TREC run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import (
    UsageError,
    log_text,
)


def add(sub: Any) -> None:
    """The ``convert`` subcommand's arguments."""
    v = sub.add_parser(
        "convert", help="golden set <-> TREC qrels (+ topics), run YAML <-> TREC run"
    )
    v.add_argument("input", type=Path)
    v.add_argument("-o", "--output", type=Path, required=True, help="output file (format by name)")
    v.add_argument(
        "--topics",
        type=Path,
        help="golden set -> TREC: also write the questions here; "
        "TREC -> golden set: read the questions from here (TREC <top>, .jsonl or .tsv, "
        "by the file's name)",
    )
    v.add_argument("--name", help="run name written into a TREC run's tag column")
    v.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.base.files import read_text
    from ..core.formats import convert, detect
    from ..core.project.config import Config

    text, message = read_text(args.input)
    if text is None:
        raise UsageError(f"cannot read {args.input}: {message}")
    found = detect(args.input, text, Config(root=args.input.parent))
    kind = found.name if found is not None else None
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
            topics_text_in=_maybe_read(args.topics) if to_yaml else None,
            name=args.name or args.input.stem.removesuffix(".run"),
            topics_name=args.topics.name if args.topics is not None else "",
        )
    except convert.ConversionError as exc:
        raise UsageError(str(exc)) from exc
    args.output.write_text(result, encoding="utf-8", errors="surrogateescape")
    if kind == "golden" and not to_yaml:
        # TREC qrels have no line for a question without judgments (unanswerable, or not yet
        # linked): say which ones were left out rather than drop them silently.
        from ..core.formats.golden import parse_golden

        left_out = [qid for qid, q in parse_golden(text).queries.items() if not q.judgments]
        if left_out:
            print(
                f"note: {len(left_out)} question(s) without judgments have no TREC qrels line "
                f"and were left out: {log_text(', '.join(left_out))}",
                file=sys.stderr,
            )
    if topics is not None and args.topics is not None and not to_yaml:
        args.topics.write_text(topics, encoding="utf-8", errors="surrogateescape")
    print(
        f"wrote {log_text(args.output)}"
        + (
            f" and {log_text(args.topics)}"
            if topics is not None and args.topics and not to_yaml
            else ""
        ),
        file=sys.stderr,
    )
    return 0


def _maybe_read(path: Path | None) -> str | None:
    if path is None:
        return None
    from ..core.base.files import read_text

    text, message = read_text(path)
    if text is None:
        raise UsageError(f"cannot read {path}: {message}")
    return text
