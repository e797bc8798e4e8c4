#!/usr/bin/env bash
# The admin plugin's and the organization plugin's reads under load, side by side with the
# reference better-auth server in the same run, each with wrk at -t2 -c32:
# - with 10,000 users (each with a session): GET /admin/list-users (a 100-user page, without
#   and with a search term), GET /list-sessions and GET /get-session. Target (issue 8): p99
#   <= 20 ms for list-users and list-sessions; get-session does not regress.
# - the admin in 50 organizations of 100 members each (seed_organizations.py): GET
#   /organization/list and GET /organization/list-members (100 members with their users);
#   target (issue 11) p99 <= 15 ms. And POST /organization/has-permission against GET
#   /organization/get-active-member-role (the same membership read without the check): a
#   permission check adds <= 1 ms to a route's median.
#
#   bash bench/run-admin.sh                       # reference, standalone, distributed
#   MODES=distributed GATEHOUSE_BIN=… bash bench/run-admin.sh
#
# Knobs: USERS=10000 ORGS=50 MEMBERS=100 DUR=10s CONNS=32 THREADS=2
#   MODES="reference standalone distributed"; PORT=3400 REF_PORT=3401 (the gateway's and the reference's)
#   GATEHOUSE_BIN (else a release build), CARGO_TARGET_DIR, PG (postgres://postgres@127.0.0.1:5432),
#   REF_SRC / REF_CACHE (the reference server and a writable copy with node_modules).
#   HOLD=1 (with one mode): seed, then leave the stack running for profiling (see hold()).
# Writes bench/results/admin-<stamp>/ (gitignored): wrk outputs and summary.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
USERS="${USERS:-10000}" ORGS="${ORGS:-50}" MEMBERS="${MEMBERS:-100}" DUR="${DUR:-10s}" CONNS="${CONNS:-32}" THREADS="${THREADS:-2}"
MODES="${MODES:-reference standalone distributed}"
PG="${PG:-postgres://postgres@127.0.0.1:5432}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse-bench/better-auth-server}"
PORT="${PORT:-3400}" REF_PORT="${REF_PORT:-3401}"
OUT="$HERE/results/admin-$(date -u +%Y%m%dT%H%M%SZ)"
WORK="$(mktemp -d)"
mkdir -p "$OUT"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in "${DBS[@]:-}"; do [ -n "$db" ] && psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
DBS=()
trap cleanup EXIT
log() { printf '[%s] %s\n' "$(date -u +%T)" "$*"; }

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [[ " $MODES " == *" standalone "* || " $MODES " == *" distributed "* ]] && [ -z "${GATEHOUSE_BIN:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
  (cd "$REPO" && cargo build --release --locked --bin gatehouse)
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi

wait_ok() { # url
  for _ in $(seq 1 300); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "not ready: $1" >&2; return 1
}

# Signs the admin up, prints the Cookie header; the answer (with the user's id) is left in
# $WORK/admin.json. $1 base URL.
admin_cookie() {
  local origin="http://localhost:${1##*:}" jar="$WORK/jar-$RANDOM"
  curl -fs -c "$jar" -H "origin: $origin" -H 'content-type: application/json' -o "$WORK/admin.json" \
    "$1/api/auth/sign-up/email" -d '{"name":"Bench Admin","email":"bench-admin@example.com","password":"Correct-Horse-9"}'
  awk '$6 ~ /session_token/ {printf "%s=%s", $6, $7}' "$jar"
}
admin_id() { python3 -c "import json; print(json.load(open('$WORK/admin.json'))['user']['id'])"; }

# One wrk run: name, base URL, path, cookie[, wrk script] → one summary line.
measure() {
  local name="$1" url="$2$3" cookie="$4" file="$OUT/$MODE-$1.txt" script=()
  [ -n "${5:-}" ] && script=(-s "$5")
  ORIGIN="http://localhost:${2##*:}" wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency "${script[@]}" \
    -H "cookie: $cookie" "$url" >"$file"
  local rps p50 p99 errors
  rps="$(awk '/Requests\/sec/ {print $2}' "$file")"
  p50="$(awk '$1 == "50%" {print $2}' "$file")"
  p99="$(awk '$1 == "99%" {print $2}' "$file")"
  errors="$(awk '/Non-2xx/ {print $5}' "$file")"
  printf '| %s | %s | %s | %s | %s | %s |\n' "$MODE" "$name" "$rps" "$p50" "$p99" "${errors:-0}" | tee -a "$OUT/summary.md"
}

scenarios() { # base URL, cookie
  local code
  if [ -n "${HOLD:-}" ]; then hold "$@"; return; fi
  code="$(curl -s -o "$WORK/check.json" -w '%{http_code}' -H "cookie: $2" "$1/api/auth/admin/list-users?limit=100")"
  [ "$code" = 200 ] || { echo "$MODE: list-users answered $code: $(cat "$WORK/check.json")" >&2; return 1; }
  python3 -c "import json,sys; d=json.load(open('$WORK/check.json')); assert d['total'] >= $USERS and len(d['users']) == 100, d.get('total')"
  measure list-users "$1" "/api/auth/admin/list-users?limit=100&offset=5000" "$2"
  measure list-users-search "$1" "/api/auth/admin/list-users?limit=100&searchValue=user-012&searchField=email" "$2"
  measure list-sessions "$1" "/api/auth/list-sessions" "$2"
  measure get-session "$1" "/api/auth/get-session" "$2"
  organization_scenarios "$1" "$2"
}

# HOLD=1: instead of measuring, leave the seeded stack running for a profiler and write what a
# request needs to $HOLD_FILE (default bench/results/hold.env); the run ends when killed.
hold() {
  local file="${HOLD_FILE:-$HERE/results/hold.env}"
  printf 'URL=%s\nCOOKIE=%q\nORGANIZATION_ID=%s\nMODE=%s\n' "$1" "$2" "$ORGANIZATION_ID" "$MODE" >"$file"
  log "$MODE: holding; $file says how to reach it"
  while :; do sleep 3600; done
}

# The organization reads; ORGANIZATION_ID is the first seeded organization. $1 URL, $2 cookie.
organization_scenarios() {
  local members
  members="$(curl -s -H "cookie: $2" "$1/api/auth/organization/list-members?organizationId=$ORGANIZATION_ID&limit=$MEMBERS" |
    python3 -c "import json,sys; d=json.load(sys.stdin); print(len(d['members']), d['total'], all(m['user']['email'] for m in d['members']))")"
  [ "$members" = "$MEMBERS $MEMBERS True" ] || { echo "$MODE: list-members answered: $members" >&2; return 1; }
  measure org-list "$1" "/api/auth/organization/list" "$2"
  measure org-list-members "$1" "/api/auth/organization/list-members?organizationId=$ORGANIZATION_ID&limit=$MEMBERS" "$2"
  measure org-active-member-role "$1" "/api/auth/organization/get-active-member-role?organizationId=$ORGANIZATION_ID" "$2"
  ORGANIZATION_ID="$ORGANIZATION_ID" measure org-has-permission "$1" "/api/auth/organization/has-permission" "$2" "$HERE/has-permission.lua"
}

