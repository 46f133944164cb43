"""Runs named once: every run a golden set shows has a name no other run has.

Two run files may carry one name: `convert dense.trec -o dense.run.yaml --qrels ...` (the
documented way to a run YAML) leaves both in the runs folder, both `dense`. Shown as they are,
the run appears twice, is counted twice in Holm's family, and a fusion naming it cannot say
which it means. So the runs of a clash are shown by their name and file (`dense (dense.trec)`),
a run file named like the built-in BM25 baseline gives way to it, and a run whose rankings are
another's to the query (the converted copy) is compared once: it adds a file, not a system.
QR121 says so in the golden set, QR210 in each run file (with a fix that names the run YAML).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.findings import Severity, declare

if TYPE_CHECKING:
    from .results import RunResult

QR121 = declare(
    "QR121",
    "run-names-clash",
    Severity.WARNING,
    "golden set",
    "Two of the golden set's runs have one name: each is shown by its name and file, and a run "
    "with another's very rankings is compared once.",
)


@dataclass(frozen=True, slots=True)
class Clash:
    """Runs that carried one ``name``: their files, the names they are shown by, and the files
    left out of comparisons as copies of an earlier run's rankings."""

    name: str
    paths: tuple[Path, ...]
    shown: tuple[str, ...]
    copies: tuple[Path, ...] = ()

    def message(self, root: Path) -> str:
        files = ", ".join(f"`{_relative(p, root)}`" for p in self.paths)
        shown = ", ".join(f"`{s}`" for s in self.shown)
        how = "both" if len(self.paths) == 2 else "all"
        out = f"{files} are {how} named `{self.name}`: shown as {shown}"
        if self.copies:
            copies = ", ".join(f"`{_relative(p, root)}`" for p in self.copies)
            out += f"; {copies} ranks exactly as an earlier one, so it is compared once"
        return out + ". Give a run YAML its own `name:`, or keep one of the files."


def distinct(
    runs: Sequence[RunResult], taken: Sequence[str] = ()
) -> tuple[list[RunResult], list[Clash]]:
    """``runs`` under names no two share (``taken``: names others hold, such as the built-in
    baseline's, which a run file gives way to), the copies left out; and what clashed."""
    seen: set[Path] = set()
    twice: set[int] = set()  # one file named twice (on a command line): one run, no clash
    for i, r in enumerate(runs):
        if r.from_file:
            if r.path in seen:
                twice.add(i)
            seen.add(r.path)
    files = [(i, r) for i, r in enumerate(runs) if r.from_file and not r.error and i not in twice]
    groups = clashing([(r.path, r.name) for _, r in files], taken)
    out = list(runs)
    clashes: list[Clash] = []
    dropped: set[int] = set()
    for name, labels in groups.items():
        members = [i for i, r in files if r.name == name]
        for i in members:
            out[i] = replace(runs[i], name=labels[runs[i].path])
        copies = [
            i for j, i in enumerate(members) if _copy(runs[i], [runs[m] for m in members[:j]])
        ]
        dropped.update(copies)
        paths = tuple(runs[i].path for i in members)
        shown = tuple(labels[p] for p in paths)
        clashes.append(Clash(name, paths, shown, tuple(runs[i].path for i in copies)))
    return [r for i, r in enumerate(out) if i not in dropped | twice], clashes


def clashing(
    named: Sequence[tuple[Path, str]], taken: Sequence[str] = ()
) -> dict[str, dict[Path, str]]:
    """For each name two files carry (or a file carries and ``taken`` holds), each file's
    label: `dense (dense.trec)`. The one rule for the golden set's lists and a run's own file."""
    by_name: dict[str, list[Path]] = {}
    for path, name in named:
        by_name.setdefault(name, []).append(path)
    return {
        name: dict(zip(paths, _labels(name, paths), strict=True))
        for name, paths in by_name.items()
        if len(paths) > 1 or name in taken
    }


def _labels(name: str, paths: Sequence[Path]) -> list[str]:
    """`dense (dense.trec)`; by the path from the folder they share where file names clash."""
    names = [p.name for p in paths]
    if len(set(names)) < len(names):
        common = Path(*_common_parts(paths))
        names = [_relative(p, common) for p in paths]
    return [f"{name} ({n})" for n in names]


def _common_parts(paths: Sequence[Path]) -> tuple[str, ...]:
    parts = [p.parent.parts for p in paths]
    common: list[str] = []
    for column in zip(*parts, strict=False):
        if len(set(column)) != 1:
            break
        common.append(column[0])
    return tuple(common) or ("/",)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def overlap(run: RunResult, other: RunResult, k: int) -> float | None:
    """The share of ``run``'s top ``k`` that ``other``'s top ``k`` holds too, over the queries
    both rank (None: none): how alike two runs of one name are."""
    shares = [
        len(set(mine[:k]) & set(theirs[:k])) / k
        for q, mine in run.rankings.items()
        if (theirs := other.rankings.get(q)) is not None and mine
    ]
    return sum(shares) / len(shares) if shares else None


def baseline_notes(runs: Sequence[RunResult], k: int) -> list[str]:
    """For each run file called BM25: it is not the built-in baseline, how alike their tops
    are, and why they differ. A team's `bm25` beside `bm25 (built-in)` with other numbers is
    the first thing a new user asks about."""
    built_in = next((r for r in runs if r.baseline), None)
    if built_in is None:
        return []
    out = []
    for r in runs:
        if not r.from_file or r.error or "bm25" not in r.name.casefold():
            continue
        shared = overlap(r, built_in, k)
        alike = "" if shared is None else f"; their top {k} share {shared:.0%} of documents"
        out.append(
            f"`{r.name}` is a run file, not the built-in `{built_in.name}`{alike}. The built-in "
            "one is rank_bm25's BM25Okapi (k1 1.5, b 0.75) over each document's title and "
            "text, case-folded, accents folded, no stemming or stopwords; another BM25 "
            "(Pyserini, Elasticsearch, bm25s) differs in tokenizer, stemming, fields and "
            "parameters, so its numbers differ too."
        )
    return out


def _copy(run: RunResult, earlier: Sequence[RunResult]) -> bool:
    """Whether ``run`` ranks every query exactly as one of ``earlier`` does."""
    return any(run.rankings == other.rankings for other in earlier)
