"""A golden set's `fusions:` and `chunks:` keys, read from its YAML tree: the runs it makes
from its runs (fused runs) and how its runs' ids map to its documents (runs of chunks). Only
the shape is checked here; the names of runs, once the golden set's runs are known
(``core/project/fusing.py``)."""

from __future__ import annotations

from ..chunks import ChunkRule, rule_problem
from ..fusion.spec import FUSION_KEYS, MAX_FUSED_RUNS, MAX_FUSIONS, Fusion, value_problem
from ..model import Ref
from .yaml.shape import ShapeReader
from .yaml.tree import YMap, YNode, YScalar, YSeq, describe

CHUNK_KEYS: dict[str, str] = {
    "separator": "The text between a document's id and its chunk's number: \"#\" reads `kb/x.md#3` as a chunk of `kb/x.md`.",
    "pattern": "A regular expression (RE2) whose named group `doc` is the document's id, e.g. `(?P<doc>.+)::p\\d+`.",
}


def read_chunks(p: ShapeReader, node: YNode) -> ChunkRule | None:
    """`chunks: {separator: "#"}` or `chunks: {pattern: ...}`; a problem is a finding (QR004)."""
    if isinstance(node, YScalar) and node.type == "null":
        return None
    if not p.expect(node, YMap, "`chunks`", node.span):
        return None
    assert isinstance(node, YMap)
    fields = p.keys(node, CHUNK_KEYS, "`chunks`")
    values: dict[str, str | None] = {"separator": None, "pattern": None}
    for key in values:
        if key in fields:
            value = fields[key][1]
            if isinstance(value, YScalar) and value.type not in ("null", "bool"):
                values[key] = value.value
            else:
                p.add(
                    "QR004", value.span, f"`chunks` `{key}` must be text, found {describe(value)}."
                )
                return None
    problem = rule_problem(values["separator"], values["pattern"])
    if problem is not None:
        p.add("QR004", node.span, f"`chunks`: {problem}; runs are scored by their ids as written.")
        return None
    return ChunkRule(values["separator"], values["pattern"], node.span)


def read_fusions(p: ShapeReader, node: YNode) -> list[Fusion]:
    """`fusions:` a list of `{name, method, runs, ...}`; an entry with a problem is left out,
    with a finding."""
    if isinstance(node, YScalar) and node.type == "null":
        return []
    if not p.expect(node, YSeq, "`fusions`", node.span):
        return []
    assert isinstance(node, YSeq)
    if len(node.items) > MAX_FUSIONS:
        p.add(
            "QR004",
            node.span,
            f"`fusions` holds {len(node.items):,} entries; the first {MAX_FUSIONS} are read.",
        )
    out = []
    for item in node.items[:MAX_FUSIONS]:
        fusion = _fusion(p, item)
        if fusion is not None:
            out.append(fusion)
    return out


def _fusion(p: ShapeReader, node: YNode) -> Fusion | None:
    if not p.expect(node, YMap, "Each entry of `fusions`", node.span):
        return None
    assert isinstance(node, YMap)
    fields = p.keys(node, FUSION_KEYS, "a fusion")
    missing = [k for k in ("name", "method", "runs") if k not in fields]
    if missing:
        keys = ", ".join(f"`{k}`" for k in missing)
        p.add(
            "QR004",
            node.span,
            f"A fusion needs {keys}: `{{name: hybrid, method: rrf, runs: [bm25, dense]}}`.",
        )
        return None
    name_node = fields["name"][1]
    name = p.string(name_node, "A fusion's `name`")
    if name is None or not name.strip():
        if name is not None:
            p.add("QR004", name_node.span, "A fusion's `name` must not be empty.")
        return None
    runs = _run_names(p, fields["runs"][1])
    values: dict[str, object] = {}
    ok = runs is not None
    for key in ("method", "k", "weights", "norm", "depth"):
        if key not in fields:
            continue
        value_node = fields[key][1]
        value = _plain(value_node)
        problem = value_problem(key, value)
        if problem is not None:
            p.add("QR004", value_node.span, f"{problem}; found {describe(value_node)}.")
            ok = False
            continue
        values[key] = value
    if not ok or runs is None:
        return None
    weights = values.get("weights")
    return Fusion(
        name=name.strip(),
        method=str(values["method"]),
        runs=tuple(runs),
        span=node.span,
        k=float(values["k"]) if "k" in values else 60,  # type: ignore[arg-type]
        weights=tuple(float(w) for w in weights) if isinstance(weights, list) else None,
        norm=str(values["norm"]) if "norm" in values else None,
        depth=int(values["depth"]) if "depth" in values else None,  # type: ignore[call-overload]
        given=frozenset(fields),
        name_span=name_node.span,
        weights_span=fields["weights"][1].span if "weights" in fields else None,
    )


def _run_names(p: ShapeReader, node: YNode) -> list[Ref] | None:
    if not p.expect(node, YSeq, "A fusion's `runs`", node.span):
        return None
    assert isinstance(node, YSeq)
    refs = []
    for item in node.items:
        value = p.string(item, "Each of a fusion's `runs`")
        if value is None or not isinstance(item, YScalar):
            return None
        refs.append(Ref(value.strip(), item.inner))
    if len(refs) < 2:
        p.add(
            "QR004",
            node.span,
            "A fusion's `runs` names two runs or more (a run fused alone is itself).",
        )
        return None
    if len(refs) > MAX_FUSED_RUNS:  # each input costs every fused query on every edit
        p.add("QR004", node.span, f"A fusion fuses at most {MAX_FUSED_RUNS} runs.")
        return None
    return refs


def _plain(node: YNode) -> object:
    """A YAML value as TOML would give it: numbers, text, lists of those (None: anything else)."""
    if isinstance(node, YScalar):
        if node.type == "int":
            return node.as_int()
        if node.type == "float":
            try:
                return float(node.value.replace("_", ""))
            except ValueError:
                return None
        if node.type == "str":
            return node.value
        return None
    if isinstance(node, YSeq):
        return [_plain(item) for item in node.items]
    return None
