-- `:checkhealth qrels_lsp`: what the plugin found, which server it would start and why, whether
-- that server runs (its version), and the clients running now.
local M = {}

local health = vim.health

local function version_of(cmd)
  -- the same program with `--version` instead of `serve`, started where the server would be
  local argv = vim.deepcopy(cmd)
  if argv[#argv] == "serve" then
    argv[#argv] = "--version"
  else
    table.insert(argv, "--version")
  end
  local qrels = require("qrels_lsp")
  local spawn = qrels.spawn_options()
  local ok, proc = pcall(vim.system, argv, { cwd = spawn.cwd, env = spawn.env, text = true })
  if not ok then
    return nil, tostring(proc)
  end
  local done = proc:wait(120000)
  if done.code ~= 0 then
    return nil, vim.trim((done.stderr or "") .. " " .. (done.stdout or ""))
  end
  return vim.trim(done.stdout or ""), nil
end

function M.check()
  local qrels = require("qrels_lsp")
  health.start("qrels-lsp: Neovim and the plugin")
  local v = vim.version()
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    health.error("Neovim 0.10 or newer is needed")
  end
  if qrels.configured then
    health.ok("require('qrels_lsp').setup() was called")
  else
    health.warn("require('qrels_lsp').setup() was not called: nothing starts the server", {
      "Add require('qrels_lsp').setup({}) to your configuration (see editors/neovim/README.md).",
    })
  end
  local ft = vim.filetype.match({ filename = "run.trec" })
  if ft == "trec_run" then
    health.ok("TREC files are detected (trec_qrels, trec_run)")
  else
    health.warn("*.trec is not detected as trec_run (" .. tostring(ft) .. ")")
  end

  health.start("qrels-lsp: the server")
  local root = vim.fs.root(0, qrels.options.root_markers) or vim.fn.getcwd()
  local repo = qrels.repository()
  health.info("project root: " .. root .. (repo and (", plugin checkout: " .. repo) or ""))
  for _, venv in ipairs({ ".venv", "venv" }) do
    local exe = vim.fs.joinpath(root, venv, "bin", "qrels-lsp")
    if vim.fn.executable(exe) == 1 then
      health.info(("the project has %s: used only with trust_project_venv = true or after `:trust` on it"):format(exe))
    end
  end
  health.info("uvx " .. (vim.fn.executable("uvx") == 1 and ("found: " .. vim.fn.exepath("uvx")) or "not found"))
  local cmd, err, how = qrels.resolve_cmd(root)
  if not cmd then
    health.error(err or "no server found", {
      "Install it: " .. qrels.install_command .. " (or uv: `uv tool install /path/to/qrels-lsp`)",
      "or pass cmd = { ... } or python = ... to require('qrels_lsp').setup()",
    })
  else
    health.ok(("server: %s (from %s)"):format(table.concat(cmd, " "), how or "?"))
    local said, problem = version_of(cmd)
    if said then
      health.ok("it runs: " .. said)
    else
      health.error("it does not run: " .. (problem or "?"))
    end
  end

  health.start("qrels-lsp: running")
  local clients = vim.lsp.get_clients({ name = qrels.name })
  if #clients == 0 then
    health.info("no qrels_lsp client is running (open a golden set, a run or a TREC file)")
  end
  for _, c in ipairs(clients) do
    local info = c.server_info or {}
    local features = {}
    local caps = c.server_capabilities or {}
    for _, f in ipairs({
      { "codeLensProvider", "code lenses" },
      { "inlayHintProvider", "inlay hints" },
      { "foldingRangeProvider", "folding" },
      { "semanticTokensProvider", "semantic tokens" },
    }) do
      if caps[f[1]] then
        table.insert(features, f[2])
      end
    end
    health.ok(("client %d: %s %s, root %s, %d buffer(s); %s"):format(
      c.id,
      info.name or "?",
      info.version or "?",
      c.root_dir or "?",
      vim.tbl_count(c.attached_buffers or {}),
      table.concat(features, ", ")
    ))
  end
end

return M
