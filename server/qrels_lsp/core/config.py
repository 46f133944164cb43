"""Configuration: ``qrels-lsp.toml`` or ``[tool.qrels-lsp]`` in ``pyproject.toml``.

One typed :class:`Config` is built from a mapping, whatever its source (a TOML file, the
editor's settings), so every source is validated the same way. Bad values never stop anything:
each becomes a located finding (QR401/QR402) and the default is used in its place.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .findings import Finding, finding
from .text import LineIndex, Span

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
    "qrels": "TREC/BEIR qrels files and what belongs to them: [[qrels]] path, topics, corpus, runs, k.",
}
QRELS_SETTINGS: dict[str, str] = {
    "path": "The TREC or BEIR qrels file, relative to the config file.",
    "topics": "Its topics (TREC <top> file) or queries (JSONL/TSV): the question texts.",
    "corpus": "Its corpus: a folder, .jsonl, .tsv or TREC <DOC> file.",
    "runs": "Runs scored against it: paths or globs.",
    "k": "Its default cutoff.",
}


@dataclass(frozen=True, slots=True)
class QrelsBinding:
    """A TREC/BEIR qrels file and the files that belong to it (a golden set YAML says it itself)."""

    path: Path
    topics: Path | None = None
    corpus: Path | None = None
    runs: tuple[str, ...] = ()
    k: int | None = None


@dataclass(frozen=True, slots=True)
class Config:
    k: int = 10
    relevance_level: int = 1
    ignore: frozenset[str] = frozenset()
    metrics: tuple[str, ...] = ()
    golden: tuple[str, ...] = DEFAULT_GOLDEN
    runs: tuple[str, ...] = DEFAULT_RUNS
    bm25_baseline: bool = True
    qrels: tuple[QrelsBinding, ...] = ()
    root: Path | None = None  # the folder relative paths are resolved against
    source: Path | None = None  # the file the values came from
    findings: tuple[Finding, ...] = field(default=(), compare=False)


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
    try:
        return "[tool.qrels-lsp" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def load_config(start: Path) -> Config:
    """The configuration that applies to ``start`` (a file or folder); defaults if none."""
    path = find_config_file(start)
    if path is None:
        return Config(root=start if start.is_dir() else start.parent)
    return load_config_file(path)


def load_config_file(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return Config(
            root=path.parent, source=path, findings=(_at(path, "", f"Cannot read: {exc}"),)
        )
    return parse_config_text(text, path)


def parse_config_text(text: str, path: Path) -> Config:
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
        header = _TOOL_TABLE.search(text)
        search_from = header.end() if header else 0
    return config_from_mapping(data, base, text, search_from=search_from)


_TOOL_TABLE = re.compile(r'(?m)^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*"?qrels-lsp"?[ \t]*\]')


def _toml_error(text: str, exc: Exception) -> Finding:
    match = re.search(r"line (\d+), column (\d+)", str(exc))
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
        pattern = re.compile(rf"(?m)^\s*\"?{re.escape(key)}\"?\s*=")
        match = pattern.search(text, search_from)
        if match:
            start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
            span = Span(start, start + len(key))
    return finding(code, span, message)


def config_from_mapping(
    data: Mapping[str, Any], base: Config, text: str = "", *, search_from: int = 0
) -> Config:
    """Validate settings from any source; each bad value is a finding and keeps its default."""
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

    for key, value in data.items():
        if key not in SETTINGS:
            problems.append(
                _at(
                    where,
                    text,
                    f"Unknown setting `{key}`; known: {', '.join(SETTINGS)}.",
                    key,
                    "QR402",
                    search_from,
                )
            )
            continue
        if key in ("k", "relevance_level"):
            if not isinstance(value, int) or isinstance(value, bool) or (key == "k" and value < 1):
                bad(key, "expected " + ("a positive integer" if key == "k" else "an integer"))
            else:
                values[key] = value
        elif key in ("ignore", "metrics", "golden", "runs"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                bad(key, "expected a list of strings")
            else:
                values[key] = (
                    frozenset(v.upper() for v in value) if key == "ignore" else tuple(value)
                )
        elif key == "bm25_baseline":
            if not isinstance(value, bool):
                bad(key, "expected true or false")
            else:
                values[key] = value
        elif key == "qrels":
            values[key] = _bindings(value, base.root or Path("."), bad)
    if "metrics" in values:
        from .metrics import parse_metric

        for name in values["metrics"]:
            try:
                parse_metric(name)
            except ValueError as exc:
                bad("metrics", str(exc))
                del values["metrics"]
                break
    return replace(base, findings=tuple(problems), **values)


def _bindings(value: Any, root: Path, bad: Any) -> tuple[QrelsBinding, ...]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        bad("qrels", "expected [[qrels]] tables")
        return ()
    out = []
    for table in value:
        unknown = set(table) - set(QRELS_SETTINGS)
        if unknown:
            bad("qrels", f"unknown keys {sorted(unknown)}; known: {', '.join(QRELS_SETTINGS)}")
        path = table.get("path")
        if not isinstance(path, str):
            bad("qrels", 'each [[qrels]] needs `path = "..."`')
            continue
        runs = table.get("runs", [])
        if isinstance(runs, str):
            runs = [runs]
        k = table.get("k")
        out.append(
            QrelsBinding(
                path=(root / path).resolve(),
                topics=(root / table["topics"]).resolve()
                if isinstance(table.get("topics"), str)
                else None,
                corpus=(root / table["corpus"]).resolve()
                if isinstance(table.get("corpus"), str)
                else None,
                runs=tuple(r for r in runs if isinstance(r, str)),
                k=k if isinstance(k, int) and not isinstance(k, bool) and k > 0 else None,
            )
        )
    return tuple(out)
