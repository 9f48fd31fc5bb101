-- A mixed load for the soak test: every request is a different document (so none is a cache
-- hit and the render cache and the diagram store keep filling and evicting), cycling through
-- page, email and JSON renders, validation and the answers export.
local f = assert(io.open(os.getenv("DOC"), "rb"))
local doc = f:read("*a")
f:close()

local function json_string(s)
  s = s:gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    if c == "\n" then return "\\n" end
    return string.format("\\u%04x", c:byte())
  end)
  return '"' .. s .. '"'
end

local n = 0
request = function()
  n = n + 1
  -- A diagram whose labels change with every request, so each one is laid out afresh.
  local unique = doc .. "\n```mermaid\n{ \"version\": \"1\", \"source\": \"graph TD; A[Request " .. n
    .. "] --> B[Render]; B --> C[Done " .. n .. "];\" }\n```\n"
  local kind = n % 5
  if kind == 0 then
    return wrk.format("POST", "/v1/render", { ["Content-Type"] = "text/markdown" }, unique)
  elseif kind == 1 then
    return wrk.format("POST", "/v1/render?surface=email&format=page", { ["Content-Type"] = "text/markdown" }, unique)
  elseif kind == 2 then
    return wrk.format("POST", "/v1/render?format=json", { ["Content-Type"] = "text/markdown" }, unique)
  elseif kind == 3 then
    return wrk.format("POST", "/v1/validate", { ["Content-Type"] = "text/markdown" }, unique)
  else
    local body = '{ "markdown": ' .. json_string(unique) .. ', "responses": { '
      .. '"b1": { "selected": ["Magic link"], "note": "request ' .. n .. '" }, '
      .. '"b2": { "order": ["us", "eu", "apac"] }, '
      .. '"b3": { "weights": { "product": 50, "infra": 30, "support": 20 } }, '
      .. '"b4": { "text": "nothing, request ' .. n .. '" } } }'
    return wrk.format("POST", "/v1/answers", { ["Content-Type"] = "application/json" }, body)
  end
end
