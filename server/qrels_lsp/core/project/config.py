"""Configuration: ``qrels-lsp.toml`` or ``[tool.qrels-lsp]`` in ``pyproject.toml``.

One typed :class:`Config` is built from a mapping, whatever its source (a TOML file, the
editor's settings), so every source is validated the same way. Bad values never stop anything:
each becomes a located finding (QR401/QR402) and the default is used in its place.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..base.caps import MAX_METRIC_NAME, MAX_SETTING, too_long
from ..base.files import MiB, read_regular
from ..base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from ..base.patterns import SETTING_LINE, TOML_ERROR_PLACE, TOOL_TABLE
from ..base.text import LineIndex, Span, decode
from ..chunks import ChunkRule, rule_problem
from ..coverage.judgments import KINDS, Judgments
from ..formats.style import FormatSettings, format_settings
from ..fusion.spec import FUSION_KEYS, MAX_FUSED_RUNS, MAX_FUSIONS, Fusion, value_problem
from ..model import INT_LIMIT, Qrels, Ref

declare(
    "QR401",
    "config-invalid",
    Severity.ERROR,
    "config",
    "The configuration is not valid.",
)
declare(
    "QR402",
    "config-unknown-key",
    Severity.WARNING,
    "config",
    "A configuration key that is not defined.",
)
declare(
    "QR403",
    "config-too-long",
    Severity.ERROR,
    "config",
    "A setting's text longer than its cap (4,096 characters; 200 for a metric): the default is used.",
)


CONFIG_FILE = "qrels-lsp.toml"
DEFAULT_GOLDEN = ("**/*.qrels.yaml", "**/*.qrels.yml")
DEFAULT_RUNS = ("**/*.run.yaml", "**/*.run.yml", "**/*.trec", "**/*.run")

SETTINGS: dict[str, str] = {
    "k": "Default cutoff for recall@k, precision@k, nDCG@k, hit_rate@k (a golden set's `k:` wins). Default 10.",
    "relevance_level": "Grades at or above this count as relevant (trec_eval -l). Default 1.",
    "ignore": 'Check codes to silence everywhere, e.g. ["QR110"].',
    "metrics": 'Metrics shown by `score` and hover, e.g. ["recall@5", "mrr", "ndcg@10"].',
    "golden": 'Glob patterns of golden set files. Default ["**/*.qrels.yaml", "**/*.qrels.yml"].',
    "runs": 'Glob patterns of run files. Default ["**/*.run.yaml", "**/*.run.yml", "**/*.trec", "**/*.run"].',
    "bm25_baseline": "Score a BM25 baseline run beside the configured runs when a corpus is known. Default true.",
    "corpus_ids": 'What a folder corpus calls its documents: "path" (the path relative to the folder, `kb/1410.txt`) or "stem" (the same without the file extension, `kb/1410`). Default "path".',
    "qrels": "TREC/BEIR qrels files and what belongs to them: [[qrels]] path, topics, corpus, runs, k.",
    "fusions": "Runs fused from each golden set's runs, as [[fusions]] tables: name, method (rrf, combsum, combmnz, wsum), runs, k, weights, norm, depth; a golden set's `fusions:` and a [[qrels]] table's `fusions` win.",
    "chunks": 'How runs\' chunk ids map to documents: {separator = "#"} or {pattern = "(?P<doc>.+)::\\d+"}; a golden set\'s `chunks:` and a [[qrels]] table\'s `chunks` win. Default none.',
    "compare_to": 'The run every other run is compared with (its name, e.g. "bm25" or "dense"); a golden set\'s `compare_to:` wins. Default: the BM25 baseline when a corpus is known, else the first run.',
    "judgments": 'How complete the judgments of every golden set are, unless its own `judgments:` (or its [[qrels]] table) says: "exhaustive" (a document not listed is not relevant: coverage does not gate) or "pooled" (a document not judged is unknown: coverage gates). Default: inferred per golden set, exhaustive when no grade is 0.',
    "alpha": "Significance level of comparisons, after Holm-Bonferroni over the runs and metrics shown. Default 0.05.",
    "min_difference": "The smallest difference worth detecting: comparisons say how many questions would detect it (power 0.8). Default 0.05.",
    "preset": 'A known benchmark whose conventions apply to every golden set that names none: "arguana", "quora" (documents whose id is the query\'s dropped from runs), "msmarco", "trec-dl-2019", "trec-dl-2020" (relevance level 2), or "none". Default: from a BEIR dataset\'s folder name.',
    "min_judged": "Below this judged@k (the share of a run's top k that the golden set judges), the golden set's first line warns: its unjudged documents count as not relevant. 0 to 1; 0 never warns. Default 0.9.",
    "pool_depth": "How deep into each run the judging queue looks (depth-k pooling): the golden set's `N unjudged in the top D · judge next` lens and `qrels-lsp pool`'s default `--depth`. Default 10.",
    "blind_judging": "While judging, hide what the systems being compared say: run ranks, scores and comparisons in lenses, hints and hover, BM25's quality hints and its order in completion. Default false.",
    "format": 'How `qrels-lsp fmt` and the editor\'s Format Document write golden sets and run YAML: {sort_queries = false, relevant = "keep"} (see docs/formatting.md).',
    "diff_base": 'The git revision the editor compares each golden set with: its first line says what changed since then and by how much the head metric moved (the judgments\' part, the run\'s), each changed question carries its own lens. "auto": the merge base of HEAD and the default branch; a revision such as "main" or "HEAD~1"; "off" (or false). Off outside a git checkout; git runs nothing of the repository\'s. Default off: the editor runs git only once you set it.',
    "allow_outside": "Folders outside the workspace that may be read (a shared corpus), or true for any. Only from your editor's user settings or a configuration file outside the workspace: a workspace cannot grant itself this. Default none.",
}
MAX_CONFIG_BYTES = 1 * MiB
"""A configuration file is a few lines; a bigger one (a symlink to a 2 GB file) is not parsed."""
MAX_LIST = 1000
"""Items per list setting (globs, codes, metrics, ``[[qrels]]`` tables)."""
MAX_UNKNOWN_SHOWN = 20
"""Unknown keys reported one by one; the rest are counted in one finding."""
QRELS_SETTINGS: dict[str, str] = {
    "path": "The TREC or BEIR qrels file, relative to the config file.",
    "topics": "Its topics (TREC <top> file) or queries (JSONL/TSV): the question texts.",
    "corpus": "Its corpus: a folder, .jsonl, .tsv or TREC <DOC> file.",
    "runs": "Runs scored against it: paths or globs.",
    "k": "Its default cutoff.",
    "compare_to": "The run its other runs are compared with.",
    "fusions": "Runs fused from its runs ([[qrels.fusions]] tables: name, method, runs, k, weights, norm, depth).",
    "chunks": 'How its runs\' chunk ids map to its documents: {separator = "#"} or {pattern = "..."}.',
    "judgments": 'How complete its judgments are: "exhaustive" or "pooled" (see `judgments`).',
    "preset": "A known benchmark whose conventions apply to it (see `preset`).",
}


@dataclass(frozen=True, slots=True)
class QrelsBinding:
    """A TREC/BEIR qrels file and the files that belong to it (a golden set YAML says it itself)."""

    path: Path
    topics: Path | None = None
    corpus: Path | None = None
    runs: tuple[str, ...] = ()
    k: int | None = None
    compare_to: str | None = None
    fusions: tuple[Fusion, ...] | None = None  # (None: none given; the configuration's apply)
    chunks: ChunkRule | None = None
    judgments: Judgments | None = None  # how complete its judgments are (None: not said)
    preset: str | None = None  # a known benchmark's conventions (core/presets.py)


@dataclass(frozen=True, slots=True)
class Config:
    k: int = 10
    relevance_level: int = 1
    ignore: frozenset[str] = frozenset()
    metrics: tuple[str, ...] = ()
    golden: tuple[str, ...] = DEFAULT_GOLDEN
    runs: tuple[str, ...] = DEFAULT_RUNS
    bm25_baseline: bool = True
    corpus_ids: Literal["path", "stem"] = "path"  # a folder corpus's ids: paths, or without suffix
    compare_to: str | None = None  # the base run of comparisons (None: the default choice)
    judgments: Judgments | None = None  # for every golden set that does not say (None: inferred)
    preset: str | None = None  # for every golden set that names none (None: by its folder)
    alpha: float = 0.05
    min_difference: float = 0.05
    fusions: tuple[Fusion, ...] = ()  # for every golden set that declares none of its own
    chunks: ChunkRule | None = None  # for every golden set that declares none of its own
    min_judged: float = 0.9
    pool_depth: int = 10
    blind_judging: bool = False
    format: FormatSettings = field(default_factory=FormatSettings)  # how YAML files are formatted
    diff_base: str | None = None  # the revision golden sets are compared with (None: off, so
    # that opening a repository runs no program and looks at no folder above it until asked)
    qrels: tuple[QrelsBinding, ...] = ()
    allow_outside: tuple[Path, ...] = ()  # folders outside the workspace the user allows
    allow_anywhere: bool = False  # the user lifted the workspace boundary altogether
    root: Path | None = None  # the folder relative paths are resolved against
    source: Path | None = None  # the file the values came from
    findings: tuple[Finding, ...] = field(default=(), compare=False)


def scoring_settings(
    qrels: Qrels, binding: QrelsBinding | None, config: Config, given: Any = None
) -> tuple[int, int, ChunkRule | None]:
    """A golden set's cutoff, relevance level and chunk rule: its own, else its ``[[qrels]]``
    table's, else its benchmark preset's (``given``, core/presets.py), else the
    configuration's."""
    k = qrels.k or (binding.k if binding else None) or (given.k if given else None) or config.k
    level = qrels.relevance_level
    if level is None and given is not None:
        level = given.relevance_level
    chunks = qrels.chunks or (binding.chunks if binding else None) or config.chunks
    return k, level if level is not None else config.relevance_level, chunks


