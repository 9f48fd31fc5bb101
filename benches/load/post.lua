-- POST the document in $DOC to the path given after `--` (cached: the same body each time).
local f = assert(io.open(os.getenv("DOC"), "rb"))
local body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "text/markdown"
wrk.body = body
