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
  return true
end

local ok = collect(golden, "golden") and (runfile == nil or collect(runfile, "run"))
finish(ok and 0 or 3)
