-- What the headless Neovim scripts share: reading the environment, a log, and writing the
-- result as JSON before quitting with a code.
--   local h = dofile(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2)) .. "/harness.lua")
local M = {}

function M.env(name, default)
  local v = os.getenv(name)
  if v == nil or v == "" then
    return default
  end
  return v
end

-- result: the table written to out_path (its `log` list gathers what M.log says)
function M.new(result, out_path)
  result.log = result.log or {}
  local h = {}
  function h.log(s)
    table.insert(result.log, s)
    io.stdout:write(s .. "\n")
  end
  function h.finish(code)
    local f = assert(io.open(out_path, "w"))
    f:write(vim.json.encode(result))
    f:close()
    for _, c in ipairs(vim.lsp.get_clients()) do
      c:stop(true)
    end
    io.stdout:flush()
    if code == 0 then
      vim.cmd("qall!")
    else
      vim.cmd(code .. "cquit!")
    end
  end
  return h
end

return M
