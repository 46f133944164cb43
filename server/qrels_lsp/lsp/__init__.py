"""The language server: pygls handlers converting core results to LSP at the boundary."""
