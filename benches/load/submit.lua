-- POST a reader's JSON answer to /r/{id}/responses, cycling through the routed documents whose
-- ids are in $IDS (separated by spaces), so a run spreads its submissions over them. The answer
-- fits benches/load/doc-2k.md; every submission is stored (201).
local ids = {}
for id in (os.getenv("IDS") or ""):gmatch("%S+") do ids[#ids + 1] = id end
assert(#ids > 0, "IDS is empty: route a document first")

local body = '{ "responses": { '
  .. '"b1": { "selected": ["Magic link"], "note": "under load" }, '
  .. '"b2": { "order": ["us", "eu", "apac"] }, '
  .. '"b3": { "weights": { "product": 50, "infra": 30, "support": 20 } }, '
  .. '"b4": { "text": "nothing" } }, "reviewer": "wrk" }'

local requests = {}
for i, id in ipairs(ids) do
  requests[i] = wrk.format("POST", "/r/" .. id .. "/responses", { ["Content-Type"] = "application/json" }, body)
end
local n = 0
request = function()
  n = n % #requests + 1
  return requests[n]
end
