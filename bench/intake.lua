-- Delivers the pre-signed webhooks of $DELIVERIES (bench/sign_deliveries.py), each once: wrk's
-- THREADS threads take alternate lines, so no webhook-id is sent twice.
local count = 0
function setup(thread)
  thread:set("index", count)
  count = count + 1
end

function init(args)
  deliveries = {}
  local stride, n = tonumber(os.getenv("THREADS") or "2"), 0
  for line in io.lines(os.getenv("DELIVERIES")) do
    if n % stride == index then
      local id, ts, sig, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
      table.insert(deliveries, { id = id, ts = ts, sig = sig, body = body })
    end
    n = n + 1
  end
  next_one = 1
end

function request()
  local d = deliveries[next_one]
  if d == nil then
    wrk.thread:stop()
    d = deliveries[1]
  end
  next_one = next_one + 1
  return wrk.format("POST", nil, {
    ["content-type"] = "application/json",
    ["webhook-id"] = d.id,
    ["webhook-timestamp"] = d.ts,
    ["webhook-signature"] = d.sig,
  }, d.body)
end
