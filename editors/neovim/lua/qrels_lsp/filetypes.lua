-- Filetype detection for TREC files. Golden sets and run YAML keep filetype `yaml`: the client
-- attaches to them by file name (see `patterns` in init.lua), so YAML highlighting is kept.
local M = {}

local added = false

function M.add()
  if added then
    return
  end
  added = true
  vim.filetype.add({
    extension = { qrels = "trec_qrels", trec = "trec_run", run = "trec_run" },
    filename = { ["qrels"] = "trec_qrels", ["qrels.txt"] = "trec_qrels" },
    pattern = {
      [".*%.qrels%.txt"] = "trec_qrels",
      [".*%.run%.txt"] = "trec_run",
    },
  })
end

return M
