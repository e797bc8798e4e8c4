-- wrk script: GET /api/auth/get-session signed in by an API key (`x-api-key`, better-auth's
-- enableSessionForAPIKeys): every request verifies the key, and better-auth writes the key's
-- row each time. Same counter and latency lines as id-token.lua.
-- Env: API_KEY (the key), ORIGIN (the server's base URL).
wrk.method = "GET"
wrk.path = "/api/auth/get-session"
wrk.headers["x-api-key"] = os.getenv("API_KEY") or ""
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

-- a 200 without a session (body "null") means the key was not taken as a sign-in
function response(status, headers, body)
  if status ~= 200 or body == "null" then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("bad")
  end
  io.write(string.format("unexpected_responses=%d\n", total))
  io.write(string.format("latency_p50_ms=%.2f latency_p99_ms=%.2f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
