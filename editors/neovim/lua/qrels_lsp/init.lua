-- qrels-lsp for Neovim 0.10+: golden sets (*.qrels.yaml), run YAML (*.run.yaml), TREC qrels/runs.
--
--   require("qrels_lsp").setup({
--     cmd = nil,              -- e.g. { "/path/to/qrels-lsp", "serve" }; default: see M.resolve_cmd
--     python = nil,           -- an interpreter with qrels-lsp installed: `python -m qrels_lsp.cli serve`
--     trust_project_venv = false, -- start a project's .venv/venv server without asking vim.secure
--     settings = {},          -- the server's "qrels" settings: k, relevance_level, ignore, metrics,
--                             -- golden, runs, bm25_baseline, compare_to, judgments, preset, alpha, min_difference,
--                             -- min_judged, pool_depth, blind_judging, diff_base, qrels, allow_outside (unset keys:
--                             -- qrels-lsp.toml)
--     codelens = true,        -- show and refresh code lenses (recall@k · MRR per question)
--     inlay_hints = true,     -- enable inlay hints where the server and Neovim have them
--     folding = true,         -- fold by the server's ranges (0.11+: vim.lsp.foldexpr)
--     uvx = true,             -- no server found: run it with uvx from this plugin's checkout
--   })
--
-- `:checkhealth qrels_lsp` says which server it would start, and why, and what is running.
--
-- On 0.11+ the server is registered with vim.lsp.config("qrels_lsp", ...) and vim.lsp.enable;
-- on 0.10 a FileType autocmd calls vim.lsp.start.
local M = {}

M.name = "qrels_lsp"
M.install_command = "pipx install /path/to/qrels-lsp"

--- The checkout this plugin lies in (editors/neovim/lua/qrels_lsp/init.lua, four folders down),
--- when it is one: the package `uvx --from` can run the server from.
function M.repository()
  local source = debug.getinfo(1, "S").source:gsub("^@", "")
  local root = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(source)))))
  if root and vim.uv.fs_stat(vim.fs.joinpath(root, "pyproject.toml")) then
    return root
  end
  return nil
end

local defaults = {
  cmd = nil,
  python = nil,
  trust_project_venv = false,
  settings = {},
  codelens = true,
  inlay_hints = true,
  folding = true,
  uvx = true,
  filetypes = { "yaml", "trec_qrels", "trec_run" },
  -- YAML buffers are ours only when their name matches (Lua patterns on the file name).
  yaml_patterns = { "%.qrels%.ya?ml$", "%.run%.ya?ml$" },
  root_markers = { "qrels-lsp.toml", "pyproject.toml", ".git" },
}

M.options = vim.deepcopy(defaults)
local warned = false
-- A project venv's server, once asked about in this session: exe -> true (allowed) / false.
-- vim.secure remembers "allow" and "deny" itself; this keeps "ignore" from asking on every buffer.
local venv_consent = {}

local function notify(msg, level)
  vim.schedule(function()
    vim.notify(msg, level or vim.log.levels.INFO, { title = "qrels-lsp" })
  end)
end

--- Converts a glob from the `golden`/`runs` settings into a Lua pattern on the file name.
local function glob_to_pattern(glob)
  local name = glob:match("([^/]+)$") or glob
  local p = name:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. p .. "$"
end

--- Whether a buffer is one the server should see.
function M.is_ours(bufnr)
  local ft = vim.bo[bufnr].filetype
  if ft == "trec_qrels" or ft == "trec_run" then
    return true
  end
  if ft ~= "yaml" then
    return false
  end
  local name = vim.fs.basename(vim.api.nvim_buf_get_name(bufnr))
  if name == nil or name == "" then
    return false
  end
  for _, pat in ipairs(M.options.yaml_patterns) do
    if name:match(pat) then
      return true
    end
  end
  local s = M.options.settings or {}
  for _, glob in ipairs(vim.list_extend(vim.list_extend({}, s.golden or {}), s.runs or {})) do
    if name:match(glob_to_pattern(glob)) then
      return true
    end
  end
  return false
end

local function executable(path)
  return path ~= nil and vim.fn.executable(path) == 1
end

