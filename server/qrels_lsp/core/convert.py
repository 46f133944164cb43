"""Conversions between the YAML formats and TREC files, so every number can be cross-checked in
trec_eval, pytrec_eval or ranx. Converting is lossless for judgments and rankings; what TREC
cannot say (an unanswerable question) is left out and reported by the caller's summary."""

from __future__ import annotations

import json
import re

from .golden import parse_golden
from .model import Qrels, Run
from .runyaml import parse_run_yaml
from .trec import parse_beir_qrels, parse_trec_qrels, parse_trec_run, parse_trec_topics
from .yamltree import implicit_type

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./#:+-]*")


class ConversionError(Exception):
    pass


def yaml_scalar(value: str) -> str:
    """``value`` as a YAML scalar that reads back as the same string (quoted only if needed)."""
    if _PLAIN.fullmatch(value) and not value.endswith(":") and implicit_type(value) == "str":
        return value
    return json.dumps(value, ensure_ascii=False)


def golden_to_trec(qrels: Qrels) -> str:
    lines = []
    for qid, query in qrels.queries.items():
        for doc, grade in query.grades().items():
            lines.append(f"{qid} 0 {doc} {grade}")
    return "\n".join(lines) + ("\n" if lines else "")


def topics_of(qrels: Qrels, jsonl: bool = False) -> str:
    out = []
    for qid, query in qrels.queries.items():
        text = " ".join((query.question or "").split())
        if jsonl:
            out.append(json.dumps({"_id": qid, "text": text}, ensure_ascii=False))
        else:
            out.append(f"<top>\n<num>{qid}</num>\n<title>{text}</title>\n</top>")
    return "\n".join(out) + ("\n" if out else "")


def qrels_to_golden(qrels: Qrels, questions: dict[str, str]) -> str:
    lines = ["queries:"]
    for qid, query in qrels.queries.items():
        lines.append(f"  {yaml_scalar(qid)}:")
        question = questions.get(qid) or query.question
        if question:
            lines.append(f"    question: {yaml_scalar(' '.join(question.split()))}")
        grades = query.grades()
        if grades and all(g == 1 for g in grades.values()):
            lines.append("    relevant: [" + ", ".join(yaml_scalar(d) for d in grades) + "]")
        elif grades:
            lines.append("    relevant:")
            lines.extend(f"      {yaml_scalar(d)}: {g}" for d, g in grades.items())
        else:
            lines.append("    unanswerable: true")
    return "\n".join(lines) + "\n"


def run_to_trec(run: Run, name: str) -> str:
    tag = re.sub(r"\s+", "_", name) or "run"
    lines = []
    for qid, ranking in run.rankings.items():
        n = len(ranking.docs)
        for rank, doc in enumerate(ranking.docs, start=1):
            score = doc.score if doc.score is not None else float(n - rank + 1)
            lines.append(f"{qid} Q0 {doc.doc_id} {rank} {score!r} {tag}")
    return "\n".join(lines) + ("\n" if lines else "")


def trec_to_run_yaml(run: Run, name: str) -> str:
    lines = [f"name: {yaml_scalar(name)}", "results:"]
    for qid, ranking in run.rankings.items():
        lines.append(f"  {yaml_scalar(qid)}:")
        lines.extend(f"    - {yaml_scalar(d.doc_id)}" for d in ranking.docs)
    return "\n".join(lines) + "\n"


def convert(
    kind: str | None, text: str, *, to_yaml: bool, topics_text: str | None, name: str
) -> tuple[str, str | None]:
    """(converted text, topics text or None). Refuses input with errors rather than guess."""
    if kind == "golden" and not to_yaml:
        qrels = parse_golden(text)
        _refuse_errors(qrels.findings)
        return golden_to_trec(qrels), topics_of(qrels)
    if kind in ("trec-qrels", "beir-qrels") and to_yaml:
        qrels = parse_trec_qrels(text) if kind == "trec-qrels" else parse_beir_qrels(text)
        _refuse_errors(qrels.findings)
        questions = {}
        if topics_text is not None:
            questions = {qid: t.text for qid, t in parse_trec_topics(topics_text).items()}
        return qrels_to_golden(qrels, questions), None
    if kind == "run-yaml" and not to_yaml:
        run = parse_run_yaml(text)
        _refuse_errors(run.findings)
        return run_to_trec(run, run.name or name), None
    if kind == "trec-run" and to_yaml:
        run = parse_trec_run(text)
        _refuse_errors(run.findings)
        return trec_to_run_yaml(run, name), None
    raise ConversionError(
        f"cannot convert a {kind or 'file of unknown format'} to "
        f"{'YAML' if to_yaml else 'TREC'}: golden set <-> TREC qrels, run YAML <-> TREC run"
    )


def _refuse_errors(findings: list) -> None:  # type: ignore[type-arg]
    errors = [f for f in findings if f.severity == 1]
    if errors:
        raise ConversionError(
            f"the input has {len(errors)} error(s) (first: {errors[0].code} {errors[0].message}); "
            "run `qrels-lsp check` on it first"
        )
