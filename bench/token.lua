-- wrk script: GET /api/auth/token with a session cookie (the jwt plugin's signed token):
-- get-session.lua's request, counter and latency line on another route, where anything but a
-- 200 carrying a token is unexpected. Run from the repository's root (bench/run-jwt.sh does).
-- Env: COOKIE (bench/setup-user.sh prints it), ORIGIN (the server's BASE_URL).
dofile("bench/get-session.lua")
wrk.path = "/api/auth/token"

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"token":"ey', 1, true) then bad = bad + 1 end
end
