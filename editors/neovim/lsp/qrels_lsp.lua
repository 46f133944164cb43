-- Neovim 0.11+: `vim.lsp.enable("qrels_lsp")` finds this file on 'runtimepath' (no setup() needed;
-- setup() registers the same config with your options).
return require("qrels_lsp").lsp_config()