def find_config_file(start: Path) -> Path | None:
    """The nearest ``qrels-lsp.toml``, or ``pyproject.toml`` with a ``[tool.qrels-lsp]`` table."""
    here = start if start.is_dir() else start.parent
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def _has_tool_table(path: Path) -> bool:
    data, _problem = read_regular(path, MAX_CONFIG_BYTES)
    return data is not None and b"[tool.qrels-lsp" in data


def load_config(start: Path, workspace: Sequence[Path] = ()) -> Config:
    """The configuration that applies to ``start`` (a file or folder); defaults if none.

    ``workspace`` holds the folders whose files the user did not necessarily write: a
    configuration file inside one of them cannot widen the boundary (``allow_outside``)."""
    path = find_config_file(start)
    if path is None:
        return Config(root=start if start.is_dir() else start.parent)
    return load_config_file(path, workspace)


def load_config_file(path: Path, workspace: Sequence[Path] = ()) -> Config:
    """A configuration file, read as any untrusted file is: a regular file, size-capped."""
    data, problem = read_regular(path, MAX_CONFIG_BYTES + 1)
    if data is not None and len(data) > MAX_CONFIG_BYTES:
        problem = f"larger than {MAX_CONFIG_BYTES // MiB} MiB, so not read"
    if data is None or problem is not None:
        message = f"Cannot read {path.name}: {problem}. Defaults are used."
        return Config(root=path.parent, source=path, findings=(_at(path, "", message),))
    text, _ = decode(data)
    return parse_config_text(text, path, trusted=not _inside(path, workspace))


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    from ..base.boundary import real

    where = real(path)
    roots = [r for r in (real(f) for f in folders) if r is not None]
    return where is not None and any(where == r or r in where.parents for r in roots)


