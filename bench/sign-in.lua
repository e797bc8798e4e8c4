-- wrk script: POST /api/auth/sign-in/email with valid credentials.
-- Adapted from the reference server's bench/sign-in.lua
-- (shared/reference/better-auth-server/bench/sign-in.lua): same request,
-- same unexpected-response counter, same latency line.
--
-- Env: BENCH_EMAIL / BENCH_PASSWORD = an existing user (bench/setup-user.sh
--      signs it up); ORIGIN = the server's BASE_URL.
-- Every request creates a new session (a database write) and hashes the
-- password once (argon2id in Gatehouse, scrypt in the reference).
local email = os.getenv("BENCH_EMAIL") or "bench@example.com"
local password = os.getenv("BENCH_PASSWORD") or "Bench-Password-123"
wrk.method = "POST"
wrk.path = "/api/auth/sign-in/email"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"
wrk.body = string.format('{"email":"%s","password":"%s"}', email, password)

-- per-thread counter of unexpected responses, summed in done()
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
  for _, t in ipairs(threads) do total = total + (t:get("bad") or 0) end
  io.write(string.format("unexpected responses: %d\n", total))
  io.write(string.format("latency_us p50=%d p90=%d p99=%d max=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