--- Whether the user consents to running a project venv's server: the explicit setup option, or
--- Neovim's trust database (vim.secure, the prompt 'exrc' uses; it remembers per file content).
--- A repository's .venv is code its author wrote: opening a golden set must not run it unasked.
local function venv_trusted(exe)
  if M.options.trust_project_venv then
    return true
  end
  if venv_consent[exe] == nil then
    local ok, contents = pcall(vim.secure.read, exe)
    venv_consent[exe] = ok and contents ~= nil
    if not venv_consent[exe] then
      notify(
        ("qrels-lsp: not starting %s: the project's venv is not trusted, so qrels-lsp is looked for on PATH instead. To allow it, read it with `:view %s`, run `:trust` in that buffer and restart Neovim; or setup({ trust_project_venv = true })."):format(
          exe,
          vim.fn.fnameescape(exe)
        ),
        vim.log.levels.WARN
      )
    end
  end
  return venv_consent[exe]
end

--- The server's command line: opts.cmd, opts.python, the project's .venv/venv (with consent,
--- see venv_trusted), qrels-lsp on PATH, then uvx from this plugin's checkout (opts.uvx).
--- Returns cmd, nil, how; or nil and an error message with the install command.
function M.resolve_cmd(root)
  local o = M.options
  if o.cmd and #o.cmd > 0 then
    if executable(o.cmd[1]) then
      return o.cmd, nil, "setup cmd"
    end
    return nil, ("qrels-lsp: `%s` (setup cmd) is not executable."):format(o.cmd[1])
  end
  if o.python then
    if executable(o.python) then
      return { o.python, "-m", "qrels_lsp.cli", "serve" }, nil, "setup python"
    end
    return nil, ("qrels-lsp: Python `%s` not found. Install the server with `%s -m pip install /path/to/qrels-lsp`."):format(
      o.python,
      o.python
    )
  end
  if root then
    for _, venv in ipairs({ ".venv", "venv" }) do
      local exe = vim.fs.joinpath(root, venv, "bin", "qrels-lsp")
      if executable(exe) then
        if venv_trusted(exe) then
          return { exe, "serve" }, nil, "the project's " .. venv .. " (trusted)"
        end
        break -- the first venv found is the project's; not trusted, the server comes from PATH
      end
    end
  end
  if executable("qrels-lsp") then
    return { "qrels-lsp", "serve" }, nil, "PATH"
  end
  local repo = o.uvx and M.repository() or nil
  if repo and executable("uvx") then
    return { "uvx", "--from", repo, "qrels-lsp", "serve" }, nil, "uvx, from the plugin's checkout " .. repo
  end
  return nil,
    ("qrels-lsp: the language server is not installed (no `qrels-lsp` on PATH%s). Install it with `%s`, or pass `cmd`/`python` to require('qrels_lsp').setup()."):format(
      repo and ", no `uvx` to run it from this plugin's checkout" or "",
      M.install_command
    )
end

--- Where the server runs: outside the project, with PYTHONSAFEPATH. The server takes its root from
--- the initialize request; `python -m` puts its working directory first on sys.path, so started in
--- the project a `qrels_lsp/` folder there would be imported instead of the installed package.
function M.spawn_options()
  local cwd = vim.fn.stdpath("cache")
  vim.fn.mkdir(cwd, "p")
  return { cwd = cwd, env = { PYTHONSAFEPATH = "1" } }
end

--- The project root: the nearest folder with a root marker, else the nearest folder holding a
--- golden set (a TREC run names no golden set: the server finds it by the golden set's `runs:`),
--- else the file's folder.
local function root_of(bufnr)
  local dir = vim.fs.dirname(vim.api.nvim_buf_get_name(bufnr))
  local found = vim.fs.find(M.options.root_markers, { path = dir, upward = true })[1]
  if found then
    return vim.fs.dirname(found)
  end
  local golden = vim.fs.find(function(name)
    return name:match("%.qrels%.ya?ml$") ~= nil
  end, { path = dir, upward = true })[1]
  return golden and vim.fs.dirname(golden) or dir
end

local function server_settings()
  -- an empty Lua table would be sent as a JSON array: the server wants an object
  local s = M.options.settings
  if s == nil or vim.tbl_isempty(s) then
    s = vim.empty_dict()
  end
  return { qrels = s }
end

--- Code lenses: Neovim asks only when told to. Refresh on attach, on entering the buffer, after
--- edits (leaving insert mode, normal-mode changes) and after writes (runs scored elsewhere).
local function supports(client, method, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:supports_method(method, bufnr)
  end
  return client.supports_method(method, { bufnr = bufnr })
end

local function attach_codelens(client, bufnr)
  if not M.options.codelens or not supports(client, "textDocument/codeLens", bufnr) then
    return
  end
  local group = vim.api.nvim_create_augroup("qrels_lsp_codelens_" .. bufnr, { clear = true })
  local function refresh()
    if vim.api.nvim_buf_is_valid(bufnr) then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end
  end
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "TextChanged", "BufWritePost", "FocusGained" }, {
    group = group,
    buffer = bufnr,
    callback = refresh,
  })
  vim.api.nvim_create_autocmd("LspDetach", {
    group = group,
    buffer = bufnr,
    callback = function(args)
      if args.data and args.data.client_id == client.id then
        vim.lsp.codelens.clear(client.id, bufnr)
        pcall(vim.api.nvim_del_augroup_by_id, group)
      end
    end,
  })
  refresh()
