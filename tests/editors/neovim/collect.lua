-- Headless Neovim 0.11 with the plugin from editors/neovim: open a golden set, then a run, and
-- write what the editor got (diagnostics, code lenses, inlay hints) as JSON for the pytest side.
--   QRELS_PLUGIN=editors/neovim QRELS_LSP_BIN=... QRELS_GOLDEN=... QRELS_RUN=... QRELS_OUT=out.json \
--   nvim --clean --headless -n -c 'luafile collect.lua'
-- Optional: QRELS_SETUP, setup()'s options as JSON (default: cmd = QRELS_LSP_BIN); QRELS_TRUST, a
-- file added to Neovim's trust database first (as `:trust` in its buffer would); no QRELS_RUN:
-- the golden set only.
local harness = dofile(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)) .. "/harness.lua")
local env = harness.env
local plugin = assert(env("QRELS_PLUGIN"), "QRELS_PLUGIN")
local golden = assert(env("QRELS_GOLDEN"), "QRELS_GOLDEN")
local runfile = env("QRELS_RUN")
local out_path = assert(env("QRELS_OUT"), "QRELS_OUT")
local bin = env("QRELS_LSP_BIN", "qrels-lsp")
local timeout = tonumber(env("QRELS_TIMEOUT", "60000"))
local quiet_ms = 1500 -- results are final when nothing changed for this long

local result = { nvim = tostring(vim.version()), files = {}, log = {}, notifications = {} }
local h = harness.new(result, out_path)
local log, finish = h.log, h.finish

vim.notify = function(msg, level)
  table.insert(result.notifications, { msg = msg, level = level })
  log("notify: " .. msg)
end

local trust = env("QRELS_TRUST")
if trust then
  vim.cmd.edit(vim.fn.fnameescape(trust))
  local ok, msg = vim.secure.trust({ action = "allow", bufnr = 0 })
  assert(ok, msg)
  vim.cmd("bwipeout")
end

vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime! ftdetect/qrels_lsp.lua")
-- the BM25 baseline run is off: `qrels-lsp score` (the oracle for the numbers) does not score it,
-- and it shows that the settings reach the server
local setup = { cmd = { bin, "serve" }, settings = { bm25_baseline = false } }
if env("QRELS_SETUP") then
  setup = vim.json.decode(env("QRELS_SETUP"))
end
require("qrels_lsp").setup(setup)

-- Diagnostics settle: remember when they last changed.
local last_change = vim.uv.now()
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function()
    last_change = vim.uv.now()
  end,
})

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = "qrels_lsp" })[1]
end

local function settle(pred)
  local stable_since = nil
  local last = nil
  return vim.wait(timeout, function()
    local ok, value = pred()
    if not ok then
      stable_since = nil
      return false
    end
    local key = vim.json.encode(value)
    if key ~= last then
      last = key
      stable_since = vim.uv.now()
      return false
    end
    return vim.uv.now() - stable_since >= quiet_ms and vim.uv.now() - last_change >= quiet_ms
  end, 100)
end