def parse_config_text(text: str, path: Path, *, trusted: bool = True) -> Config:
    # Imported here: most workspaces have no config file, and the server's start-up should not
    # pay for a TOML parser (and the datetime module it loads) it never uses.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    base = Config(root=path.parent, source=path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return replace(base, findings=(_toml_error(text, exc),))
    search_from = 0
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("qrels-lsp", {})
        # Locate bad keys inside [tool.qrels-lsp], not in an earlier table with the same key.
        header = TOOL_TABLE.search(text)
        search_from = header.end() if header else 0
    return config_from_mapping(data, base, text, search_from=search_from, trusted=trusted)


def _toml_error(text: str, exc: Exception) -> Finding:
    match = TOML_ERROR_PLACE.search(str(exc))
    offset = 0
    if match:
        offset = LineIndex(text).offset(int(match.group(1)) - 1, int(match.group(2)) - 1)
    end = min(offset + 1, len(text))
    return finding("QR401", Span(offset, end), f"Not valid TOML: {exc}. Defaults are used.")


def _at(
    path: Path,
    text: str,
    message: str,
    key: str | None = None,
    code: str = "QR401",
    search_from: int = 0,
) -> Finding:
    """A finding located at the first mention of ``key`` in ``text`` at or after ``search_from``
    (TOML keeps no positions)."""
    span = Span(0, 0)
    if key:
        # Blanks, not \s: \s* spans line breaks, so a key that is not there made the search
        # quadratic over blank lines (20,000 of them: 3 s).
        for match in SETTING_LINE.finditer(text, search_from):
            if key in (match.group(1), match.group(2)):
                start = match.start(1) if match.group(1) is not None else match.start(2)
                span = Span(start, start + len(key))
                break
    return finding(code, span, message)