mode_reference() {
  if [ ! -d "$REF_CACHE/node_modules" ]; then
    mkdir -p "$REF_CACHE" && cp -r "$REF_SRC"/. "$REF_CACHE"/ && chmod -R u+w "$REF_CACHE"
    (cd "$REF_CACHE" && npm ci --silent)
  fi
  local db="$WORK/ref.sqlite"
  (cd "$REF_CACHE" && PORT=$REF_PORT DB_PATH="$db" MAIL_LOG="$WORK/mail.jsonl" exec node server.mjs >"$OUT/reference.log" 2>&1) &
  PIDS+=($!)
  wait_ok "http://127.0.0.1:$REF_PORT/api/auth/ok"
  local cookie
  cookie="$(admin_cookie "http://127.0.0.1:$REF_PORT")"
  DB_PATH="$db" node "$REF_CACHE/make-admin.mjs" --email bench-admin@example.com 2>/dev/null
  python3 "$HERE/seed_users.py" reference "$db" "$USERS"
  ORGANIZATION_ID="$(python3 "$HERE/seed_organizations.py" reference "$db" "$(admin_id)" "$ORGS" "$MEMBERS")"
  scenarios "http://127.0.0.1:$REF_PORT" "$cookie"
  kill "${PIDS[-1]}"
}

