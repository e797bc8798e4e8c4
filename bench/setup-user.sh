#!/usr/bin/env bash
# Sign up (or reuse) the benchmark user, sign in, and print the Cookie header
# value of the fresh session on stdout (diagnostics go to stderr).
# A curl port of the reference's bench/setup-user.mjs, plus a check that the
# cookie really opens a session.
#
#   TARGET=http://127.0.0.1:3300 ORIGIN=http://localhost:3300 \
#   BENCH_EMAIL=bench@example.com BENCH_PASSWORD=Bench-Password-123 \
#   REQUIRE_COOKIES="session_token session_data" bash bench/setup-user.sh
#
# TARGET           where requests go (default: ORIGIN)
# ORIGIN           the server's BASE_URL, sent as the Origin header
# REQUIRE_COOKIES  cookie names (suffix match, so "session_token" matches
#                  better-auth.session_token and __Secure-better-auth.session_token)
#                  that sign-in must set; default "session_token"
# SETUP_TIMEOUT    seconds to keep retrying while the server answers 000/5xx
#                  (a distributed gateway may be up before its backends); default 30
#
# Expectations on the server (better-auth's behaviour):
#   POST /api/auth/sign-up/email {name,email,password} -> 200 (or 422 if the user exists)
#   POST /api/auth/sign-in/email {email,password}      -> 200 + Set-Cookie
#   GET  /api/auth/get-session with that Cookie        -> 200 with a JSON body
#                                                         holding "session" (not null)
set -euo pipefail
ORIGIN="${ORIGIN:?ORIGIN (the server BASE_URL) is required}"
TARGET="${TARGET:-$ORIGIN}"
TARGET="${TARGET%/}"
EMAIL="${BENCH_EMAIL:-bench@example.com}"
PASSWORD="${BENCH_PASSWORD:-Bench-Password-123}"
REQUIRE_COOKIES="${REQUIRE_COOKIES:-session_token}"
SETUP_TIMEOUT="${SETUP_TIMEOUT:-30}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# post PATH JSON -> sets CODE, body in $tmp/body, headers in $tmp/headers
post() {
  CODE="$(curl -sS --max-time 30 -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' \
    -X POST "$TARGET/api/auth$1" -H 'content-type: application/json' -H "origin: $ORIGIN" \
    --data-binary "$2" 2>"$tmp/curl-err")" || CODE="${CODE:-000}"
  [ -n "$CODE" ] || CODE=000
}

# retry while the server is not (fully) up: connection failures and 5xx
post_retry() {
  local deadline=$((SECONDS + SETUP_TIMEOUT))
  while :; do
    post "$1" "$2"
    case "$CODE" in 000 | 5??) ;; *) return 0 ;; esac
    if ((SECONDS >= deadline)); then return 0; fi
    sleep 0.5
  done
}

fail() {
  echo "setup-user: $1 (HTTP $CODE)" >&2
  [ -s "$tmp/curl-err" ] && sed 's/^/  curl: /' "$tmp/curl-err" >&2
  [ -s "$tmp/body" ] && { head -c 2000 "$tmp/body" | sed 's/^/  body: /' >&2; echo >&2; }
  exit 1
}

post_retry /sign-up/email "{\"name\":\"Bench User\",\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}"
case "$CODE" in 200 | 422) ;; *) fail "sign-up/email failed" ;; esac

post_retry /sign-in/email "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}"
[ "$CODE" = 200 ] || fail "sign-in/email failed"

# name=value of every Set-Cookie that is not a deletion (empty value)
cookie="$(tr -d '\r' <"$tmp/headers" | awk 'tolower($1) == "set-cookie:" {
    sub(/^[^:]*:[ \t]*/, ""); sub(/;.*/, ""); split($0, kv, "=")
    if (kv[2] != "") { out = out (out == "" ? "" : "; ") $0 }
  } END { print out }')"
[ -n "$cookie" ] || fail "sign-in/email set no cookie"
for want in $REQUIRE_COOKIES; do
  case "; $cookie" in
  *"$want="*) ;;
  *) # shellcheck disable=SC2001 # a regex, not a fixed string
    fail "sign-in/email did not set a *$want cookie (got: $(sed 's/=[^;]*/=…/g' <<<"$cookie"))" ;;
  esac
done

# the cookie must open the session
CODE="$(curl -sS --max-time 30 -o "$tmp/body" -w '%{http_code}' "$TARGET/api/auth/get-session" \
  -H "cookie: $cookie" -H "origin: $ORIGIN" 2>"$tmp/curl-err")" || CODE="${CODE:-000}"
[ "$CODE" = 200 ] || fail "get-session with the new cookie failed"
grep -q '"session"' "$tmp/body" || fail "get-session with the new cookie returned no session"

printf '%s' "$cookie"