def config_from_mapping(
    data: Mapping[str, Any],
    base: Config,
    text: str = "",
    *,
    search_from: int = 0,
    trusted: bool = True,
) -> Config:
    """Validate settings from any source; each bad value is a finding and keeps its default.

    ``trusted`` is False for a configuration file inside the workspace: it may configure
    everything but the boundary (``allow_outside``), which only the user's own settings widen.
    """
    where = base.source or Path("settings")
    problems: list[Finding] = list(base.findings)
    values: dict[str, Any] = {}

    def bad(key: str, message: str) -> None:
        problems.append(
            _at(
                where,
                text,
                f"`{key}`: {message}. The default is used.",
                key,
                search_from=search_from,
            )
        )

    unknown = 0
    for key, value in data.items():
        if key not in SETTINGS:
            unknown += 1
            if unknown <= MAX_UNKNOWN_SHOWN:  # one by one, then a count: 50k keys, 1 finding
                shown = _shown(key)
                problems.append(
                    _at(
                        where,
                        text,
                        f"Unknown setting `{shown}`; known: {', '.join(SETTINGS)}.",
                        key if shown == key else None,
                        "QR402",
                        search_from,
                    )
                )
            continue
        longest = _longest_text(value)
        cap = MAX_METRIC_NAME if key == "metrics" else MAX_SETTING
        if longest > cap:
            message = f"`{key}`: {too_long('a value', longest, cap)}. The default is used."
            problems.append(_at(where, text, message, key, "QR403", search_from))
            continue
        if key in ("k", "relevance_level", "pool_depth"):
            positive = key != "relevance_level"
            low = 1 if positive else -INT_LIMIT
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not low <= value <= INT_LIMIT
            ):
                want = "a positive integer" if positive else "an integer"
                bad(key, f"expected {want}, at most 2^53 ({INT_LIMIT:,}) in magnitude")
            else:
                values[key] = value
        elif key in ("ignore", "metrics", "golden", "runs"):
            if not _strings(value):
                bad(key, f"expected a list of at most {MAX_LIST} strings without NUL bytes")
            else:
                values[key] = (
                    frozenset(v.upper() for v in value) if key == "ignore" else tuple(value)
                )
        elif key in ("bm25_baseline", "blind_judging"):
            if not isinstance(value, bool):
                bad(key, "expected true or false")
            else:
                values[key] = value
        elif key == "diff_base":
            from ..history.git import base_setting

            try:
                values[key] = base_setting(value)
            except ValueError as exc:
                bad(key, str(exc))
        elif key == "compare_to":
            if not isinstance(value, str) or not value.strip() or "\0" in value:
                bad(key, "expected a run's name")
            else:
                values[key] = value.strip()
        elif key in ("alpha", "min_difference"):
            if not _fraction(value):
                bad(key, "expected a number above 0 and below 1")
            else:
                values[key] = float(value)
        elif key == "min_judged":
            if not _share(value):
                bad(key, "expected a number from 0 to 1")
            else:
                values[key] = float(value)
        elif key == "corpus_ids":
            if value not in ("path", "stem"):
                bad(key, 'expected "path" or "stem"')
            else:
                values[key] = value
        elif key == "judgments":
            if value not in KINDS:
                bad(key, 'expected "exhaustive" or "pooled"')
            else:
                values[key] = value
        elif key == "preset":
            problem = preset_problem(value)
            if problem is not None:
                bad(key, problem)
            else:
                values[key] = value.strip().casefold()
        elif key == "fusions":
            values[key] = _fusions(value, f"`[[fusions]]` of {where.name}", bad)
        elif key == "chunks":
            rule = _chunks(value, f"`chunks` of {where.name}", lambda m: bad("chunks", m))
            if rule is not None:
                values[key] = rule
        elif key == "format":
            values[key], format_problems = format_settings(value, base.format)
            for problem in format_problems:
                bad(key, problem)
        elif key == "qrels":
            values[key] = _bindings(value, base.root or Path("."), bad, where.name)
        elif key == "allow_outside":
            if not trusted:
                bad(
                    key,
                    "a configuration file inside the workspace cannot widen what is read; set it "
                    "in your editor's user settings or a qrels-lsp.toml outside the workspace",
                )
            else:
                values.update(_allowance(value, base.root, bad))
    if unknown > MAX_UNKNOWN_SHOWN:
        more = unknown - MAX_UNKNOWN_SHOWN
        problems.append(_at(where, text, f"{more:,} more unknown settings.", None, "QR402"))
    if "metrics" in values:
        from ..metrics import parse_metric

        for name in values["metrics"]:
            try:
                parse_metric(name, k=1)  # any k: `recall` and `recall@k` take the golden set's
            except ValueError as exc:
                bad("metrics", str(exc))
                problems[-1] = _metric_fixes(problems[-1], text, name, exc)
                del values["metrics"]
                break
    return replace(base, findings=tuple(problems), **values)


