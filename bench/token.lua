-- wrk script: GET /api/auth/token with a session cookie (the jwt plugin's signed token).
-- Env: COOKIE (bench/setup-user.sh prints it), ORIGIN (the server's BASE_URL).
wrk.method = "GET"
wrk.path = "/api/auth/token"
wrk.headers["Cookie"] = os.getenv("COOKIE")
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

-- anything but a 200 carrying a token is unexpected
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"token":"ey', 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("bad") or 0) end
  io.write(string.format("unexpected responses: %d\n", total))
  io.write(string.format("latency_us p50=%d p90=%d p99=%d max=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
