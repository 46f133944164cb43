"""Random and structure-aware mutations of valid files, driven by a :class:`random.Random`.

Character-level mutations (a byte typed, deleted or replaced) find tokenizer bugs; line- and
token-level ones (a line duplicated, dedented, a grade quoted, an id swapped, an alias or a
``!!python`` tag planted, line breaks turned into CRLF or a lone CR) keep the file close enough to
valid that the deeper code (checks, metrics, fixes, lenses) runs on it. Hypothesis drives these
through a seeded Random, the fuzz command through its own.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

SPECIAL = [
    *" \t\r\n:-?[]{},#&*!|>'\"%@`~.0123456789",
    "\x00",
    "\x85",
    "\u2028",
    "\ufeff",
    "\ufffd",
    "😀",
    "日本",
    "é",
    "e\u0301",
    "\U0010ffff",
]
YAML_SNIPPETS = [
    "&a ",
    "*a",
    "!!python/object/apply:os.system ['false']",
    "!!str ",
    "? ",
    "<<: *a",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    "|\n  ",
    ">-\n  ",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "# comment\n",
    "unanswerable: true",
    "unanswerable: maybe",
    "relevant: ",
    "question: ",
    "k: 0",
    "k: -3",
    "corpus: /dev/zero",
    "corpus: ../../../../etc/passwd",
    "runs: ['**/*']",
    # Paths out of the workspace (the fuzz workspace has a sibling `outside/` holding a secret,
    # and `corpus-link` pointing at it) and globs that would walk the disk.
    "corpus: corpus-link",
    "corpus: ../outside",
    "corpus: /",
    'corpus: "corpus\\0x"',
    "runs: ['/**/**/**/*']",
    "runs: ['../outside/*', ../outside/secret.run.yaml]",
    'runs: ["\\0*"]',
    "qrels: ../outside/secret.qrels.yaml",
    # Ids and questions written to start workflow commands or inject Markdown.
    '"::add-mask::x"',
    '"::error file=a,line=1::forged"',
    '"x##[error]y"',
    '"a\\n::warning::b"',
    '"`](http://x) <img src=x>"',
    '"\\u202e"',
    "relevance_level: x",
    ': "2"',
    ": 2.5",
    ": -1",
    ": 99999999999999999999",
    ": 1e400",
    "kb/factory-reset.md",
    "kb/factory-resett.md",
    # Fusions and chunk rules (issue 18): unknown runs, runs without scores, bad weights, a
    # name taken, patterns RE2 refuses or that would backtrack for ever in Python's re.
    "fusions: [{name: f, method: rrf, runs: [bm25, dense, bm25]}]",
    "fusions: [{name: dense, method: wsum, runs: [bm25, nope], weights: [1]}]",
    "fusions: [{name: f, method: combmnz, runs: [dense, hybrid], depth: 0, k: 1e400}]",
    "- {name: g, method: rrf, runs: [f, g, bm25 (baseline)]}",
    'chunks: {separator: "#"}',
    'chunks: {separator: ""}',
    'chunks: {pattern: "(?P<doc>(a+)+)$"}',
    'chunks: {pattern: "(a)\\1(?P<doc>"}',
    "kb/factory-reset.md#3",
    "~",
    "null",
    "yes",
]
TREC_SNIPPETS = [
    " Q0 ",
    " 0 ",
    " -1 ",
    " 1.5 ",
    " nan ",
    " inf ",
    " 1e309 ",
    "\t",
    "  ",
    "#",
    " kb/factory-reset.md ",
    " query-id corpus-id score",
]

Mutator = Callable[[random.Random, str], str]

# Names, ids, settings and paths of hostile length: runs of what made patterns backtrack and
# parsers recurse, from a few hundred characters to a megabyte (rarely: each is slow to send).
HOSTILE_UNITS = [" ", "(", "[", "{", "\t", "#", "😀", "a", "\\", ":", "'", "*", "?", ".", "-"]
HOSTILE_UNITS += ["\u00a0", "a ", "( ", "1.", "_", "/", "%", "\r", "<top>", "::"]


def hostile_text(rng: random.Random) -> str:
    """``"a" + a run of one or two hostile characters + a near-miss``: 300 characters to 1 MiB."""
    size = rng.choice([300, 1_100, 5_000, 70_000]) if rng.random() > 0.03 else 1 << 20
    unit = rng.choice(HOSTILE_UNITS) + (rng.choice(HOSTILE_UNITS) if rng.random() < 0.3 else "")
    head = rng.choice(["", "a", "recall", "P_", "q"])
    return head + unit * (size // len(unit)) + rng.choice(["", "x", ")", "]", "@5", "\x00"])


def _long_name(rng: random.Random, text: str) -> str:
    """A word-like token (an id, a run's name, a tag, a metric, a path) made hostile and long."""
    tokens = list(re.finditer(r"[\w./@-]+", text))
    if not tokens:
        return text + hostile_text(rng)
    t = rng.choice(tokens)
    return text[: t.start()] + hostile_text(rng) + text[t.end() :]


def _long_yaml_field(rng: random.Random, text: str) -> str:
    """A field a golden set or run names things with, holding a long hostile value (quoted or
    plain; a key longer than YAML's 1,024 characters written explicitly, ``? key``)."""
    value = hostile_text(rng)
    shown = json_quoted(value) if rng.random() < 0.5 else value
    line = rng.choice(
        [
            f"name: {shown}\n",
            f"compare_to: {shown}\n",
            f"description: {shown}\n",
            f"qrels: {shown}\n",
            f"corpus: {shown}\n",
            f"runs: [{shown}]\n",
            f"  ? {shown}\n  : [kb/x.md]\n",
            f"    question: {shown}\n",
            f"    tags: [{shown}]\n",
            f"    relevant: [{shown}]\n",
            f"fusions: [{{name: {shown}, method: rrf, runs: [bm25, {shown}]}}]\n",
            f"chunks: {{separator: {shown}}}\n",
        ]
    )
    lines = [x for x in _lines(text) if x]
    at = rng.randint(0, len(lines))
    return "".join([*lines[:at], line, *lines[at:]])


def json_quoted(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def _lines(text: str) -> list[str]:
    return re.split(r"(?<=\n)|(?<=\r)(?!\n)", text)


def _char(rng: random.Random, text: str) -> str:
    at = rng.randint(0, len(text))
    chunk = "".join(rng.choice(SPECIAL) for _ in range(rng.randint(1, 3)))
    op = rng.randrange(3)
    if op == 0:
        return text[:at] + chunk + text[at:]
    if op == 1:
        return text[:at] + text[at + rng.randint(1, 4) :]
    return text[:at] + chunk + text[at + len(chunk) :]


def _line(rng: random.Random, text: str) -> str:
    lines = [x for x in _lines(text) if x]
    if not lines:
        return text
    i = rng.randrange(len(lines))
    op = rng.randrange(6)
    if op == 0:
        lines.insert(i, lines[i])
    elif op == 1:
        del lines[i]
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        lines[i] = "  " + lines[i]
    elif op == 4:
        lines[i] = lines[i][2:] if lines[i].startswith("  ") else lines[i]
    else:
        lines[i] = "\t" + lines[i].lstrip(" ")
    return "".join(lines)


def _snippet(snippets: list[str]) -> Mutator:
    def go(rng: random.Random, text: str) -> str:
        at = rng.randint(0, len(text))
        return text[:at] + rng.choice(snippets) + text[at:]

    return go


def _swap_token(rng: random.Random, text: str) -> str:
    """Replace one word-like token with another token from the same file (ids, keys, grades)."""
    tokens = list(re.finditer(r"[\w./-]+", text))
    if len(tokens) < 2:
        return text
    a, b = rng.sample(tokens, 2)
    return text[: a.start()] + b.group(0) + text[a.end() :]


def _duplicate_block(rng: random.Random, text: str) -> str:
    """Copy a run of lines elsewhere: duplicate queries, keys, judgments."""
    lines = [x for x in _lines(text) if x]
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.randint(1, 5))
    at = rng.randrange(len(lines) + 1)
    return "".join(lines[:at] + lines[i:j] + lines[at:])


def _line_breaks(rng: random.Random, text: str) -> str:
    sep = rng.choice(["\r\n", "\r", "\n\n", "\u2028"])
    if rng.random() < 0.5:
        return text.replace("\n", sep)
    at = rng.randint(0, len(text))
    return text[:at] + text[at:].replace("\n", sep, rng.randint(1, 3))


def _truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randint(0, len(text))]


