-- wrk script: POST /api/auth/request-password-reset for an existing user: every request writes
-- a reset link and queues its mail (Gatehouse: one transaction, the mailer sends later; the
-- reference: its sendResetPassword callback runs before the answer).
--
-- Env: BENCH_EMAIL = an existing user; ORIGIN = the server's BASE_URL.
local email = os.getenv("BENCH_EMAIL") or "bench@example.com"
wrk.method = "POST"
wrk.path = "/api/auth/request-password-reset"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"
wrk.body = string.format('{"email":"%s","redirectTo":"/reset-password/"}', email)

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
