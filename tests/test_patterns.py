"""Every regular expression the package runs on workspace or client text lives in
``core/base/patterns.py``, and each one is linear in the way it is called.

(a) No other module of the package imports ``re`` or ``fnmatch`` (which compiles a workspace's
glob into a backtracking pattern).
(b) RE2 compiles every pattern (RE2 is linear by construction, so the pattern is regular: no
lookaround, no backreference), and each, run by its own engine, is fed a megabyte of text built
from the characters and literals of its own classes (runs of each, alternations of two, a
near-miss at the end), matched at a position or searched through as the code calls it, each call
under a guard of seconds that only a super-linear pattern can exceed (quadratic on a megabyte is
hours). The default run feeds 128 KiB and fewer shapes; the slow run everything at 1 MiB.
(c) Every pattern rewritten to drop a lookaround or a backreference reads as before: the old
pattern is kept here as the oracle.
"""

from __future__ import annotations

import ast
import contextlib
import fnmatch
import itertools
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import re2
from conftest import THOROUGH, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base import escape, patterns
from qrels_lsp.core.base.globs import matcher
from qrels_lsp.core.base.patterns import SPECS, Spec
from qrels_lsp.core.formats.yaml.context import _strip_value, _unquote
from qrels_lsp.core.metrics.metric import parse_metric
from qrels_lsp.core.search import tokens

PACKAGE = Path(patterns.__file__).resolve().parents[2]
BANNED = {"re", "fnmatch", "sre_compile", "sre_parse", "sre_constants"}
GUARD_SECONDS = 5.0
SIZE = (1 << 20) if THOROUGH else (1 << 17)


# -- (a) the rule ---------------------------------------------------------------------------------


def test_no_module_but_patterns_imports_a_backtracking_engine() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == Path(patterns.__file__).resolve():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = {node.module.split(".")[0]}
            else:
                continue
            if names & BANNED:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == [], "only core/base/patterns.py may import re (see its docstring)"


def test_each_pattern_is_declared_once_and_typed() -> None:
    """Every spec has a type for mypy, every typed name a spec, and each has its why."""
    tree = ast.parse(Path(patterns.__file__).read_text(encoding="utf-8"))
    typed = {
        node.target.id
        for block in tree.body
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in block.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    assert typed == set(SPECS)
    assert all(spec.why.strip() for spec in SPECS.values())


# -- (b) each pattern is regular and linear -------------------------------------------------------


def _re2_source(spec: Spec) -> tuple[str | bytes, Any]:
    """The pattern in RE2's syntax: Python's \\Z is RE2's \\z, its \\uXXXX escapes RE2's \\x{}."""
    options = re2.Options()
    options.log_errors = False
    source = spec.source
    if isinstance(source, bytes):
        options.encoding = re2.Options.Encoding.LATIN1
        return source.replace(rb"\Z", rb"\z"), options
    source = source.replace(r"\Z", r"\z")
    source = re.sub(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})", _hex_escape, source)
    return source, options


def _hex_escape(m: re.Match[str]) -> str:
    return f"\\x{{{int(m.group(1) or m.group(2), 16):x}}}"


# RE2 reads UTF-8, which cannot hold a lone surrogate: these classes name them, and are one
# character class each (nothing to backtrack).
NOT_UTF8 = {"SURROGATE": "[\\ud800-\\udfff]: the code points UTF-8 cannot encode"}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_re2_compiles_the_pattern(name: str) -> None:
    spec = SPECS[name]
    if name in NOT_UTF8:
        assert isinstance(spec.source, str) and len(re.sub(r"\[[^]]*\]", "", spec.source)) == 0
        return
    source, options = _re2_source(spec)
    re2.compile(source, options)  # raises on a lookaround, a backreference, an atomic group


