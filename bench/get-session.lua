-- wrk script: GET /api/auth/get-session with a session cookie.
-- Adapted from the reference server's bench/get-session.lua
-- (shared/reference/better-auth-server/bench/get-session.lua): same request,
-- same unexpected-response counter, same latency line, so outputs of both
-- harnesses parse the same way.
--
-- Env: COOKIE = Cookie header value (bench/setup-user.sh prints it; with the
--      cookie cache on it holds both better-auth.session_token and
--      better-auth.session_data)
--      ORIGIN = the server's BASE_URL
wrk.method = "GET"
wrk.headers["Cookie"] = os.getenv("COOKIE")
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"

-- per-thread counter of unexpected responses, summed in done()
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

-- a 200 whose body is "null" means the cookie was not accepted
function response(status, headers, body)
  if status ~= 200 or body == "null" then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("bad") or 0) end
  io.write(string.format("unexpected responses: %d\n", total))
  io.write(string.format("latency_us p50=%d p90=%d p99=%d max=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