def _metric_fixes(found: Finding, text: str, name: str, exc: ValueError) -> Finding:
    """An unknown metric's finding on the name where it is written, quoted, after the `metrics`
    key, with a quick fix per closest name (not found there: as it was, on the key)."""
    closest = getattr(exc, "closest", ())
    if not closest or not found.span.end:
        return found
    start = min(
        (i for q in "\"'" if (i := text.find(f"{q}{name}{q}", found.span.start)) >= 0), default=-1
    )
    if start == -1:
        return found
    span = Span(start + 1, start + 1 + len(name))
    fixes = tuple(
        Fix(f"Change to {c}", (TextEdit(span, c),), preferred=i == 0) for i, c in enumerate(closest)
    )
    return replace(found, span=span, fixes=fixes)


def _shown(key: object) -> str:
    """A key as a message quotes it: printable and short (it may be anything a client sent)."""
    text = str(key)
    text = "".join(c if c.isprintable() else "?" for c in text[:80])
    return text + ("…" if len(str(key)) > 80 else "")


def _longest_text(value: Any, budget: int = 100_000) -> int:
    """The length of the longest string in a setting's value (its lists and tables walked, keys
    included, up to ``budget`` items: other checks refuse a value that large)."""
    longest, todo = 0, [value]
    while todo and budget > 0:
        budget -= 1
        item = todo.pop()
        if isinstance(item, str):
            longest = max(longest, len(item))
        elif isinstance(item, list):
            todo.extend(item[:budget])
        elif isinstance(item, dict):
            todo.extend(list(item)[:budget])
            todo.extend(list(item.values())[:budget])
    return longest


