-- Neovim headless check of `flowmcp lsp` (issue #42): opens the schema file given in
-- FLOWMCP_LSP_FILE with Neovim's built-in LSP client, waits for the server's diagnostics and
-- writes them, one `CODE LINE:COL message` line each, to the file FLOWMCP_LSP_OUT, then quits.
-- Works with Neovim 0.7 (Debian bookworm's; `vim.lsp.start` needs 0.8, so the older
-- `start_client` + `buf_attach_client` pair is used) and newer.
-- Run: nvim --headless -u NONE -i NONE -n -c 'luafile nvim_diagnostics.lua'
local bin = os.getenv('FLOWMCP_BIN')
local file = os.getenv('FLOWMCP_LSP_FILE')
local out = os.getenv('FLOWMCP_LSP_OUT')
local root = os.getenv('FLOWMCP_CATALOG')

local function finish(lines, code)
  local f = assert(io.open(out, 'w'))
  f:write(table.concat(lines, '\n'), '\n')
  f:close()
  vim.cmd((code == 0) and 'qall!' or 'cquit! ' .. code)
end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = 'flowmcp',
  cmd = { bin, 'lsp' },
  root_dir = root,
})
if not id then
  finish({ 'ERROR the client did not start' }, 3)
  return
end
vim.lsp.buf_attach_client(buf, id)

local got = vim.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 50)
if not got then
  finish({ 'ERROR no diagnostics within 30 s' }, 4)
  return
end
local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
  table.insert(lines, string.format('%s %d:%d %s', code, d.lnum + 1, d.col + 1, d.message))
end
vim.lsp.stop_client(id)
finish(lines, 0)
