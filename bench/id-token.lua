-- wrk script: POST /api/auth/sign-in/social with an app's id token (better-auth's `idToken`):
-- each request verifies the token against the provider's cached keys and starts a session.
-- Env: ID_TOKEN (a token the provider issued to `gatehouse-test`), ORIGIN (the server's base URL).
local token = os.getenv("ID_TOKEN") or ""
wrk.method = "POST"
wrk.path = "/api/auth/sign-in/social"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"
wrk.body = string.format('{"provider":"test-oidc","idToken":{"token":"%s"}}', token)

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
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
