"""The keys of the YAML formats, in their canonical order.

One place for both what a key means and where it goes: the parsers read a file's keys against
these tables, completion offers them with their line of documentation, the formatter
(``yaml_format.py``) writes them in this order (unknown keys after, in their own order), and the
README lists them so. The JSON Schemas under ``grammars/`` list theirs in the same order
(``tests/test_schemas.py``).
"""

from __future__ import annotations

GOLDEN_KEYS: dict[str, str] = {
    "description": "Free text about this golden set.",
    "corpus": "The corpus the ids point at, relative to this file: a folder, .jsonl, .tsv or TREC file.",
    "k": "The number of passages handed to the model: the default cutoff for recall@k and friends.",
    "relevance_level": "Grades at or above this count as relevant (trec_eval -l). Default 1.",
    "judgments": "How complete the judgments are: `exhaustive` (every document not listed is not relevant, the usual RAG golden set: coverage does not gate) or `pooled` (TREC style: a document not judged is unknown). Default: exhaustive when no grade is 0.",
    "runs": "Runs to score against this golden set: paths or globs relative to this file.",
    "compare_to": "The run the others are compared with, by name (`bm25` for the BM25 baseline).",
    "preset": "A known benchmark whose conventions apply (relevance level, self-hits dropped, k): arguana, quora, msmarco, trec-dl-2019, trec-dl-2020, or none.",
    "chunks": 'How its runs\' chunk ids map to its documents: `{separator: "#"}` or `{pattern: ...}` with a group `doc`.',
    "fusions": "Runs fused from this golden set's runs: `- {name: hybrid, method: rrf, runs: [bm25, dense]}`.",
    "queries": "Query id -> question, relevant documents, or `unanswerable: true`.",
}
QUERY_KEYS: dict[str, str] = {
    "tags": "Labels for this question, e.g. `[critical]`: `qrels-lsp gate --critical TAG` fails when a question so tagged gets worse.",
    "question": "The question as a user asked it (from logs or tickets, not from the documents).",
    "unanswerable": "true when the corpus holds no answer on purpose: excluded from the means.",
    "relevant": "Relevant document ids: a list (grade 1) or a mapping id -> integer grade.",
    "notes": "Free text for the people who maintain the golden set.",
}
RUN_KEYS: dict[str, str] = {
    "qrels": "The golden set this run answers, relative to this file.",
    "name": "The run's name in lenses and reports (default: the file name).",
    "description": "Free text about the system that produced this run.",
    "results": "Query id -> ranked list of document ids, or a mapping id -> score.",
}
