-- wrk script: POST /api/auth/two-factor/verify-totp from a signed-in user whose second factor is
-- on, with a code that is not theirs: the whole check (the session, the user's secret opened,
-- the codes of three steps computed and compared) and its refusal, 401 INVALID_CODE. The
-- accepting path cannot be repeated at rate on Gatehouse, which accepts each code once
-- (bench/two_factor_setup.py measures it one sign-in at a time).
--
-- Env: COOKIE = the signed-in session's Cookie header, ORIGIN = the server's BASE_URL
wrk.method = "POST"
wrk.headers["Cookie"] = os.getenv("COOKIE")
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"code":"000000"}'

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

function response(status, headers, body)
  if status ~= 401 or not string.find(body, "INVALID_CODE", 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + (t:get("bad") or 0) end
  io.write(string.format("unexpected responses: %d\n", total))
  io.write(string.format("latency_us p50=%d p90=%d p99=%d max=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
