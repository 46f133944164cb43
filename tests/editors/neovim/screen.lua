-- Neovim as a person sees it, for the screenshot: the plugin's setup, diagnostics as virtual text,
-- the golden set opened at the `add-satellite` question. Run inside tmux by test_neovim.py.
vim.opt.runtimepath:prepend(os.getenv("QRELS_PLUGIN"))
vim.cmd("filetype plugin indent on")
vim.cmd("syntax on")
vim.cmd("runtime! ftdetect/qrels_lsp.lua")
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "I"
vim.diagnostic.config({ virtual_text = true, severity_sort = true })
require("qrels_lsp").setup({ cmd = { os.getenv("QRELS_LSP_BIN"), "serve" }, settings = { bm25_baseline = false } })
vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("QRELS_GOLDEN")))
local line = tonumber(os.getenv("QRELS_TOP") or "1")
vim.cmd("normal! " .. line .. "Gzt")
