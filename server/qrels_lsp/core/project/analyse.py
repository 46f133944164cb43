"""The analysis of one file in its project: a golden set's findings and its runs' numbers, or a
run's findings and numbers against the golden set it answers. Reads the parts of a
:class:`.project.Project` and makes an :class:`.analysis.Analysis`; keeps nothing itself but the
per-entry check caches it is given.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..base.files import resolve
from ..base.findings import Finding, Severity, declare, finding
from ..base.globs import has_magic
from ..base.text import Span
from ..checks import CheckCache, check_golden, check_run
from ..checks.run_chunks import QR209, matches_no_document
from ..checks.suppress import apply_suppressions
from ..formats.corpus import Corpus
from ..model import FileKind, Qrels, Run
from ..presets import golden_findings, run_findings
from ..search.baseline import BASELINE_NAME
from .analysis import Analysis
from .comparing import QR115, BaseChoice, choose_base
from .naming import clashing
from .pending import Pending
from .results import QrelsContext, RunResult, run_name
from .runs import NOT_A_RUN

if TYPE_CHECKING:
    from ..base.boundary import Boundary
    from .config import Config
    from .contexts import Contexts
    from .derived import Derived
    from .files import Files
    from .links import Links
    from .runs import RunStore
    from .scoring import Scoring


class Parts(Protocol):
    """What an analysis reads: the parts of a project (:class:`.project.Project` is one), down
    the table of its module docstring; the analysis itself keeps nothing."""

    config: Config
    files: Files
    links: Links
    contexts: Contexts
    runs: RunStore
    scoring: Scoring
    derived: Derived

    @property
    def boundary(self) -> Boundary: ...


declare(
    "QR111",
    "runs-not-found",
    Severity.WARNING,
    "golden set",
    "A `runs:` entry that matches no file (a warning), or names a run that cannot be scored: unreadable, not a run, no ranking in it (an error: never zeros).",
)
declare(
    "QR112",
    "outside-workspace",
    Severity.ERROR,
    "any",
    "A path (corpus, runs, `qrels:`, topics) that leads outside the workspace: not read unless your own settings allow it (`allow_outside`).",
)

MAX_FINDINGS = 10_000
"""Findings reported per file: a hundred thousand squiggles help nobody, and each costs the
editor (a diagnostic) and a CI log (a line)."""


def analyse_golden(
    project: Parts,
    path: Path,
    kind: FileKind,
    text: str,
    model: Qrels,
    *,
    with_runs: bool,
    defer: bool,
    checks: CheckCache,
) -> Analysis:
    """A golden set's findings and, ``with_runs``, its runs scored and its base chosen."""
    pending = Pending() if defer else None
    own = project.contexts.context(path, kind, model, pending)
    edit = project.files.edit_of(path, model)
    found = list(model.findings) + check_golden(
        model, text, own.corpus, level=own.level, cache=checks, edit=edit,
        judgments=own.judgments, lock=own.lock,
    )  # fmt: skip
    fused: list[Finding] = []
    loading: list[str] = []
    derived = project.derived
    if with_runs:
        runs = derived.golden_runs(own, pending=pending, problems=fused)
        loading = [p.name for p, _text, _fmt in pending.runs] if pending else []
        # Why a listed run cannot be scored: from its scoring.
        unscored = {r.path: r.error for r in runs if r.from_file}
    else:  # (`check`, which scores nothing: from reading each run)
        runs = []
        derived.fused_runs(own, derived.named_runs(own, fused), fused, make=False)
        unscored = {resolve(p): project.runs.read_run(p, fast=True)[2] for p in own.run_paths}
    found += fused + _chunk_findings(own, runs)
    base = BaseChoice(None)
    if with_runs:
        base = choose_base(own, runs, baseline_pending=derived.baseline_pending(own))
    if base.problem is not None and model.compare_to is not None and not pending:
        found.append(finding(QR115, model.compare_to.span, base.problem + "."))
    found += _outside(own, model) + _runs_entries(own, model, unscored)
    found += golden_findings(own.preset, model.preset, model)
    found += _replacement_characters(text)
    return Analysis(
        path,
        kind,
        text,
        suppress(project, found, text),
        model,
        own,
        runs,
        edit,
        base.base,
        loading=loading,
        pending=pending or None,
        waiting=base.waiting,
    )


def analyse_run(project: Parts, path: Path, kind: FileKind, text: str, model: Run) -> Analysis:
    """A run's findings and its numbers against the golden set it answers."""
    links = project.links
    golden_path, reason = links.golden_of(path, model)
    links.scan_run_files()
    links.link(resolve(path), golden_path if model.qrels is not None else None)
    found = list(model.findings)
    if golden_path is None and model.qrels is not None and reason is not None:
        target = resolve(path).parent / model.qrels.value
        if not project.boundary.allows(target):  # said as QR112, not as an unbound run
            found.append(finding("QR112", model.qrels.span, f"`qrels:` {reason}."))
            reason = "This run's golden set is outside the workspace, so it is not scored."
    ctx: QrelsContext | None = None
    if golden_path is not None:
        gkind, _gtext, gmodel, _gerr = project.files.load(golden_path)
        if gkind is not None and isinstance(gmodel, Qrels):
            ctx = project.contexts.context(golden_path, gkind, gmodel)
    name = run_name(path, model)
    namesakes, shown = _namesakes(project, ctx, path, name)
    config = project.config
    found += check_run(
        model,
        ctx.qrels if ctx else None,
        ctx.corpus if ctx else None,
        k=ctx.k if ctx else config.k,
        level=ctx.level if ctx else config.relevance_level,
        unbound_reason=reason,
        text=text,
        beside=links.golden_beside(path) if ctx is None else (),
        chunks=ctx.chunks if ctx else None,
        name=name,
        namesakes=namesakes,
        shown=shown,
    )
    found += run_findings(ctx.preset if ctx else None, model)
    runs = [project.scoring.score_run(ctx, path)] if ctx is not None else []
    if runs and shown != runs[0].name:
        runs = [replace(runs[0], name=shown)]
    found += _replacement_characters(text)
    return Analysis(path, kind, text, suppress(project, found, text), model, ctx, runs)


