-- POST the document in $DOC with a distinct trailing comment on every request, so no request is
-- a cache hit (an uncached render each time). $SALT, when set, goes into the comment too, so
-- several runs against one server never send the same document twice.
local f = assert(io.open(os.getenv("DOC"), "rb"))
local body = f:read("*a")
f:close()
local salt = os.getenv("SALT") or ""
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "text/markdown" }, body .. "\n<!-- request " .. salt .. n .. " -->\n")
end