mode_standalone() {
  local data="$WORK/standalone"
  mkdir -p "$data"
  DATA_DIR="$data" GATEWAY_LISTEN=127.0.0.1:$PORT BASE_URL=http://localhost:$PORT \
    IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 \
    RATE_LIMIT_ENABLED=false RUST_LOG=warn "$GATEHOUSE_BIN" standalone >"$OUT/standalone.log" 2>&1 &
  PIDS+=($!)
  wait_ok "http://127.0.0.1:$PORT/api/auth/ok"
  local cookie
  cookie="$(admin_cookie "http://127.0.0.1:$PORT")"
  DATA_DIR="$data" RUST_LOG=warn "$GATEHOUSE_BIN" admin grant --email bench-admin@example.com >/dev/null
  python3 "$HERE/seed_users.py" gatehouse-sqlite "$data" "$USERS"
  ORGANIZATION_ID="$(python3 "$HERE/seed_organizations.py" gatehouse-sqlite "$data" "$(admin_id)" "$ORGS" "$MEMBERS")"
  scenarios "http://127.0.0.1:$PORT" "$cookie"
  kill "${PIDS[-1]}"
}

mode_distributed() {
  local stamp idb sdb odb token=bench-admin-service-token-0123456789abcdef
  stamp="$(date +%s)"
  idb="gh_bench_admin_${stamp}_identity" sdb="gh_bench_admin_${stamp}_session" odb="gh_bench_admin_${stamp}_organization"
  for db in "$idb" "$sdb" "$odb"; do psql "$PG/postgres" -qc "CREATE DATABASE $db"; DBS+=("$db"); done
  local common=(SERVICE_TOKEN=$token CACHE_URL=redis://127.0.0.1:6379 BUS_URL=amqp://guest:guest@127.0.0.1:5672/%2f RUST_LOG=warn RATE_LIMIT_ENABLED=false)
  env "${common[@]}" IDENTITY_LISTEN=127.0.0.1:50161 IDENTITY_OPS_LISTEN=127.0.0.1:0 \
    IDENTITY_DATABASE_URL="$PG/$idb" "$GATEHOUSE_BIN" identity >"$OUT/identity.log" 2>&1 &
  PIDS+=($!)
  env "${common[@]}" SESSION_LISTEN=127.0.0.1:50162 SESSION_OPS_LISTEN=127.0.0.1:0 \
    SESSION_DATABASE_URL="$PG/$sdb" IDENTITY_URL=http://127.0.0.1:50161 "$GATEHOUSE_BIN" session >"$OUT/session.log" 2>&1 &
  PIDS+=($!)
  env "${common[@]}" ORGANIZATION_LISTEN=127.0.0.1:50164 ORGANIZATION_OPS_LISTEN=127.0.0.1:0 \
    ORGANIZATION_DATABASE_URL="$PG/$odb" IDENTITY_URL=http://127.0.0.1:50161 SESSION_URL=http://127.0.0.1:50162 \
    "$GATEHOUSE_BIN" organization >"$OUT/organization.log" 2>&1 &
  PIDS+=($!)
  env "${common[@]}" GATEWAY_LISTEN=127.0.0.1:$PORT GATEWAY_OPS_LISTEN=127.0.0.1:0 BASE_URL=http://localhost:$PORT \
    AUTH_SECRET=bench-admin-auth-secret-0123456789abcdefghij IDENTITY_URL=http://127.0.0.1:50161 \
    SESSION_URL=http://127.0.0.1:50162 ORGANIZATION_URL=http://127.0.0.1:50164 "$GATEHOUSE_BIN" gateway >"$OUT/gateway.log" 2>&1 &
  PIDS+=($!)
  wait_ok "http://127.0.0.1:$PORT/api/auth/ok"
  local cookie=""
  for _ in $(seq 1 50); do cookie="$(admin_cookie "http://127.0.0.1:$PORT" || true)"; [ -n "$cookie" ] && break; sleep 0.2; done
  IDENTITY_DATABASE_URL="$PG/$idb" RUST_LOG=warn "$GATEHOUSE_BIN" admin grant --email bench-admin@example.com >/dev/null
  python3 "$HERE/seed_users.py" gatehouse-postgres "$PG/$idb" "$PG/$sdb" "$USERS"
  ORGANIZATION_ID="$(python3 "$HERE/seed_organizations.py" gatehouse-postgres "$PG/$idb" "$PG/$odb" "$(admin_id)" "$ORGS" "$MEMBERS")"
  scenarios "http://127.0.0.1:$PORT" "$cookie"
  for _ in 1 2 3 4; do kill "${PIDS[-1]}"; unset 'PIDS[-1]'; done
}

{
  echo "# Admin reads with $USERS users, organization reads with $ORGS organizations of $MEMBERS members: wrk -t$THREADS -c$CONNS -d$DUR --latency"
  echo
  echo "| mode | scenario | req/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|---|"
} >"$OUT/summary.md"
for MODE in $MODES; do
  log "mode $MODE"
  "mode_$MODE"
done
log "summary: $OUT/summary.md"
cat "$OUT/summary.md"