def _namesakes(
    project: Parts, ctx: QrelsContext | None, path: Path, name: str
) -> tuple[tuple[str, ...], str]:
    """The golden set's other run files named ``name`` (relative to the golden set), and
    the name this run is shown by (naming.py's rule, on the names the files give)."""
    if ctx is None:
        return (), name
    mine = resolve(path)
    named = [(resolve(p), project.runs.name_of(p)) for p in ctx.run_paths]
    if mine not in {p for p, _ in named}:
        named.append((mine, name))
    taken = (BASELINE_NAME,) if project.config.bm25_baseline else ()
    labels = clashing(named, taken).get(name)
    if labels is None:
        return (), name
    root = ctx.path.parent
    others = tuple(_relative_to(p, root) for p in labels if p != mine)
    return others, labels.get(mine, name)


def _runs_entries(
    ctx: QrelsContext, qrels: Qrels, unscored: dict[Path, str | None]
) -> list[Finding]:
    """QR111/QR112 where each `runs:` entry is written: refused, matching nothing, or naming a
    file that cannot be scored."""
    found: list[Finding] = []
    for ref in qrels.runs:
        hits = ctx.run_matches.get(ref.value, [])
        problem = ctx.run_problems.get(ref.value)
        if problem is not None:
            code = "QR112" if problem[0] else "QR111"
            found.append(finding(code, ref.span, f"`{ref.value}`: {problem[1]}."))
        elif not hits:
            found.append(finding("QR111", ref.span, f"No run file matches `{ref.value}`."))
        errors = [(h, unscored.get(resolve(h))) for h in hits]
        found += _unscored(ref.value, ref.span, errors)
    return found


def _chunk_findings(ctx: QrelsContext, runs: list[RunResult]) -> list[Finding]:
    """QR209 where the golden set writes `chunks:`, for each run whose ids its rule maps to
    no document of the corpus (the rule is probably wrong for that run)."""
    rule = ctx.chunks
    if rule is None or not isinstance(ctx.corpus, Corpus):
        return []
    out = []
    for r in runs:
        if r.from_file and not r.error:
            problem = matches_no_document(r.rankings, rule, ctx.corpus, r.name)
            if problem is not None:
                span = rule.span if ctx.qrels.chunks is rule else Span(0, 0)
                out.append(finding(QR209, span, problem))
    return out


def suppress(project: Parts, found: list[Finding], text: str) -> list[Finding]:
    kept = apply_suppressions(found, text, project.config.ignore)
    return _capped(sorted(kept, key=lambda f: (f.span.start, f.code)))


def _capped(found: list[Finding]) -> list[Finding]:
    """The first :data:`MAX_FINDINGS` findings, errors first, and one that counts the rest."""
    if len(found) <= MAX_FINDINGS:
        return found
    by_severity = sorted(range(len(found)), key=lambda i: found[i].severity)
    keep = sorted(by_severity[:MAX_FINDINGS])
    rest = len(found) - MAX_FINDINGS
    first_left = found[min(set(range(len(found))) - set(keep))]
    summary = finding(
        "QR006",
        Span(first_left.span.start, first_left.span.start),
        f"{rest:,} more findings in this file are not shown (at most {MAX_FINDINGS:,} are); "
        "fix the ones shown first.",
        severity=Severity.INFO,
    )
    return [*(found[i] for i in keep), summary]


def _unscored(pattern: str, span: Span, errors: list[tuple[Path, str | None]]) -> list[Finding]:
    """A `runs:` entry whose file could not be read (a FIFO, a device, too large, unreadable,
    no ranking in it) is said so where it is written, not scored as zeros in silence. A glob
    matching a file that is not a run (a README beside the runs) is no mistake; naming one
    outright is."""
    out = []
    for path, error in errors:
        if error is None or (has_magic(pattern) and NOT_A_RUN in error):
            continue
        which = "" if pattern == path.name else f" ({path.name})"
        message = f"`{pattern}`{which} is not scored: {error}."
        out.append(finding("QR111", span, message, severity=Severity.ERROR))
    return out


def _replacement_characters(text: str) -> list[Finding]:
    """U+FFFD is what undecodable bytes become (on disk, or in the editor that read the file):
    an id holding it matches nothing, so the first one is pointed at."""
    at = text.find("\ufffd")
    if at == -1:
        return []
    return [
        finding(
            "QR006",
            Span(at, at + 1),
            "U+FFFD (the replacement character) here: the file's bytes were not valid UTF-8 "
            "where it was read, and text holding it matches nothing. Save the file as UTF-8.",
            severity=Severity.WARNING,
        )
    ]


def _relative_to(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _outside(ctx: QrelsContext, qrels: Qrels) -> list[Finding]:
    """QR112 for the corpus or topics a golden set (or its ``[[qrels]]``) names outside the
    boundary: where ``corpus:`` is written, else at the top of the file."""
    span = qrels.corpus.span if qrels.corpus is not None else Span(0, 0)
    return [finding("QR112", span, f"{why}.") for why in ctx.outside]
