"""What a completion item writes where the property test over stdio (tests/lsp/
test_completion_keeps_yaml.py) does not go: a key whose `:` is already on the line, a blank line
under a tag list or a flow collection, the user's own quotes; each result read back by YAML."""

from __future__ import annotations

import pytest
import yaml
from conftest import EXAMPLES
from qrels_lsp.core.formats.corpus import load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.ide.completion import Request, complete

HEAD = "corpus: corpus/\nqueries:\n  q1:\n    question: wipe everything and start over\n"


def applied(text: str, label: str = "kb/factory-reset.md") -> tuple[str, str | None] | None:
    """The text with the item ``label`` applied at `|`, and its snippet; None: no item there."""
    at = text.index("|")
    text = text.replace("|", "", 1)
    corpus = load_corpus(EXAMPLES / "corpus")
    got = complete(Request("golden", text, at, parse_golden(text), corpus=corpus))
    if got is None or not got.items:
        return None
    item = next(i for i in got.items if i.label == label)
    return text[: item.edit.span.start] + item.edit.new_text + text[
        item.edit.span.end :
    ], item.snippet


@pytest.mark.parametrize(
    ("text", "relevant"),
    [
        # the key's `:` is on the line already: the id alone replaces the key
        (HEAD + "    relevant:\n      |kb/x.md: 3\n", {"kb/factory-reset.md": 3}),
        (HEAD + "    relevant: {|kb/x.md: 3}\n", {"kb/factory-reset.md": 3}),
        (HEAD + '    relevant:\n      "|kb/x.md": 2\n', {"kb/factory-reset.md": 2}),
        # a quoted key without its `:`: the grade goes after the user's closing quote
        (HEAD + '    relevant:\n      "kb/f|"\n', {"kb/factory-reset.md": 1}),
        (HEAD + "    relevant:\n      'kb/f|\n", {"kb/factory-reset.md": 1}),
        # an empty `relevant:` then a blank line: a mapping entry with its grade
        (HEAD + "    relevant:\n      |\n", {"kb/factory-reset.md": 1}),
    ],
)
def test_ids_in_a_mapping_keep_their_grade(text: str, relevant: dict[str, int]) -> None:
    done = applied(text)
    assert done is not None
    assert yaml.safe_load(done[0])["queries"]["q1"]["relevant"] == relevant


def test_the_grade_is_a_snippet_placeholder_with_the_id_escaped() -> None:
    done = applied(HEAD + "    relevant:\n      kb/fa|\n")
    assert done is not None and done[1] == "kb/factory-reset.md: ${1:1}"
    from qrels_lsp.ide.completion import _snippet_literal

    assert _snippet_literal('"a$1}\\\\b"') == '"a\\$1\\}\\\\\\\\b"'


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "    relevant: [kb/local-admin-page.md]\n      |\n",  # below a flow list
        HEAD + "    relevant:\n      - kb/local-admin-page.md\n      |\n",  # needs its dash
        HEAD + "    tags: [a]\n      |\n",
    ],
)
def test_no_item_where_any_would_break_the_file(text: str) -> None:
    assert applied(text) is None


def test_a_tag_on_a_blank_line_under_tags_is_a_list_item() -> None:
    done = applied(HEAD + "    tags:\n      |\n    relevant: [kb/factory-reset.md]\n", "critical")
    assert done is not None
    assert yaml.safe_load(done[0])["queries"]["q1"]["tags"] == ["critical"]


def test_a_key_whose_colon_is_typed_is_not_given_another() -> None:
    done = applied("queries:\n  q1:\n    quest|: x\n    relevant: [a]\n", "question")
    assert done is not None
    assert yaml.safe_load(done[0])["queries"]["q1"] == {"question": "x", "relevant": ["a"]}