local function collect(path, kind)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local entry = { path = path, kind = kind, filetype = vim.bo[bufnr].filetype }
  result.files[kind] = entry
  if not vim.wait(timeout, function()
    local c = client_for(bufnr)
    return c ~= nil and c.initialized == true
  end, 50) then
    log("FAIL: no qrels_lsp client attached to " .. path .. " (filetype " .. entry.filetype .. ")")
    return false
  end
  local client = client_for(bufnr)
  entry.root_dir = client.root_dir
  entry.cmd = require("qrels_lsp").resolve_cmd(client.root_dir) or vim.NIL -- what was started
  entry.capabilities = {
    codeLens = client.server_capabilities.codeLensProvider ~= nil,
    inlayHint = client.server_capabilities.inlayHintProvider ~= nil,
  }
  -- diagnostics (pushed by the server after didOpen)
  settle(function()
    local d = vim.diagnostic.get(bufnr)
    return #d > 0, d
  end)
  entry.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(entry.diagnostics, {
      line = d.lnum,
      col = d.col,
      end_line = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      code = d.code,
      source = d.source,
      message = d.message,
    })
  end
  log(("%s: %d diagnostics"):format(kind, #entry.diagnostics))
  -- code lenses: the plugin refreshes them on attach and on edits; ask once more now that the
  -- analysis is done, as BufEnter would
  vim.api.nvim_exec_autocmds("BufEnter", { buffer = bufnr })
  settle(function()
    local lenses = vim.lsp.codelens.get(bufnr)
    local titles = {}
    for _, l in ipairs(lenses) do
      table.insert(titles, { l.range.start.line, l.command and l.command.title or vim.NIL })
    end
    return #lenses > 0, titles
  end)
  entry.lenses = {}
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    table.insert(entry.lenses, {
      line = l.range.start.line,
      title = l.command and l.command.title or vim.NIL,
      command = l.command and l.command.command or vim.NIL,
    })
  end
  log(("%s: %d code lenses"):format(kind, #entry.lenses))
  -- inlay hints, as the plugin enabled them
  entry.inlay_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = bufnr })
  entry.inlay_hints = {}
  if entry.capabilities.inlayHint then
    settle(function()
      local hints = vim.lsp.inlay_hint.get({ bufnr = bufnr })
      return #hints > 0, #hints
    end)
    for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
      local label = h.inlay_hint.label
      if type(label) == "table" then
        local parts = {}
        for _, p in ipairs(label) do
          table.insert(parts, p.value)
        end
        label = table.concat(parts)
      end
      table.insert(entry.inlay_hints, {
        line = h.inlay_hint.position.line,
        character = h.inlay_hint.position.character,
        label = label,
      })
    end
  end
  log(("%s: %d inlay hints (enabled=%s)"):format(kind, #entry.inlay_hints, tostring(entry.inlay_enabled)))
  -- semantic tokens, as Neovim holds them for drawing (its highlighter's state: the extmarks
  -- themselves are made only while a UI redraws), each with the colour its group resolves to
  local function token_marks()
    local marks = {}
    local st = vim.lsp.semantic_tokens
    for row, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
      local col = 0
      while col < #text do
        local found = nil
        for _, tok in ipairs(st.get_at_pos(bufnr, row - 1, col) or {}) do
          if tok.start_col == col then
            found = tok
          end
        end
        if found then
          local group = "@lsp.type." .. found.type
          local resolved = vim.api.nvim_get_hl(0, { name = group, link = false })
          table.insert(marks, {
            line = row - 1,
            col = found.start_col,
            end_col = found.end_col,
            group = group .. "." .. vim.bo[bufnr].filetype,
            fg = resolved.fg and ("#%06x"):format(resolved.fg) or vim.NIL,
          })
          col = found.end_col
        else
          col = col + 1
        end
      end
    end
    return marks
  end
  settle(function()
    local marks = token_marks()
    return #marks > 0, #marks
  end)
  entry.tokens = token_marks()
  entry.syntax = vim.bo[bufnr].syntax
  log(("%s: %d semantic tokens"):format(kind, #entry.tokens))
  -- folds: the level of every line, as the plugin's foldexpr (the server's ranges) makes them
  entry.foldexpr = vim.wo.foldexpr
  entry.foldmethod = vim.wo.foldmethod
  local function levels()
    local out = {}
    for l = 1, vim.api.nvim_buf_line_count(bufnr) do
      table.insert(out, vim.fn.foldlevel(l))
    end
    return out
  end
  settle(function()
    local got = levels()
    local any = false
    for _, level in ipairs(got) do
      any = any or level > 0
    end
    return any, got
  end)
  entry.fold_levels = levels()
  return true
end

local trecfile = env("QRELS_TREC")
local ok = collect(golden, "golden") and (runfile == nil or collect(runfile, "run"))
if ok and trecfile then
  -- a TREC run with no syntax file at all: only the server's semantic tokens colour it
  vim.cmd("syntax off")
  ok = collect(trecfile, "trec")
end
if ok and env("QRELS_HEALTH") then
  vim.cmd("checkhealth qrels_lsp")
  result.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  log("checkhealth: " .. #result.health .. " lines")
end
finish(ok and 0 or 3)
