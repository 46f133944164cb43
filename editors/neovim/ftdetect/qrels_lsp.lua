-- Sourced by Neovim (and by lazy.nvim for lazy-loaded plugins) before any file is opened.
require("qrels_lsp.filetypes").add()
