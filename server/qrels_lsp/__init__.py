"""qrels-lsp: a language server and CLI for retrieval evaluation files."""

__version__ = "0.1.0"