def _grades(rng: random.Random, text: str) -> str:
    return re.sub(
        r": (\d)\b",
        lambda m: ": " + rng.choice([m.group(1), f'"{m.group(1)}"', "2.5", "-1", "x", "", "~"]),
        text,
        count=rng.randint(1, 3),
    )


def _non_ascii(rng: random.Random, text: str) -> str:
    at = rng.randint(0, len(text))
    return (
        text[:at]
        + rng.choice(["😀", "日本語", "é", "\U0001f468\u200d\U0001f469", "ｑ"])
        + text[at:]
    )


YAML_MUTATORS: list[Mutator] = [
    _char,
    _line,
    _snippet(YAML_SNIPPETS),
    _swap_token,
    _duplicate_block,
    _line_breaks,
    _truncate,
    _grades,
    _non_ascii,
    _long_name,
    _long_yaml_field,
]
TREC_MUTATORS: list[Mutator] = [
    _char,
    _line,
    _snippet(TREC_SNIPPETS),
    _swap_token,
    _duplicate_block,
    _line_breaks,
    _truncate,
    _non_ascii,
    _long_name,
]
TOML_SNIPPETS = [
    "k = 0\n",
    "k = 'x'\n",
    "ignore = 3\n",
    'metrics = ["bogus@x"]\n',
    "[[qrels]]\n",
    'path = "/dev/zero"\n',
    "[tool.qrels-lsp]\n",
    "= = =\n",
    '"""\n',
    "\x00",
    "colour = 1\n",
    "relevance_level = true\n",
    "allow_outside = true\n",
    'golden = ["/**/*.yaml"]\n',
    'runs = ["/**/**/*", "../outside/*"]\n',
    'corpus = "../outside"\n',
    'path = "\\u0000"\n',
]


def _long_setting(rng: random.Random, text: str) -> str:
    """A key of the configuration (or an unknown one) holding long hostile text, in each shape a
    setting takes: a string, a list, a table."""
    from qrels_lsp.core.project.config import SETTINGS

    value = json_quoted(hostile_text(rng)[: 1 << 19])
    key = rng.choice([*SETTINGS, json_quoted(hostile_text(rng)[:2000])])
    shape = rng.choice([value, f"[{value}]", f"{{path = {value}, runs = [{value}]}}"])
    return text + f"\n{key} = {shape}\n"


TOML_MUTATORS: list[Mutator] = [
    _char,
    _line,
    _snippet(TOML_SNIPPETS),
    _swap_token,
    _truncate,
    _long_name,
    _long_setting,
]


def mutate(rng: random.Random, text: str, mutators: list[Mutator], rounds: int = 0) -> str:
    """Apply 1-6 random mutations (or ``rounds``); rarely none, so valid files are tried too."""
    if rng.random() < 0.05:
        return text
    for _ in range(rounds or rng.randint(1, 6)):
        text = rng.choice(mutators)(rng, text)
    return text
