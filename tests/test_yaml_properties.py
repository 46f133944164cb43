"""The YAML parsers and checks never raise, and every span they return lies inside the text:
on arbitrary text, on mutations of a realistic golden set, on every truncation of it, and on
hostile input (alias bombs, Python tags, deep nesting)."""

from __future__ import annotations

import time
from pathlib import Path

from conftest import examples
from fixtures import apply_edits, assert_spans_in, codes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.checks import check_golden, check_run
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.formats.yaml.tree import YMap, YNode, YScalar, YSeq, parse_yaml
from qrels_lsp.core.model import Qrels, Run

GOLDEN = """\
# Support golden set 😀 — 日本語 comment
corpus: corpus/
k: 5   # passages handed to the model
runs: [runs/*.run.yaml, runs/dense.trec]
queries:
  login-after-reset:
    question: I can't log in after resetting my password
    relevant: [kb/auth-failures.md, kb/password-reset.md]
  e1042:
    question: "What does error E1042 mean?"
    relevant: {kb/error-codes.md: 2, kb/firmware.md: 1}
  mars:
    question: Do you ship to Mars?
    unanswerable: true
  文書:
    question: |
      日本語の質問ですか？
    relevant:
      - 文書/説明.md
      - 'kb/with #hash.md'
      - kb/a.md
  graded:
    question: >
      folded text
      over lines
    relevant:
      kb/x.md: 3
      kb/y.md: '2'
      kb/x.md: 1
    notes: planted mistakes
"""

RUN = """\
qrels: support.qrels.yaml
name: bm25 😀
results:
  login-after-reset: [kb/password-reset.md, kb/auth-failures.md, kb/x.md]
  e1042: {kb/error-codes.md: 12.5, kb/firmware.md: 12.5, kb/z.md: 1e3}
  文書:
    - 文書/説明.md
    - 文書/説明.md
"""

ALPHABET = st.sampled_from(
    [
        *" \t\r\n\x00:-?[]{},#&*!|>'\"%@`~.0123456789abcyz",
        "😀",
        "日",
        "本",
        "語",
        "\u2028",
        "\x85",
        "\ufeff",
        "é",
        "\u0301",
        "\ud7ff",
        "\U0010ffff",
    ]
)
TEXT = st.text(alphabet=ALPHABET, max_size=200) | st.text(max_size=200)

SETTINGS = settings(
    max_examples=examples(250),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _nodes(node: YNode | None) -> list[YNode]:
    out: list[YNode] = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, YMap):
            for k, v in n.items:
                stack.extend((k, v))
        elif isinstance(n, YSeq):
            stack.extend(n.items)
    return out


def _inside(text: str, span: Span | None) -> None:
    if span is not None:
        assert 0 <= span.start <= span.end <= len(text), (span, len(text))


def check_qrels(text: str, qrels: Qrels) -> None:
    assert_spans_in(text, qrels.findings)
    for q in qrels.queries.values():
        for span in (q.span, q.block, q.question_span, q.unanswerable_span):
            _inside(text, span)
        for j in q.judgments:
            _inside(text, j.span)
            _inside(text, j.grade_span)
    _inside(text, qrels.k_span)
    for ref in [*qrels.runs, *([qrels.corpus] if qrels.corpus else [])]:
        _inside(text, ref.span)
    extra = check_golden(qrels, text, None)
    assert_spans_in(text, extra)
    for f in extra:  # every fix applies cleanly, and what it makes parses without raising
        for fix in f.fixes:
            parse_golden(apply_edits(text, fix.edits))


def check_run_model(text: str, run: Run) -> None:
    assert_spans_in(text, run.findings)
    for r in run.rankings.values():
        _inside(text, r.span)
        _inside(text, r.block)
        for d in r.docs:
            _inside(text, d.span)
    _inside(text, run.name_span)
    _inside(text, run.results_span)
    assert_spans_in(text, check_run(run, parse_golden(GOLDEN), None, k=5))
    assert_spans_in(text, check_run(run, None, None, k=5))


def check_all(text: str) -> None:
    doc = parse_yaml(text)
    assert_spans_in(text, doc.findings)
    for node in _nodes(doc.root):
        _inside(text, node.span)
        if isinstance(node, YScalar):
            _inside(text, node.quoted_span)
    check_qrels(text, parse_golden(text))
    check_run_model(text, parse_run_yaml(text))


def test_the_realistic_inputs_parse_as_intended() -> None:
    qrels = parse_golden(GOLDEN)
    assert list(qrels.queries) == ["login-after-reset", "e1042", "mars", "文書", "graded"]
    assert codes(qrels.findings) == ["QR103"]
    assert qrels.queries["文書"].grades() == {
        "文書/説明.md": 1,
        "kb/with #hash.md": 1,
        "kb/a.md": 1,
    }
    run = parse_run_yaml(RUN)
    assert codes(run.findings) == ["QR203"]
    assert run.rankings["e1042"].doc_ids() == ["kb/z.md", "kb/firmware.md", "kb/error-codes.md"]
    check_all(GOLDEN)
    check_all(RUN)


