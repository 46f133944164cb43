"""Conversions between the YAML formats and TREC files, so every number can be cross-checked in
trec_eval, pytrec_eval or ranx. Converting is lossless for judgments and rankings; what TREC
cannot say (an unanswerable question) is left out and reported by the caller's summary."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Qrels, Run
from . import get
from .beir_qrels import beir_qrels_text
from .golden_write import GoldenHeader, golden_text
from .run_yaml import run_yaml_text
from .topics import parse_topics, topics_kind, topics_text
from .trec_qrels import trec_qrels_text
from .trec_run import trec_run_text


class ConversionError(Exception):
    pass


def _questions(qrels: Qrels) -> dict[str, str]:
    return {qid: q.question or "" for qid, q in qrels.queries.items()}


@dataclass(frozen=True, slots=True)
class Target:
    """What the converted file says beyond the input's judgments or rankings: a golden set's
    ``corpus:``, ``k:`` and ``runs:``; a run's ``qrels:`` and name (``name`` wins over the name
    the input carries, ``default_name`` only stands in for a missing one)."""

    golden: GoldenHeader = field(default_factory=GoldenHeader)
    qrels: str | None = None
    name: str | None = None
    default_name: str = "run"


def convert(
    kind: str | None,
    text: str,
    *,
    to_yaml: bool,
    topics_text_in: str | None,
    target: Target = Target(),
    topics_name: str = "",
    beir: bool = False,
) -> tuple[str, str | None]:
    """(converted text, topics text or None). Refuses input with errors rather than guess.

    ``topics_name`` is the topics file's name: its suffix says how the topics are written or
    read (``.jsonl``, ``.tsv``, else TREC ``<top>``; read, an unknown name goes by content).
    ``beir``: judgments are written as BEIR's qrels TSV rather than TREC qrels."""
    fmt = get(kind) if kind is not None else None
    wanted = "beir-qrels" if beir else "trec-qrels"
    if fmt is not None and fmt.role == "qrels" and not to_yaml and fmt.name != wanted:
        qrels = fmt.parse(text)
        assert isinstance(qrels, Qrels)
        _refuse_errors(qrels.findings)
        written = topics_text(_questions(qrels), topics_kind(topics_name)) if fmt.yaml else None
        return (beir_qrels_text(qrels) if beir else trec_qrels_text(qrels)), written
    if fmt is not None and fmt.role == "qrels" and not fmt.yaml and to_yaml:
        qrels = fmt.parse(text)
        assert isinstance(qrels, Qrels)
        _refuse_errors(qrels.findings)
        questions = {}
        if topics_text_in is not None:
            topics = parse_topics(topics_name, topics_text_in)
            questions = {qid: t.text for qid, t in topics.items()}
        return golden_text(qrels, questions, target.golden), None
    if fmt is not None and fmt.role == "run" and (fmt.yaml != to_yaml or fmt.name != "trec-run"):
        run = fmt.parse(text)
        assert isinstance(run, Run)
        _refuse_errors(run.findings)
        name = target.name or run.name or target.default_name
        if to_yaml:
            return run_yaml_text(run, name, target.qrels), None
        return trec_run_text(run, name), None
    raise ConversionError(
        f"cannot convert a {kind or 'file of unknown format'} to "
        f"{'YAML' if to_yaml else 'TREC'}: golden set <-> TREC qrels, run YAML <-> TREC run "
        "(JSON and TSV qrels and runs convert to either)"
    )


def _refuse_errors(findings: list) -> None:  # type: ignore[type-arg]
    errors = [f for f in findings if f.severity == 1]
    if errors:
        raise ConversionError(
            f"the input has {len(errors)} error(s) (first: {errors[0].code} {errors[0].message}); "
            "run `qrels-lsp check` on it first"
        )
