-- POST the document in $DOC with a distinct trailing comment on every request, so no request is
-- a cache hit (an uncached render each time).
local f = assert(io.open(os.getenv("DOC"), "rb"))
local body = f:read("*a")
f:close()
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "text/markdown" }, body .. "\n<!-- request " .. n .. " -->\n")
end