def _alphabet(spec: Spec) -> tuple[list[str], list[str]]:
    """The characters the pattern's classes and literals accept (a few of each class), and its
    literal words (``<top>``, ``qrels-lsp:``), from Python's own parse of it."""
    source = spec.source.decode("latin-1") if isinstance(spec.source, bytes) else spec.source
    if spec.engine == "re2":  # RE2's syntax: its literal characters will do
        chars = sorted({c for c in source if c.isprintable() and c not in "\\{}^$?*+"})
        return [*chars, " ", "\t", "\xa0", "0"], ["p=", "rel=", "@", "ndcg_cut"]
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    reps = {
        c.CATEGORY_SPACE: " \t\n\u00a0",
        c.CATEGORY_NOT_SPACE: "a#",
        c.CATEGORY_DIGIT: "07\u0663",
        c.CATEGORY_NOT_DIGIT: "a ",
        c.CATEGORY_WORD: "a_7é",
        c.CATEGORY_NOT_WORD: " .-",
    }
    chars: set[str] = set()
    words: set[str] = set()

    def walk(items: Any) -> None:
        run = ""
        for op, av in items:
            if op is c.LITERAL:
                chars.add(chr(av))
                run += chr(av)
                continue
            if len(run) > 1:
                words.add(run)
            run = ""
            if op is c.NOT_LITERAL:
                chars.add("a" if av != ord("a") else "b")
            elif op is c.ANY:
                chars.add("a")
            elif op is c.IN:
                for o, a in av:
                    if o is c.LITERAL:
                        chars.add(chr(a))
                    elif o is c.RANGE:
                        chars.update((chr(a[0]), chr(a[1]), chr((a[0] + a[1]) // 2)))
                    elif o is c.CATEGORY:
                        chars.update(reps.get(a, ""))
                    elif o is c.NEGATE:
                        chars.add("a")
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                walk(av[2])
            elif op is c.SUBPATTERN:
                walk(av[3])
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
        if len(run) > 1:
            words.add(run)

    walk(_parser.parse(source))
    chars.discard("\x00")
    return sorted(chars), sorted(words)


def _inputs(spec: Spec, size: int, thorough: bool) -> Iterator[tuple[str, str]]:
    """(what, text): runs of each character and word, and (in the slow run) of two alternating
    and of each word then a character; each plain and with a near-miss at its end (and for runs,
    "a" + run + "x")."""
    chars, words = _alphabet(spec)
    most = (24 if thorough else 10) if spec.engine == "re" else 8  # (RE2 is linear anyway)
    if len(chars) > most:  # a few of each part of a class are as hostile as all of it
        chars = chars[:: len(chars) // most + 1]
    shapes: list[tuple[str, str]] = [(repr(u), u) for u in chars + words]
    if thorough:
        shapes += [(repr(a + b), a + b) for a, b in itertools.combinations(chars, 2)]
        shapes += [(repr(w + c), w + c) for w in words for c in chars]
    for what, unit in shapes:
        run = unit * (size // len(unit))
        yield f"{what} * {len(run) // len(unit):,}", run
        yield f"{what} * n + '\\x00'", run + "\x00"
        yield f"'a' + {what} * n + 'x'", "a" + run + "x"
    yield "'a' + ' ' * n + 'x'", "a" + " " * size + "x"


class _TooLong(Exception):
    pass


@contextlib.contextmanager
def _guard(seconds: float) -> Iterator[None]:
    """SIGALRM: Python's regex engine checks for signals as it runs, so a runaway match is
    stopped (RE2's, in C, is linear and never needs it)."""

    def alarm(_signum: int, _frame: object) -> None:
        raise _TooLong

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(spec: Spec, rx: Any, text: str | bytes) -> None:
    if spec.call == patterns.AT:
        rx.match(text)
        rx.fullmatch(text)
        return
    if spec.cut_after is not None:
        cut = spec.cut_after.encode() if isinstance(text, bytes) else spec.cut_after
        text = text[: text.rfind(cut) + 1]  # type: ignore[arg-type]
    rx.search(text)
    rx.subn("", text)  # the search loop of finditer, sub and split, without a Match per hit


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_pattern_is_linear_on_hostile_text(name: str) -> None:
    spec = SPECS[name]
    rx = getattr(patterns, name)
    for what, text in _inputs(spec, SIZE, THOROUGH):
        data: str | bytes = text
        if isinstance(spec.source, bytes):
            data = text.encode("utf-8", "surrogatepass")
        try:
            with _guard(GUARD_SECONDS):
                _call(spec, rx, data)
        except _TooLong:
            pytest.fail(f"{name} ({spec.call}) ran over {GUARD_SECONDS:.0f} s on {what}")


def test_the_guard_stops_a_backtracking_pattern() -> None:
    """The test above can fail: the classic nested quantifier is stopped by the guard."""
    with pytest.raises(_TooLong), _guard(0.5):
        re.match(r"(a+)+b", "a" * 64)


# -- (c) what the rewrites read as before --------------------------------------------------------

OLD_METRIC = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z_]*?)\s*(?:\((?P<params>[^()]*)\))?"
    r"(?:\s*[@_.]\s*(?P<cut>\d+|k|\d*\.\d+|p\s*=\s*\d*\.?\d+))?\s*$"
)
OLD_PARAM = re.compile(r"^\s*([A-Za-z_]+)\s*=\s*([-+]?\d*\.?\d+)\s*$")
METRIC_PIECES = ["P", "ndcg", "_", "cut", ".", "@", "(", ")", "rel", "=", "p", "2", "0.8", " "]
METRIC_PIECES += ["\u00a0", "k", ",", "\u0663", "\n", "\x0b", "x", "-", "\u00b2"]


def _groups(m: Any, names: tuple[str | int, ...]) -> tuple[Any, ...] | None:
    return None if m is None else tuple(m.group(n) for n in names)


@pytest.mark.parametrize(
    "name", ["P_5", "ndcg_cut.10", "recall_k", "rbp.p=0.9", "RBP(p=0.8)", "recip_rank"]
)
def test_metric_names_parse_as_with_pythons_engine(name: str) -> None:
    fields = ("name", "params", "cut")
    assert _groups(patterns.METRIC_NAME.match(name), fields) == _groups(
        OLD_METRIC.match(name), fields
    )


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(st.sampled_from(METRIC_PIECES), max_size=8).map("".join))
def test_the_metric_patterns_match_what_pythons_matched(text: str) -> None:
    fields = ("name", "params", "cut")
    assert _groups(patterns.METRIC_NAME.match(text), fields) == _groups(
        OLD_METRIC.match(text), fields
    )
    assert _groups(patterns.METRIC_PARAM.match(text), (1, 2)) == _groups(
        OLD_PARAM.match(text), (1, 2)
    )


def test_a_metric_name_of_sixty_thousand_blanks_is_refused_at_once() -> None:
    """Python's engine took minutes on it (the server froze: it holds the interpreter lock)."""
    for name in ("a" + " " * 60_000 + "x", "recall" + " " * 60_000 + "@"):
        with _guard(GUARD_SECONDS), pytest.raises(ValueError, match="more than the 200"):
            parse_metric(name)
        with _guard(GUARD_SECONDS):
            assert patterns.METRIC_NAME.match(name) is None  # RE2 alone: linear


def test_a_metric_name_at_the_cap_is_read() -> None:
    assert str(parse_metric("ndcg@10" + " " * 193)) == "ndcg@10"


_CJK = "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK += "\U00020000-\U0003134f"
OLD_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+(?:(?<=\d)\.(?=\d)[^\W{_CJK}]+)*")
OLD_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+|\r\n|\r|\n")
TEXT = st.lists(
    st.sampled_from([*list("a1.5 _é٣Zあx9!?\n\r\t"), "..", "3.14", "e.g.", "。", "²"]),
    max_size=20,
).map("".join)


@settings(max_examples=examples(2000), deadline=None)
@given(TEXT)
def test_tokens_are_cut_as_with_the_lookarounds(text: str) -> None:
    assert tokens.tokenize(text) == OLD_TOKEN.findall(tokens.normalize(text))


@settings(max_examples=examples(2000), deadline=None)
@given(TEXT)
def test_snippets_split_sentences_as_with_the_lookbehind(text: str) -> None:
    old = [p.strip() for p in OLD_SENTENCES.split(text) if p and p.strip()]
    assert tokens.snippet(text, [], lines=100, width=10**6).split("\n") == (old or [""])


OLD_AUTOLINK = re.compile(r"(?i)(?::(?=//)|(?<=www)\.)")


@settings(max_examples=examples(2000), deadline=None)
@given(st.lists(st.sampled_from([*list("wW.:/x "), "www.", "://"]), max_size=12).map("".join))
def test_autolinks_are_broken_as_with_the_lookarounds(text: str) -> None:
    new = patterns.MD_AUTOLINK.sub(escape._break_autolink, text)
    assert new == OLD_AUTOLINK.sub(r"\\\g<0>", text)


OLD_VALUE_END = re.compile(r"(?<![ \t])[ \t]+#|$")


@settings(max_examples=examples(2000), deadline=None)
@given(st.lists(st.sampled_from([*list("a# \t'\"\n"), "x"]), max_size=12).map("".join))
def test_block_values_end_as_with_the_lookbehind(raw: str) -> None:
    m = OLD_VALUE_END.search(raw)
    value = raw[: m.start()] if m else raw
    assert _strip_value(raw) == _unquote(value.strip())


GLOB = st.lists(st.sampled_from(list("ab-z!]^[\\*?.é")), max_size=8).map("".join)
NAME = st.lists(st.sampled_from([*"ab-z!]^[\\.é/\n", "\udcff"]), max_size=6).map("".join)


@settings(max_examples=examples(5000), deadline=None)
@given(GLOB, NAME)
def test_globs_match_as_fnmatch_matches(pattern: str, name: str) -> None:
    """RE2 runs a workspace's globs; fnmatch (Python's engine) is the oracle, lone surrogates
    (undecodable bytes of a file name) aside, which are read as U+FFFD."""
    plain = name.replace("\udcff", "\ufffd")
    assert matcher(pattern)(name) == fnmatch.fnmatchcase(plain, pattern)


def test_a_glob_of_many_stars_is_matched_at_once() -> None:
    with _guard(GUARD_SECONDS):
        assert not matcher("*a" * 500 + "b")("a" * 4096)
