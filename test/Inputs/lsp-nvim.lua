-- Drives `mpilift lsp` from Neovim's own LSP client (nvim --headless):
-- opens $FILE, waits for the diagnostics, prints them, asks for the quick
-- fix of the first one, applies it through the client, writes the buffer,
-- and waits until the server publishes diagnostics for the edited text.
-- Environment: MPILIFT (the binary), FILE, RULE (the rule to fix).
-- Output lines for FileCheck go to standard output; a failure ends Neovim
-- with exit status 1.
local mpilift, file, rule = os.getenv('MPILIFT'), os.getenv('FILE'), os.getenv('RULE')

local function say(text) io.stdout:write(text .. '\n') end
local function fail(text)
  io.stdout:write('nvim-lsp: FAIL: ' .. text .. '\n')
  vim.cmd('cquit 1')
end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local published = {}
local id = vim.lsp.start_client({
  name = 'mpilift',
  cmd = { mpilift, 'lsp', '--debounce-ms', '50' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
  handlers = {
    ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
      vim.lsp.diagnostic.on_publish_diagnostics(err, result, ctx, config)
      table.insert(published, result)
    end,
  },
})
if not id then fail('the client did not start') end
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)

if not vim.wait(120000, function() return #published >= 1 end, 50) then
  fail('no diagnostics')
end
local diagnostics = published[#published].diagnostics
local target
for _, d in ipairs(diagnostics) do
  say(string.format('diagnostic %s %d:%d %s', d.code or '-', d.range.start.line + 1,
                    d.range.start.character + 1, d.message))
  if d.code == rule and not target then target = d end
end
-- What the client made of them (vim.diagnostic is what the user sees).
say('nvim shows ' .. #vim.diagnostic.get(buf) .. ' diagnostic(s)')
if not target then fail('no diagnostic of ' .. rule) end

local reply = client.request_sync('textDocument/codeAction', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = target.range,
  context = { diagnostics = { target }, only = { 'quickfix' } },
}, 30000, buf)
if not reply or reply.err or not reply.result or #reply.result == 0 then
  fail('no quick fix')
end
local action = reply.result[1]
say('quick fix: ' .. action.title)
vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
local before = #published
vim.cmd('silent write')

-- The server re-checks the text it received after the fix: the rule's
-- finding must be gone from what it publishes.
local ok = vim.wait(120000, function()
  if #published <= before then return false end
  for _, d in ipairs(published[#published].diagnostics) do
    if d.code == rule then return false end
  end
  return true
end, 50)
if not ok then fail('the server did not publish diagnostics for the fixed text') end
say('after the fix: ' .. #published[#published].diagnostics .. ' diagnostic(s)')
vim.lsp.stop_client(id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 50)
vim.cmd('qall!')
