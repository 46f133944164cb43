"""`qrels-lsp convert INPUT -o OUTPUT`: golden set <-> TREC qrels (+ topics), run YAML <-> TREC run."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    UsageError,
    allow_outside,
    log_text,
    workspace_of,
    write_file,
)

if TYPE_CHECKING:
    from ..core.formats.convert import Target
    from ..core.model import Qrels, Run


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
    v.add_argument("--name", help="the run's name (a TREC run's tag column, a run YAML's `name:`)")
    v.add_argument(
        "--corpus",
        help="a converted golden set's corpus (a path from here, written relative to the output; "
        "default: a BEIR dataset's corpus.jsonl)",
    )
    v.add_argument("-k", type=int, help="a converted golden set's `k:`")
    v.add_argument(
        "--runs",
        action="append",
        default=[],
        help="a converted golden set's `runs:` (paths or globs from here, written relative to the "
        "output; repeat)",
    )
    v.add_argument("--qrels", help="a converted run YAML's `qrels:`: the golden set it answers")
    allow_outside(v)
    v.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.base.files import read_text
    from ..core.formats import convert, detect
    from ..core.project.config import Config

    out_name = args.output.name.lower()
    to_yaml = out_name.endswith((".yaml", ".yml"))
    # the files read (--topics is read only for a golden set, written otherwise)
    workspace = workspace_of(
        args, [args.input, *([args.topics] if to_yaml and args.topics else [])]
    )
    text, message = read_text(args.input)
    if text is None:
        raise UsageError(f"cannot read {args.input}: {message}")
    found = detect(args.input, text, Config(root=args.input.parent))
    kind = found.name if found is not None else None
    if kind in ("golden", "run-yaml") and to_yaml:
        raise UsageError(
            "both sides are YAML: write to a .trec/.qrels/.txt file to convert to TREC"
        )
    if found is not None and found.role == "qrels" and kind != "golden" and to_yaml:
        _beir_dataset(args, workspace)
    target = _target(args, found.role if found is not None else None, to_yaml)
    topics_in = _maybe_read(args.topics) if to_yaml else None
    try:
        result, topics = convert.convert(
            kind,
            text,
            to_yaml=to_yaml,
            topics_text_in=topics_in,
            target=target,
            topics_name=args.topics.name if args.topics is not None else "",
            beir=not to_yaml and out_name.endswith(".tsv"),
        )
    except convert.ConversionError as exc:
        raise UsageError(str(exc)) from exc
    write_file(args.output, result, errors="surrogateescape")
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
    if found is not None and found.role == "qrels" and to_yaml and topics_in is not None:
        _say_topics_kept(found.parse(text), args.topics.name, topics_in)
    if topics is not None and args.topics is not None and not to_yaml:
        write_file(args.topics, topics, errors="surrogateescape")
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


def _beir_dataset(args: argparse.Namespace, workspace: list[Path]) -> None:
    """A BEIR ``qrels/<split>.tsv`` brings its dataset's questions (``queries.jsonl``) and
    corpus (``corpus.jsonl``) into the golden set, unless ``--topics`` and ``--corpus`` say
    otherwise: score and check find them beside the qrels, and so must the converted file."""
    from ..core.base.boundary import Boundary
    from ..core.formats.beir_layout import beir_dataset

    boundary = Boundary.everywhere() if args.allow_outside else Boundary.of(workspace)
    dataset = beir_dataset(args.input.absolute(), boundary.allows)
    if dataset is None:
        return
    if args.topics is None and dataset.queries is not None:
        args.topics = dataset.queries
        print(f"questions from {log_text(dataset.queries)}", file=sys.stderr)
    if args.corpus is None and dataset.corpus is not None:
        args.corpus = str(dataset.corpus)


def _from_output(args: argparse.Namespace, path: str) -> str:
    """A path given from the current folder, as the output file must say it: relative to the
    output's folder (a glob's pattern too: the rewrite is lexical), with `/`."""
    here = Path.cwd() / path
    written = Path(os.path.relpath(here, args.output.absolute().parent)).as_posix()
    return written + "/" if path.endswith(("/", os.sep)) and written != "." else written


def _maybe_read(path: Path | None) -> str | None:
    if path is None:
        return None
    from ..core.base.files import read_text

    text, message = read_text(path)
    if text is None:
        raise UsageError(f"cannot read {path}: {message}")
    return text


def _target(args: argparse.Namespace, role: str | None, to_yaml: bool) -> Target:
    """What the options ask the converted file to say; an option the output cannot hold (a
    TREC file has no header; a run has no corpus, a golden set no `qrels:`) is refused."""
    from ..core.formats.convert import Target
    from ..core.formats.golden_write import GoldenHeader

    golden_only = {"--corpus": args.corpus, "-k": args.k, "--runs": args.runs or None}
    given = [flag for flag, value in golden_only.items() if value is not None]
    if args.k is not None and args.k < 1:
        raise UsageError("-k must be a positive integer")
    if given and not (to_yaml and role == "qrels"):
        raise UsageError(f"{', '.join(given)}: only for a golden set YAML output")
    if args.qrels is not None and not (to_yaml and role == "run"):
        raise UsageError("--qrels: only for a run YAML output")
    default = args.input.name.split(".")[0] or "run"
    corpus = _from_output(args, args.corpus) if args.corpus is not None else None
    runs = tuple(_from_output(args, r) for r in args.runs)
    return Target(
        golden=GoldenHeader(corpus, args.k, runs),
        qrels=args.qrels,
        name=args.name,
        default_name=default,
    )


def _say_topics_kept(source: Qrels | Run, topics_name: str, topics_text: str) -> None:
    """Topics no judgment names are kept in the golden set (``relevant: []``): say which."""
    from ..core.formats.topics import parse_topics
    from ..core.model import Qrels

    judged = source.queries if isinstance(source, Qrels) else {}
    kept = [qid for qid in parse_topics(topics_name, topics_text) if qid not in judged]
    if kept:
        print(
            f"note: {len(kept)} topic(s) have no judgment; kept with `relevant: []` (QR104 "
            f"marks them): {log_text(', '.join(kept))}",
            file=sys.stderr,
        )
