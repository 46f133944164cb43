"""The public TREC files of tests/data, parsed once per test process."""

from __future__ import annotations

from functools import cache

from conftest import TEST_DATA
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.model import Qrels, Run


@cache
def qrels_of(name: str) -> Qrels:
    return parse_trec_qrels((TEST_DATA / name).read_text(encoding="utf-8"))


@cache
def run_of(name: str) -> Run:
    return parse_trec_run((TEST_DATA / name).read_text(encoding="utf-8"))