end

local function attach_inlay_hints(client, bufnr)
  if not M.options.inlay_hints or not vim.lsp.inlay_hint then
    return
  end
  if supports(client, "textDocument/inlayHint", bufnr) then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
end

--- Folds from the server (a question, its `relevant:` block, a ranking): Neovim 0.11's
--- vim.lsp.foldexpr in every window showing the buffer, everything open at first.
local function attach_folding(client, bufnr)
  if not M.options.folding or not vim.lsp.foldexpr or not supports(client, "textDocument/foldingRange", bufnr) then
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    vim.wo[win][0].foldmethod = "expr"
    vim.wo[win][0].foldexpr = "v:lua.vim.lsp.foldexpr()"
    vim.wo[win][0].foldlevel = 99
  end
end

--- Colours of the server's semantic tokens (document ids by what the golden set says of them),
--- as links a colour scheme can override: files are coloured without any syntax file.
M.token_highlights = {
  ["@lsp.type.relevantDocument"] = "DiagnosticOk",
  ["@lsp.type.irrelevantDocument"] = "DiagnosticWarn",
  ["@lsp.type.unjudgedDocument"] = "Comment",
  ["@lsp.type.unknownDocument"] = "DiagnosticError",
}

function M.set_highlights()
  for group, target in pairs(M.token_highlights) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

function M.on_attach(client, bufnr)
  attach_codelens(client, bufnr)
  attach_inlay_hints(client, bufnr)
  attach_folding(client, bufnr)
end

local function base_config()
  return {
    name = M.name,
    filetypes = M.options.filetypes,
    settings = server_settings(),
    init_options = server_settings(),
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
      if M.options.on_attach then
        M.options.on_attach(client, bufnr)
      end
    end,
  }
end

--- Neovim 0.11+: a vim.lsp.config entry whose root_dir declines YAML buffers that are not ours.
function M.lsp_config()
  local config = base_config()
  config.root_dir = function(bufnr, on_dir)
    if not M.is_ours(bufnr) then
      return
    end
    local root = root_of(bufnr)
    local cmd, err = M.resolve_cmd(root)
    if not cmd then
      if not warned then
        warned = true
        notify(err, vim.log.levels.ERROR)
      end
      return
    end
    on_dir(root)
  end
  -- Resolved when the client starts, against its root (a project's .venv).
  config.cmd = function(dispatchers, client_config)
    local root = client_config and client_config.root_dir or vim.fn.getcwd()
    local cmd = M.resolve_cmd(root) or { "qrels-lsp", "serve" }
    return vim.lsp.rpc.start(cmd, dispatchers, M.spawn_options())
  end
  return config
end

--- Neovim 0.10: start (or reuse) a client for one buffer.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not M.is_ours(bufnr) then
    return nil
  end
  local root = root_of(bufnr)
  local cmd, err = M.resolve_cmd(root)
  if not cmd then
    if not warned then
      warned = true
      notify(err, vim.log.levels.ERROR)
    end
    return nil
  end
  local config = base_config()
  config.cmd = cmd
  local spawn = M.spawn_options()
  config.cmd_cwd = spawn.cwd
  config.cmd_env = spawn.env
  config.root_dir = root
  config.filetypes = nil
  return vim.lsp.start(config, { bufnr = bufnr })
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if opts and opts.settings then
    M.options.settings = opts.settings -- lists replace, not merge
  end
  warned = false
  venv_consent = {}
  M.configured = true
  require("qrels_lsp.filetypes").add()
  M.set_highlights()
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = vim.api.nvim_create_augroup("qrels_lsp_highlights", { clear = true }),
    callback = M.set_highlights,
  })
  if vim.fn.has("nvim-0.11") == 1 and vim.lsp.config and vim.lsp.enable then
    vim.lsp.config(M.name, M.lsp_config())
    vim.lsp.enable(M.name)
  else
    local group = vim.api.nvim_create_augroup("qrels_lsp_start", { clear = true })
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = M.options.filetypes,
      callback = function(args)
        M.start(args.buf)
      end,
    })
    -- buffers opened before setup()
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) then
        M.start(buf)
      end
    end
  end
end

return M
