"""Every regular expression qrels-lsp runs on text it did not write, in one place.

File contents, ids, names, settings and the editor's messages may be hostile, and Python's
``re`` backtracks while it holds the interpreter lock: one pattern that retries a quantifier from
every position of a long run freezes the server, not just a request (``"a" + 60,000 spaces +
"x"`` as a metric name took minutes). So no other module of the package imports ``re``
(``tests/test_patterns.py`` fails if one does), and each pattern here is linear in the way it is
called (:data:`AT`: matched at a position the caller chose; :data:`SCAN`: searched through the
text, as ``search``, ``finditer``, ``sub`` and ``split`` do):

- it is regular: RE2 compiles it (no lookaround, no backreference), and the test proves it;
- Python's engine runs it without nested quantifiers or adjacent quantifiers that can match the
  same characters where a later failure would retry them, anchored where it is matched at a
  position; the test feeds each a megabyte of the characters its own classes accept (runs,
  alternations, a near-miss at the end) in the way it is called, under a guard of seconds.

A pattern is compiled when a module first imports it (PEP 562 ``__getattr__``), not when this
module is: the server answers ``initialize`` before most of them are needed. Patterns for
Python's engine are compiled here; the two a user's text is matched against whole (a metric
name, its parameters) run on RE2, whose Python binding copies the text at each call and so
suits short strings only. Patterns the workspace writes itself (chunk rules, globs) are RE2
programs compiled where they are read (``core/chunks.py``, ``core/base/globs.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

Pattern = re.Pattern
Match = re.Match

AT: Final = "at"
SCAN: Final = "scan"

# Python's \s and \d on str, spelled out for RE2 (whose \s and \d are ASCII only).
_SPACE = r"[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]"
_DIGIT = r"\p{Nd}"


class Spec(NamedTuple):
    source: str | bytes
    call: Literal["at", "scan"]
    why: str
    engine: Literal["re", "re2"] = "re"
    cut_after: str | None = None  # callers scan only up to the last of this character


# JSON's grammar, as Python's json module reads it: a string "unrolled" (plain characters, then
# an escape and more plain ones), so no character matches two ways.
_JSON_STR = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_JSON_NUM = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|-?Infinity"
_JSON_WS = r"[ \t\n\r]*"
# Run YAML's line forms (run_yaml_lines.py): ids, numbers, and a top-level plain value.
_YAML_ID = r"[A-Za-z0-9_][A-Za-z0-9_./-]*"
_YAML_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_YAML_VALUE = (
    r"[A-Za-z0-9_./\u00a0-\U0010ffff](?:[^\x00-\x1f\x7f#:,\[\]{}'\"]*[^\x00-\x20\x7f#:,\[\]{}'\"])?"
)
# strtod's forms, hex first (else 0x1p1 would be read as its leading 0); [0-9]+(?:\.[0-9]*)?, not
# [0-9]+\.?[0-9]*, which splits a run of digits between two quantifiers in every way.
_HEX = r"0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
_DEC = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_CJK = (
    "\u3041-\u3096\u309d-\u309f"  # hiragana
    "\u30a1-\u30fa\u30fc-\u30ff"  # katakana (not U+30FB, the middle dot)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs, extension A, compatibility
    "\U00020000-\U0003134f"  # extensions B-G
)

SPECS: dict[str, Spec] = {
    # -- text, escaping, edits (core/base) -------------------------------------------------
    "SNIPPET_SPECIAL": Spec(r"[$}\\]", SCAN, "what a snippet's text escapes: one class"),
    "LINE_BREAK": Spec(r"\r\n?|\n", SCAN, "line breaks as LSP counts them: CRLF, a lone CR, LF"),
    "MD_SPECIAL": Spec(r"([\\`*_\[\]|~])", SCAN, "Markdown's inline markup, one character each"),
    "MD_BLOCK_START": Spec(
        r"^(\s*)([#+\-=]|\d+[.)])", SCAN, "markup at the text's start; blanks then digits: disjoint"
    ),
    "MD_AUTOLINK": Spec(r"(?i)://|www\.", SCAN, "where GFM's extended autolinks start: literals"),
    "BACKTICKS": Spec(r"`+", SCAN, "runs of backticks: a code span's fence must be longer"),
    "SURROGATE": Spec("[\ud800-\udfff]", SCAN, "lone surrogates (undecodable bytes): one class"),
    "YAML_ITEM_PREFIX": Spec(r"[ \t]*(?:-[ \t]+)?", AT, "blanks and a list dash before an item"),
    "LINE_TRAILER": Spec(r"[ \t]*(?:#.*)?", AT, "what may follow a value on its line"),
    "FLOW_SEPARATOR": Spec(r"[ \t]*,[ \t]*", AT, "a comma between flow items"),
    "AFTER_KEY": Spec(r"[ \t]*:[ \t]*", AT, "a key's colon and its blanks"),
    "NULL_VALUE": Spec(r"(?:~|null|Null|NULL)[ \t]*", AT, "YAML's null words"),
    "DASH": Spec(r"-[ \t]+", AT, "a list item's dash"),
    # -- checks ---------------------------------------------------------------------------
    "NOT_WORDS": Spec(r"[\W_]+", SCAN, "what a question's comparison ignores: one class"),
    "SUPPRESS_MARK": Spec(
        r"#\s*qrels-lsp:\s*ignore(?:\[([A-Za-z0-9_,\s]*)\])?",
        SCAN,
        "a suppression comment: each blank run ends at a literal",
    ),
    # -- recognising a file by its content (core/formats/content.py) ----------------------
    "MARKUP_START": Spec(r"\ufeff?\s*<", AT, "a file that starts as markup"),
    "TOP_TAG": Spec(r"(?i)<top>", SCAN, "a TREC topic"),
    "DOC_TAG": Spec(r"(?i)<doc>", SCAN, "a TREC document"),
    # -- TREC lines (core/formats/trec_lines.py and its readers) --------------------------
    "TREC_FIELD": Spec(r"[^ \t\v\f\r\n]+", SCAN, "a field as trec_eval splits a line (C isspace)"),
    "TREC_FIRST_FIELD": Spec(r"[ \t]*([^ \t\r\n]+)", AT, "a line's first field"),
    "EXOTIC_WS": Spec(
        "[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]",
        SCAN,
        "blanks to str.split() that trec_eval keeps: one class",
    ),
    "ATOL": Spec(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)", AT, "C's strtol, ASCII digits only"),
    "ATOF": Spec(
        rf"(?i)[ \t\n\v\f\r]*([+-]?)(?:({_HEX})|({_DEC})|(inf(?:inity)?)|(nan(?:\([0-9a-zA-Z_]*\))?))",
        AT,
        "C's strtod: each number form starts with its own characters",
    ),
    "BLANK_RUN": Spec(r"\s+", SCAN, "blanks in a run's name, written as _"),
    "FLOAT_12": Spec(
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        AT,
        "a YAML 1.2 float that YAML 1.1 reads as a string",
    ),
    # -- TREC's SGML-like files (corpus.py, topics.py) -----------------------------------
    "TOPIC_BLOCK": Spec(r"(?i)<(/?)top>", SCAN, "<top> and </top>, paired by the reader"),
    "TOPIC_NUM": Spec(
        r"(?i)<num>\s*(?:Number\s*:\s*)?([^\s<]*)", SCAN, "a topic's number; blanks end at text"
    ),
    "TOPIC_TITLE": Spec(
        r"(?i)<title>\s*(?:Topic\s*:)?\s*", SCAN, "a title's head; its end is the next tag"
    ),
    "TOPIC_DESC": Spec(
        r"(?i)<desc>\s*(?:Description\s*:)?\s*", SCAN, "a description's head; its end is a tag"
    ),
    "SECTION_END": Spec(r"(?i)<[a-z/]", SCAN, "the tag that ends a topic's section"),
    "JSON_BARE_VALUE": Spec(r"[^,}\s]*", AT, "an unquoted JSON value on a queries line"),
    "QUERY_KEY": Spec(
        r'"(_id|id|query_id|qid|text|query|title)"\s*:\s*', SCAN, "a queries line's known keys"
    ),
    "DOC_BLOCK": Spec(r"(?i)<(/?)DOC>", SCAN, "<DOC> and </DOC>, paired by the reader"),
    "DOCNO_OPEN": Spec(r"(?i)<DOCNO>", SCAN, "a document's id tag"),
    "DOCNO_CLOSE": Spec(r"(?i)</DOCNO>", SCAN, "its end"),
    "TITLE_OPEN": Spec(r"(?i)<(TITLE|HEADLINE|HEAD)>", SCAN, "a document's title tag"),
    "TITLE_CLOSE": Spec(r"(?i)</(TITLE|HEADLINE|HEAD)>", SCAN, "its end, paired by the reader"),
    "HTML_TAG": Spec(
        r"</?[A-Za-z][^>]*>",
        SCAN,
        "a tag to strip; the text is cut after its last > first, so each match ends",
        cut_after=">",
    ),
    # -- run YAML by lines (core/formats/run_yaml_lines.py), each matched whole ----------
    "RUN_TOP": Spec(rf"(qrels|name|description): ({_YAML_VALUE}) *", AT, "a top-level line"),
    "RUN_RESULTS": Spec(r"results: *", AT, "the results line"),
    "RUN_BLANK": Spec(r" *(?:#.*)?", AT, "a blank or comment line"),
    "RUN_FLOW": Spec(
        rf"( +)({_YAML_ID}): \[((?:{_YAML_ID}, )*{_YAML_ID})?\] *", AT, "a query's flow list"
    ),
    "RUN_OPEN": Spec(rf"( +)({_YAML_ID}): *", AT, "a query's block opening"),
    "RUN_ITEM": Spec(rf"( +)- ({_YAML_ID}) *", AT, "a document of a list"),
    "RUN_SCORED": Spec(rf"( +)({_YAML_ID}): ({_YAML_NUMBER}) *", AT, "a document and its score"),
    "RUN_UNSAFE": Spec(
        "[^\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]",
        SCAN,
        "what no accepted line holds (tabs, CR, control characters): one class",
    ),
    "CONTROL": Spec("[\x01-\x08\x0b-\x1f]", SCAN, "control characters: one class"),
    # -- YAML around the cursor (core/formats/yaml/context.py) ---------------------------
    "PLAIN_STOP": Spec(r"[,\[\]{}]|:(?:[\s,\[\]{}]|$)|[ \t]#", SCAN, "where a flow scalar ends"),
    "KEY_COLON": Spec(r":(?:[ \t]|$)", SCAN, "a key's colon"),
    "QUOTED_KEY_COLON": Spec(r"[ \t]*:(?:[ \t]|$)", AT, "the colon after a quoted key"),
    "BLANK_HASH": Spec(r"[ \t]#", SCAN, "a comment after a value"),
    "COMMENT_HASH": Spec(r"(?:^|[ \t])#", SCAN, "a comment on a line"),
    "BLOCK_SCALAR": Spec(r"[|>][-+0-9]*[ \t]*(?:#.*)?$", AT, "a block scalar's header"),
    "FLOW_TOKEN_STOP": Spec(r"[\s,\[\]{}\"']|:(?:[\s,\[\]{}]|$)", SCAN, "a flow token's end"),
    "BLOCK_TOKEN_STOP": Spec(r"[\s\"']|:(?:\s|$)", SCAN, "a block token's end"),
    # -- JSON runs and qrels (core/formats/json_nested.py), matched at the reader's place --
    "JSON_WS": Spec(_JSON_WS, AT, "JSON's blanks"),
    "JSON_MEMBER": Spec(
        rf"{_JSON_WS}({_JSON_STR}){_JSON_WS}:{_JSON_WS}({_JSON_NUM}){_JSON_WS}([,}}])",
        AT,
        'a member "id": number, and what follows it',
    ),
    "JSON_KEY": Spec(rf"({_JSON_STR}){_JSON_WS}:{_JSON_WS}", AT, "a key and its colon"),
    "JSON_NUMBER": Spec(_JSON_NUM, AT, "a number"),
    "JSON_STRING": Spec(_JSON_STR, AT, "a string"),
    "JSON_TOKEN": Spec(
        rf"{_JSON_WS}(?:{_JSON_STR}|{_JSON_NUM}|true|false|null|([{{\[])|([}}\]])|[:,])",
        AT,
        "any token, to skip a value",
    ),
    "JSON_NESTED_START": Spec(
        rf"\ufeff?{_JSON_WS}\{{{_JSON_WS}{_JSON_STR}{_JSON_WS}:{_JSON_WS}\{{",
        AT,
        'a file that starts {"q": {',
    ),
    "TABLE_FRACTION": Spec(
        r"\d\.\d*[1-9]|\d[eE][-+]?\d",
        SCAN,
        "a score's fraction or exponent in a table's first lines (a run, not qrels): each digit run "
        "after a dot is read once",
    ),
    "JSON_FRACTION": Spec(
        r":[ \t\n\r]*(?:-?[0-9]+(?:\.[0-9]|[eE])|NaN|-?Infinity)", SCAN, "a score, not a grade"
    ),
    # -- configuration (core/project/config.py) --------------------------------------------
    "TOOL_TABLE": Spec(
        r'(?m)^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*"?qrels-lsp"?[ \t]*\]', SCAN, "[tool.qrels-lsp]"
    ),
    "SETTING_LINE": Spec(
        r'(?m)^[ \t]*(?:"([^"\r\n]*)"|([A-Za-z0-9_-]+))[ \t]*=',
        SCAN,
        "a TOML key's line, to place a finding: blanks, then a key that ends at = or a quote",
    ),
    "TOML_ERROR_PLACE": Spec(r"line (\d+), column (\d+)", SCAN, "where tomllib says it failed"),
    # -- search (core/search/tokens.py) ---------------------------------------------------
    "WORD_TOKEN": Spec(
        rf"[{_CJK}]|[^\W{_CJK}]+(?:\.[^\W{_CJK}]+)*",
        SCAN,
        "a CJK character, or word characters joined by dots (split again between non-digits)",
    ),
    "COMBINING_MARKS": Spec("[\u0300-\u036f]+", SCAN, "accents left by NFKD: one class"),
    "SENTENCE_END": Spec(r"([.!?。！？])\s+", SCAN, "a sentence's end: a mark, then blanks"),
    # -- the editor layer (ide/) ---------------------------------------------------------
    "COMMENT_RUN": Spec(
        r"(?m)(?:^[ \t]*#[^\r\n]*(?:\r\n|\r|\n)){2,}", SCAN, "comment lines to fold; one per line"
    ),
    "FIRST_WORD": Spec(r"[ \t]*([^\s]+)", AT, "a line's first field"),
    "NON_BLANK": Spec(r"\S+", SCAN, "a field of a line"),
    "TOKEN_FIELD": Spec(r"[^ \t\r\n]+", SCAN, "a field to colour"),
    # -- the language server (lsp/) ------------------------------------------------------
    "CONTENT_LENGTH": Spec(
        rb"(?i)Content-Length:[ \t]*(\d{1,12})[ \t]*\r\n", SCAN, "a message's header"
    ),
    "PIECE_MARK": Spec(rb'"line":1(\d{12})', SCAN, "a place marked in an encoded response"),
    # -- metric names (core/metrics/metric.py), on RE2 -----------------------------------
    # -- the formatter (core/formats/yaml_format.py, relevant_style.py) ----------------------
    "BLANKS_COLON": Spec(r"[ \t]*:", AT, "a key's colon after blanks: one class, then a literal"),
    "LINE_SEPARATORS": Spec("[\x85\u2028\u2029]", SCAN, "line ends YAML does not break at"),
    "DIGIT_RUNS": Spec(r"([0-9]+)", SCAN, "runs of digits, split out for a natural sort"),
    "METRIC_NAME": Spec(
        rf"^{_SPACE}*(?P<name>[A-Za-z][A-Za-z_]*?){_SPACE}*(?:\((?P<params>[^()]*)\))?"
        rf"(?:{_SPACE}*[@_.]{_SPACE}*(?P<cut>{_DIGIT}+|k|{_DIGIT}*\.{_DIGIT}+"
        rf"|p{_SPACE}*={_SPACE}*{_DIGIT}*\.?{_DIGIT}+))?{_SPACE}*$",
        AT,
        "a metric: name, parameters, cutoff; Python's \\s and \\d spelled out",
        engine="re2",
    ),
    "METRIC_PARAM": Spec(
        rf"^{_SPACE}*([A-Za-z_]+){_SPACE}*={_SPACE}*([-+]?{_DIGIT}*\.?{_DIGIT}+){_SPACE}*$",
        AT,
        "one of a metric's parameters (rel=2, p=0.8)",
        engine="re2",
    ),
}


def __getattr__(name: str) -> Any:
    spec = SPECS.get(name)
    if spec is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    compiled = compile_spec(spec)
    globals()[name] = compiled
    return compiled


def compile_spec(spec: Spec) -> Any:
    """The pattern, compiled for its engine."""
    if spec.engine == "re":
        return re.compile(spec.source)
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(spec.source, options)


if TYPE_CHECKING:
    SNIPPET_SPECIAL: re.Pattern[str]
    LINE_BREAK: re.Pattern[str]
    MD_SPECIAL: re.Pattern[str]
    MD_BLOCK_START: re.Pattern[str]
    MD_AUTOLINK: re.Pattern[str]
    BACKTICKS: re.Pattern[str]
    SURROGATE: re.Pattern[str]
    YAML_ITEM_PREFIX: re.Pattern[str]
    LINE_TRAILER: re.Pattern[str]
    FLOW_SEPARATOR: re.Pattern[str]
    AFTER_KEY: re.Pattern[str]
    NULL_VALUE: re.Pattern[str]
    DASH: re.Pattern[str]
    NOT_WORDS: re.Pattern[str]
    SUPPRESS_MARK: re.Pattern[str]
    MARKUP_START: re.Pattern[str]
    TOP_TAG: re.Pattern[str]
    DOC_TAG: re.Pattern[str]
    TREC_FIELD: re.Pattern[str]
    TREC_FIRST_FIELD: re.Pattern[str]
    EXOTIC_WS: re.Pattern[str]
    ATOL: re.Pattern[str]
    ATOF: re.Pattern[str]
    BLANK_RUN: re.Pattern[str]
    FLOAT_12: re.Pattern[str]
    TOPIC_BLOCK: re.Pattern[str]
    TOPIC_NUM: re.Pattern[str]
    TOPIC_TITLE: re.Pattern[str]
    TOPIC_DESC: re.Pattern[str]
    SECTION_END: re.Pattern[str]
    JSON_BARE_VALUE: re.Pattern[str]
    QUERY_KEY: re.Pattern[str]
    DOC_BLOCK: re.Pattern[str]
    DOCNO_OPEN: re.Pattern[str]
    DOCNO_CLOSE: re.Pattern[str]
    TITLE_OPEN: re.Pattern[str]
    TITLE_CLOSE: re.Pattern[str]
    HTML_TAG: re.Pattern[str]
    RUN_TOP: re.Pattern[str]
    RUN_RESULTS: re.Pattern[str]
    RUN_BLANK: re.Pattern[str]
    RUN_FLOW: re.Pattern[str]
    RUN_OPEN: re.Pattern[str]
    RUN_ITEM: re.Pattern[str]
    RUN_SCORED: re.Pattern[str]
    RUN_UNSAFE: re.Pattern[str]
    CONTROL: re.Pattern[str]
    PLAIN_STOP: re.Pattern[str]
    KEY_COLON: re.Pattern[str]
    QUOTED_KEY_COLON: re.Pattern[str]
    BLANK_HASH: re.Pattern[str]
    COMMENT_HASH: re.Pattern[str]
    BLOCK_SCALAR: re.Pattern[str]
    FLOW_TOKEN_STOP: re.Pattern[str]
    BLOCK_TOKEN_STOP: re.Pattern[str]
    JSON_WS: re.Pattern[str]
    JSON_MEMBER: re.Pattern[str]
    JSON_KEY: re.Pattern[str]
    JSON_NUMBER: re.Pattern[str]
    JSON_STRING: re.Pattern[str]
    JSON_TOKEN: re.Pattern[str]
    JSON_NESTED_START: re.Pattern[str]
    TABLE_FRACTION: re.Pattern[str]
    JSON_FRACTION: re.Pattern[str]
    TOOL_TABLE: re.Pattern[str]
    SETTING_LINE: re.Pattern[str]
    TOML_ERROR_PLACE: re.Pattern[str]
    WORD_TOKEN: re.Pattern[str]
    COMBINING_MARKS: re.Pattern[str]
    SENTENCE_END: re.Pattern[str]
    COMMENT_RUN: re.Pattern[str]
    FIRST_WORD: re.Pattern[str]
    NON_BLANK: re.Pattern[str]
    TOKEN_FIELD: re.Pattern[str]
    CONTENT_LENGTH: re.Pattern[bytes]
    PIECE_MARK: re.Pattern[bytes]
    BLANKS_COLON: re.Pattern[str]
    LINE_SEPARATORS: re.Pattern[str]
    DIGIT_RUNS: re.Pattern[str]
    METRIC_NAME: Any  # RE2
    METRIC_PARAM: Any  # RE2
