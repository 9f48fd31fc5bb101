-- POST the document in $DOC with a distinct trailing comment on every request, so no request is
-- a cache hit (an uncached render each time). $SALT, when set, goes into the comment too, so
-- several runs against one server never send the same document twice.
--
-- The requests are built before the clock starts and then sent in turn. Building each one as it
-- is sent (a 2 KB string join and an HTTP format in Lua) cost wrk about twice the CPU per request
-- that the other scenarios cost it, on the cores the server shares with it, so the uncached
-- figure was partly a measure of wrk. POOL is far above the server's default 4096-entry cache:
-- a document comes round again only after POOL - 1 others, long after it has been evicted
-- (load.sh counts the cache hits during the run to show it).
local POOL = 16384
local f = assert(io.open(os.getenv("DOC"), "rb"))
local body = f:read("*a")
f:close()
local salt = os.getenv("SALT") or ""
local requests = {}
for i = 1, POOL do
  local doc = body .. "\n<!-- request " .. salt .. i .. " -->\n"
  requests[i] = wrk.format("POST", nil, { ["Content-Type"] = "text/markdown" }, doc)
end
local n = 0
request = function()
  n = n % POOL + 1
  return requests[n]
end