@SETTINGS
@given(TEXT)
def test_arbitrary_text_never_raises_and_spans_stay_inside(text: str) -> None:
    check_all(text)


@SETTINGS
@given(st.sampled_from([GOLDEN, RUN]), st.data())
def test_mutated_valid_files_never_raise(base: str, data: st.DataObject) -> None:
    text = base
    for _ in range(data.draw(st.integers(1, 6))):
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        at = data.draw(st.integers(0, len(text)))
        chunk = data.draw(st.text(alphabet=ALPHABET, min_size=1, max_size=4))
        if op == "insert":
            text = text[:at] + chunk + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + len(chunk) :]
        else:
            text = text[:at] + chunk + text[at + len(chunk) :]
    check_all(text)


@SETTINGS
@given(st.sampled_from([GOLDEN, RUN]), st.sampled_from(["\r\n", "\r", "\t", "\n\n"]))
def test_line_ending_and_tab_rewrites_never_raise(base: str, sep: str) -> None:
    check_all(base.replace("\n", sep))
    check_all(base.replace("  ", sep))


def test_every_truncation_never_raises() -> None:
    for text in (GOLDEN, RUN):
        for end in range(len(text) + 1):
            check_all(text[:end])
    crlf = GOLDEN.replace("\n", "\r\n")
    for end in range(0, len(crlf) + 1, 3):  # between \r and \n too
        check_all(crlf[:end])


# -- hostile input ------------------------------------------------------------------------------


def test_alias_bomb_is_not_expanded() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append("queries:\n  q:\n    question: *l\n    relevant: *l")
    text = "\n".join(lines) + "\n"
    started = time.monotonic()
    qrels = parse_golden(text)
    check_golden(qrels, text, None)
    assert time.monotonic() - started < 2.0  # 9^11 nodes if expanded
    found = codes(qrels.findings)
    assert found.count("QR002") == 12 + 11 * 9 + 2  # every anchor and every alias
    assert_spans_in(text, qrels.findings)
    run = parse_run_yaml(text.replace("queries:", "results:"))
    assert "QR002" in codes(run.findings)


def test_python_tags_are_reported_and_never_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        f"corpus: !!python/object/apply:os.system ['touch {marker}']\n"
        "queries:\n"
        f"  q: !!python/object/apply:os.system ['touch {marker}']\n"
        f"  r:\n    question: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n"
        f"    relevant: [!!python/name:os.system x]\n"
    )
    qrels = parse_golden(text)
    run = parse_run_yaml(text.replace("queries:", "results:"))
    assert not marker.exists()
    assert codes(qrels.findings).count("QR002") == 4
    assert codes(run.findings).count("QR002") == 4
    first = min((f for f in qrels.findings if f.code == "QR002"), key=lambda f: f.span)
    assert text[first.span.start :].startswith("!!python/object/apply:os.system")
    assert "python/object/apply:os.system" in first.message


def test_deep_nesting_does_not_crash() -> None:
    depth = 10_000
    for text in (
        "[" * depth + "]" * depth,
        "{a: " * depth + "x" + "}" * depth,
        "queries:\n  q:\n    relevant: " + "[" * depth + "a" + "]" * depth + "\n",
        "results:\n  q: " + "[" * depth + "\n",  # unclosed as well
        "".join(" " * i + "- \n" for i in range(0, 2000)),
    ):
        started = time.monotonic()
        check_all(text)
        assert time.monotonic() - started < 10
    # libyaml stops at a nesting depth of 1000 with a located syntax error.
    found = parse_golden("[" * depth + "]" * depth).findings
    assert codes(found) == ["QR001"]
    assert "nesting" in found[0].message


def test_nul_and_control_characters_are_syntax_findings() -> None:
    for text in ("queries:\n  q\x00: x\n", "\x00", "queries:\n  q:\n    question: a\x07b\n"):
        qrels = parse_golden(text)
        assert "QR001" in codes(qrels.findings)
        assert_spans_in(text, qrels.findings)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_yaml_float_reads_back_as_the_same_double(x: float) -> None:
    """A converted run's scores: PyYAML (YAML 1.1) and the run parser read back the very double."""
    import yaml
    from qrels_lsp.core.formats.run_yaml import parse_run_yaml
    from qrels_lsp.core.formats.yaml.scalar import yaml_float

    written = yaml_float(x)
    assert yaml.safe_load(written) == x
    run = parse_run_yaml(f"results:\n  q: {{d: {written}}}\n")
    assert run.rankings["q"].docs[0].score == x
