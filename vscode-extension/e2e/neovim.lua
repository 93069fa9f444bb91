-- Headless Neovim as a checkspec client (run by e2e/neovim.mjs): open -> diagnostics ->
-- completion -> run -> results in place -> transcript hover -> definition. Written for
-- Debian's Neovim (0.7): vim.lsp.start_client + buf_attach_client, requests made directly.
-- What it saw goes to $CHECKSPEC_E2E_OUT/neovim.json (checked by the harness) and a text
-- "screenshot" of the buffer with its diagnostics and hints to neovim-screen.txt.

local out_dir = os.getenv("CHECKSPEC_E2E_OUT")
local server = os.getenv("CHECKSPEC_SERVER")
local folder = os.getenv("CHECKSPEC_E2E_FOLDER")
local seen = { steps = {} }

local function finish(code)
  vim.fn.writefile({ vim.fn.json_encode(seen) }, out_dir .. "/neovim.json")
  vim.cmd((code == 0 and "qall!" or "cquit! " .. code))
end

local function step(name, value)
  table.insert(seen.steps, name)
  seen[name] = value
end

local function fail(message)
  seen.failure = message
  finish(1)
end

vim.cmd("edit " .. folder .. "/refund.scenario.yaml")
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)
local ready = false
local client_id = vim.lsp.start_client({
  name = "checkspec",
  cmd = { server, "lsp" },
  root_dir = folder,
  on_init = function() ready = true end,
})
if not client_id then return fail("the server did not start") end
vim.lsp.buf_attach_client(buf, client_id)
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(120000, function() return ready end, 50) then  -- a busy machine starts Python slowly
  return fail("the server did not initialize")
end
step("initialized", client.name)

local function request(method, params, timeout)
  local answer, err = client.request_sync(method, params, timeout or 10000, buf)
  if err then return nil, err end
  if answer == nil then return nil, "no answer" end
  if answer.err then return nil, vim.inspect(answer.err) end
  return answer.result
end

local function line_of(needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find(needle, 1, true) then return i - 1, line end
  end
  return nil
end

-- A typo: the diagnostic arrives at its line.
local row, text = line_of("kind: string_matching")
local original = text
vim.api.nvim_buf_set_lines(buf, row, row + 1, false, { (text:gsub("string_matching", "string_matchin")) })
local found
vim.wait(60000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.message:find("unknown check 'string_matchin'", 1, true) then found = d return true end
  end
  return false
end, 50)
if not found then return fail("no diagnostic for the typo") end
step("diagnostic", { line = found.lnum, message = found.message })

-- Completion of the kind being typed.
local col = #text:gsub("string_matching", "string_matchin")
local completion, err = request("textDocument/completion", { textDocument = { uri = uri }, position = { line = row, character = col } })
if not completion then return fail("completion: " .. tostring(err)) end
local labels = {}
for _, item in ipairs(completion.items or completion) do table.insert(labels, item.label) end
step("completion", labels)

-- Undo the typo, run the scenario, ask for the results in place and the transcript.
vim.api.nvim_buf_set_lines(buf, row, row + 1, false, { original })
vim.wait(1000, function() return false end, 50)
local result, run_err = request("workspace/executeCommand", { command = "checkspec.runScenario", arguments = { uri, 0 } }, 120000)
if not result then return fail("run: " .. tostring(run_err)) end
step("run", { status = result.status, summary = result.summary })

local hints = request("textDocument/inlayHint", { textDocument = { uri = uri }, range = { start = { line = 0, character = 0 }, ["end"] = { line = 100, character = 0 } } }) or {}
local hint_labels = {}
for _, hint in ipairs(hints) do table.insert(hint_labels, { line = hint.position.line, label = hint.label }) end
step("inlay_hints", hint_labels)

local name_row = line_of("name: refund policy is stated")
local hover = request("textDocument/hover", { textDocument = { uri = uri }, position = { line = name_row, character = 8 } })
step("transcript_hover", hover and hover.contents and hover.contents.value or "")

local target_row, target_line = line_of("target: python:agent:answer")
local definition = request("textDocument/definition", { textDocument = { uri = uri }, position = { line = target_row, character = target_line:find("agent:answer", 1, true) + 2 } })
local where = definition and (definition[1] or definition)
step("definition", where and { uri = where.uri or where.targetUri, line = (where.range or where.targetRange).start.line } or vim.NIL)

-- A text "screenshot": the buffer, each line followed by its hints and diagnostics.
local screen = {}
local by_line = {}
for _, h in ipairs(hint_labels) do by_line[h.line] = (by_line[h.line] or "") .. "  ‹" .. h.label .. "›" end
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  table.insert(screen, string.format("%3d  %s%s", i, line, by_line[i - 1] or ""))
end
table.insert(screen, "")
table.insert(screen, "-- hover on the scenario's name --")
for _, line in ipairs(vim.split(seen.transcript_hover, "\n")) do table.insert(screen, line) end
vim.fn.writefile(screen, out_dir .. "/neovim-screen.txt")
finish(0)
