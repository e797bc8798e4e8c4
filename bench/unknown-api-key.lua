-- wrk script: a flood of made-up API keys. Every request sends GET /api/auth/get-session with
-- a fresh random key of 64 letters (a real key's length and alphabet, so it passes the length
-- check and is looked up), paced: each connection waits FLOOD_DELAY_MS between requests, so
-- -c C gives about C * 1000 / FLOOD_DELAY_MS requests a second (less while answers are slow;
-- wrk's Requests/sec is the rate achieved).
-- Env: FLOOD_DELAY_MS (default 10), ORIGIN (the server's base URL), KNOWN_KEY (the control: the
-- same paced flood made of one valid key's requests instead).
-- Counts: accepted = answers 200 with a session (a made-up key must never sign in);
-- refused = 401 or 403 (unknown key); other = anything else (429, 5xx).
local letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
local pause = tonumber(os.getenv("FLOOD_DELAY_MS") or "10")
local origin = os.getenv("ORIGIN") or "http://localhost:3000"
local known = os.getenv("KNOWN_KEY")
if known == "" then known = nil end

local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

local chars = {}
function init(args)
  accepted, refused, other = 0, 0, 0
  math.randomseed(os.time() * 1000 + (id or 0) * 7919 + math.floor(os.clock() * 1e6))
  for i = 1, #letters do chars[i] = letters:sub(i, i) end
end

local buf = {}
function request()
  local key = known
  if not key then
    for i = 1, 64 do buf[i] = chars[math.random(52)] end
    key = table.concat(buf)
  end
  return wrk.format("GET", "/api/auth/get-session", { ["x-api-key"] = key, ["Origin"] = origin })
end

function delay()
  return pause
end

function response(status, headers, body)
  if status == 200 and body ~= "null" then
    accepted = accepted + 1
  elseif status == 401 or status == 403 then
    refused = refused + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local a, r, o = 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("accepted")
    r = r + thread:get("refused")
    o = o + thread:get("other")
  end
  io.write(string.format("flood_accepted=%d flood_refused=%d flood_other=%d\n", a, r, o))
  io.write(string.format("latency_p50_ms=%.2f latency_p99_ms=%.2f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