def _fraction(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1


def _share(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


def _strings(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) <= MAX_LIST
        and all(isinstance(v, str) and "\0" not in v for v in value)
    )


def _allowance(value: Any, root: Path | None, bad: Any) -> dict[str, Any]:
    """``allow_outside``: true (anywhere), false, or a list of absolute folders (``~`` allowed)."""
    if isinstance(value, bool):
        return {"allow_anywhere": value}
    if not _strings(value):
        bad("allow_outside", "expected true, false or a list of folders")
        return {}
    folders = []
    for item in value:
        folder = Path(item).expanduser()
        if not folder.is_absolute():
            if root is None:
                bad("allow_outside", f"`{_shown(item)}` is not an absolute path")
                continue
            folder = root / folder
        folders.append(folder)
    return {"allow_outside": tuple(folders)}


def _path_value(root: Path, value: Any) -> Path | None:
    """A path from a ``[[qrels]]`` table, absolute; None for anything that cannot name a file."""
    if not isinstance(value, str) or not value or "\0" in value:
        return None
    return Path(os.path.abspath(root / value))


def _chunks(value: Any, origin: str, bad: Any) -> ChunkRule | None:
    """A ``chunks`` table: ``{separator = "#"}`` or ``{pattern = "..."}``."""
    if not isinstance(value, dict) or set(value) - {"separator", "pattern"}:
        bad('expected {separator = "#"} or {pattern = "(?P<doc>.+)::\\d+"}')
        return None
    problem = rule_problem(value.get("separator"), value.get("pattern"))
    if problem is not None:
        bad(problem)
        return None
    return ChunkRule(value.get("separator"), value.get("pattern"), origin=origin)


def _fusions(value: Any, origin: str, bad: Any) -> tuple[Fusion, ...]:
    """``[[fusions]]`` tables (each as a golden set's `fusions:` entry); a bad one is left out."""
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        bad("fusions", "expected [[fusions]] tables")
        return ()
    if len(value) > MAX_FUSIONS:
        bad("fusions", f"{len(value):,} [[fusions]] tables, more than {MAX_FUSIONS}")
        return ()
    out = []
    for table in value:
        fusion = _fusion(table, origin, lambda m: bad("fusions", m))
        if fusion is not None:
            out.append(fusion)
    return tuple(out)


def _fusion(table: dict[str, Any], origin: str, bad: Any) -> Fusion | None:
    name = table.get("name")
    if not isinstance(name, str) or not name.strip() or "\0" in name:
        bad('each [[fusions]] needs `name = "..."`')
        return None
    label = f"fusion `{_shown(name)}`"
    unknown = set(table) - set(FUSION_KEYS)
    if unknown:
        names = ", ".join(_shown(u) for u in sorted(map(str, unknown))[:10])
        bad(f"{label}: unknown keys {names}; known: {', '.join(FUSION_KEYS)}")
        return None
    runs: list[str] = table.get("runs") or []
    if not _strings(runs) or not 2 <= len(runs) <= MAX_FUSED_RUNS:
        bad(f"{label}: `runs` must list from two to {MAX_FUSED_RUNS} run names")
        return None
    if "method" not in table:
        bad(f"{label}: `method` is missing (rrf, combsum, combmnz or wsum)")
        return None
    for key in ("method", "k", "weights", "norm", "depth"):
        if key in table:
            problem = value_problem(key, table[key])
            if problem is not None:
                bad(f"{label}: {problem}")
                return None
    weights = table.get("weights")
    return Fusion(
        name=name.strip(),
        method=table["method"],
        runs=tuple(Ref(r.strip(), Span(0, 0)) for r in runs),
        k=float(table.get("k", 60)),
        weights=tuple(float(w) for w in weights) if weights is not None else None,
        norm=table.get("norm"),
        depth=table.get("depth"),
        given=frozenset(table),
        origin=origin,
    )


def _bindings(
    value: Any, root: Path, bad: Any, source: str = "settings"
) -> tuple[QrelsBinding, ...]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        bad("qrels", "expected [[qrels]] tables")
        return ()
    if len(value) > MAX_LIST:
        bad("qrels", f"{len(value):,} [[qrels]] tables, more than {MAX_LIST:,}")
        return ()
    out = []
    for table in value:
        unknown = set(table) - set(QRELS_SETTINGS)
        if unknown:
            names = ", ".join(_shown(u) for u in sorted(map(str, unknown))[:10])
            bad("qrels", f"unknown keys {names}; known: {', '.join(QRELS_SETTINGS)}")
        path = _path_value(root, table.get("path"))
        if path is None:
            bad("qrels", 'each [[qrels]] needs `path = "..."`')
            continue
        runs = table.get("runs", [])
        if isinstance(runs, str):
            runs = [runs]
        if not _strings(runs):
            bad("qrels", f"`runs` of {path.name}: expected a list of paths or globs")
            runs = []
        k = table.get("k")
        compare_to = table.get("compare_to")
        if compare_to is not None and not (isinstance(compare_to, str) and compare_to.strip()):
            bad("qrels", f"`compare_to` of {path.name}: expected a run's name")
            compare_to = None
        judgments = table.get("judgments")
        if judgments is not None and judgments not in KINDS:
            bad("qrels", f'`judgments` of {path.name}: expected "exhaustive" or "pooled"')
            judgments = None
        preset = table.get("preset")
        if preset is not None and preset_problem(preset) is not None:
            bad("qrels", f"`preset` of {path.name}: {preset_problem(preset)}")
            preset = None
        where = f"the [[qrels]] table of {path.name} in {source}"
        fusions = (
            _fusions(table["fusions"], f"`fusions` of {where}", bad) if "fusions" in table else None
        )
        chunks = None
        if "chunks" in table:
            chunks = _chunks(
                table["chunks"],
                f"`chunks` of {where}",
                lambda m, name=path.name: bad("qrels", f"`chunks` of {name}: {m}"),
            )
        out.append(
            QrelsBinding(
                path=_resolved(path),
                topics=_maybe_resolved(_path_value(root, table.get("topics"))),
                corpus=_maybe_resolved(_path_value(root, table.get("corpus"))),
                runs=tuple(runs),
                k=k if isinstance(k, int) and not isinstance(k, bool) and k > 0 else None,
                compare_to=compare_to.strip() if compare_to is not None else None,
                fusions=fusions,
                chunks=chunks,
                judgments=judgments,
                preset=preset.strip().casefold() if preset is not None else None,
            )
        )
    return tuple(out)


def preset_problem(value: Any) -> str | None:
    """Why ``value`` names no preset (None: it does)."""
    from ..presets import NONE, PRESETS

    if isinstance(value, str) and value.strip().casefold() in (*PRESETS, NONE):
        return None
    return f"expected one of {', '.join(repr(n) for n in (*PRESETS, NONE))}"


def _resolved(path: Path) -> Path:
    from ..base.boundary import real

    return real(path) or path


def _maybe_resolved(path: Path | None) -> Path | None:
    return _resolved(path) if path is not None else None
