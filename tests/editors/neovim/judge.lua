-- Headless Neovim 0.11 with the plugin from editors/neovim: judge the next pair of the demo's
-- judging queue as a user would, and write what happened as JSON for the pytest side.
--   QRELS_PLUGIN=editors/neovim QRELS_LSP_BIN=... QRELS_GOLDEN=... QRELS_OUT=out.json \
--   nvim --clean --headless -n -c 'luafile judge.lua'
-- The first line's lens "N unjudged in the top 10 · judge next" is run with
-- vim.lsp.codelens.run() (the user picks it among the first line's lenses), the cursor lands on
-- the question to judge, and vim.lsp.buf.code_action() applies "grade 1", which writes the
-- judgment and moves on to the next pair.
local harness = dofile(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)) .. "/harness.lua")
local env = harness.env
local plugin = assert(env("QRELS_PLUGIN"), "QRELS_PLUGIN")
local golden = assert(env("QRELS_GOLDEN"), "QRELS_GOLDEN")
local out_path = assert(env("QRELS_OUT"), "QRELS_OUT")
local bin = env("QRELS_LSP_BIN", "qrels-lsp")
local timeout = tonumber(env("QRELS_TIMEOUT", "60000"))

local result = { nvim = tostring(vim.version()), steps = {}, log = {} }
local h = harness.new(result, out_path)
local log, finish = h.log, h.finish
vim.notify = function(msg)
  log("notify: " .. msg)
end

vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime! ftdetect/qrels_lsp.lua")
require("qrels_lsp").setup({ cmd = { bin, "serve" }, settings = { bm25_baseline = false } })

-- The user picks the judging lens among the first line's lenses (and the "grade 1" action).
vim.ui.select = function(items, opts, on_choice)
  for i, item in ipairs(items) do
    local label = opts.format_item and opts.format_item(item) or tostring(item)
    if label:find("judge next", 1, true) then
      return on_choice(item, i)
    end
  end
  log("select: nothing to pick among " .. #items)
  on_choice(nil, nil)
end

vim.cmd.edit(vim.fn.fnameescape(golden))
local bufnr = vim.api.nvim_get_current_buf()

local function judge_lens()
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    if l.command and l.command.title:find("judge next", 1, true) then
      return l.command.title
    end
  end
  return nil
end

local function hover_at_cursor()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "qrels_lsp" })[1]
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000) or {}
  for _, a in pairs(answers) do
    if a.result and a.result.contents then
      return a.result.contents.value or ""
    end
  end
  return ""
end

local function hints_on(line)
  local out = {}
  for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = bufnr })) do
    if h.inlay_hint.position.line == line then
      local label = h.inlay_hint.label
      if type(label) == "table" then
        local parts = {}
        for _, p in ipairs(label) do
          table.insert(parts, p.value)
        end
        label = table.concat(parts)
      end
      table.insert(out, label)
    end
  end
  return out
end

local ok = vim.wait(timeout, function()
  vim.lsp.codelens.refresh({ bufnr = bufnr })
  return judge_lens() ~= nil
end, 200)
if not ok then
  log("FAIL: no judging lens")
  return finish(3)
end
result.lens_before = judge_lens()

-- 1. Run the judging lens on the first line.
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
if not vim.wait(timeout, function()
  return vim.api.nvim_win_get_cursor(0)[1] ~= 1
end, 50) then
  log("FAIL: the cursor did not move")
  return finish(3)
end
for step = 1, 2 do
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = cursor[1] - 1
  vim.wait(5000, function()
    return #hints_on(line) > 0
  end, 100)
  local entry = { line = line, col = cursor[2], hints = hints_on(line), hover = hover_at_cursor() }
  table.insert(result.steps, entry)
  if step == 2 then
    break
  end
  -- 2. Judge it: grade 1, which writes the judgment and goes to the next pair.
  local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title:find("(grade 1)", 1, true) ~= nil
    end,
  })
  if not vim.wait(timeout, function()
    local now = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
    return now ~= before and vim.api.nvim_win_get_cursor(0)[1] - 1 ~= line
  end, 50) then
    log("FAIL: the judgment was not written, or the cursor did not move on")
    return finish(3)
  end
end
result.text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
local target = result.lens_before
vim.wait(timeout, function()
  vim.lsp.codelens.refresh({ bufnr = bufnr })
  local now = judge_lens()
  return now ~= nil and now ~= target
end, 200)
result.lens_after = judge_lens()
finish(0)
