#!/usr/bin/env bash
# Resident memory, side by side with the reference better-auth server in the same run: each
# process's VmRSS idle after start, then after each load (get-session, sign-in, the admin's
# list-users), with the throughput each load reached. Issue 34.
#
#   bash bench/run-memory.sh                                  # reference, standalone, distributed
#   MODES=standalone GATEHOUSE_BIN=… bash bench/run-memory.sh
#   CEILINGS=bench/memory-ceilings.json MODES=standalone GATEHOUSE_BIN=… bash bench/run-memory.sh
#
# Phases, in order, each read SETTLE s after its load ends:
#   idle         IDLE_WAIT s after the server answers /ok (the admin signed up, nothing else)
#   get-session  GET /get-session, ROUNDS rounds of wrk -t$THREADS -c$CONNS -d$DUR
#   sign-in      POST /sign-in/email (one password hash each), wrk -d$DUR
#   admin-list   GET /admin/list-users?limit=100 over $USERS seeded users, wrk -d$DUR
# Modes: reference (better-auth on SQLite, node), standalone (`gatehouse standalone`, SQLite,
# in-memory bus and cache), distributed (every part its own process on PostgreSQL, Redis and
# RabbitMQ; each process's figure and their sum).
#
# CEILINGS=<json>: the footprint gate (scripts/test.sh): standalone's idle and after-load
# figures must stay within 1.25× those recorded there for this build profile (PROFILE, "debug"
# or "release"); exit 1 otherwise. A footprint, not a timing: stable enough to gate on.
#
# Knobs: DUR=8s ROUNDS=3 THREADS=2 CONNS=32 USERS=1000 IDLE_WAIT=5 SETTLE=2
#   MODES="reference standalone distributed", PORT=3410 REF_PORT=3411, PROFILE=release
#   GATEHOUSE_BIN (else a release build), CARGO_TARGET_DIR, PG (postgres://postgres@127.0.0.1:5432),
#   REF_SRC / REF_CACHE (the reference server and a writable copy with node_modules).
# Writes bench/results/memory-<stamp>/ (gitignored): wrk outputs, logs, summary.md, summary.json.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
DUR="${DUR:-8s}" ROUNDS="${ROUNDS:-3}" THREADS="${THREADS:-2}" CONNS="${CONNS:-32}" USERS="${USERS:-1000}"
IDLE_WAIT="${IDLE_WAIT:-5}" SETTLE="${SETTLE:-2}" PROFILE="${PROFILE:-release}"
MODES="${MODES:-reference standalone distributed}"
PG="${PG:-postgres://postgres@127.0.0.1:5432}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse-bench/better-auth-server}"
PORT="${PORT:-3410}" REF_PORT="${REF_PORT:-3411}"
OUT="$HERE/results/memory-$(date -u +%Y%m%dT%H%M%SZ)"
WORK="$(mktemp -d)"
mkdir -p "$OUT"
PIDS=() DBS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in "${DBS[@]:-}"; do [ -n "$db" ] && psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { printf '[%s] %s\n' "$(date -u +%T)" "$*" >&2; }
die() { log "$*"; exit 1; }

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [[ " $MODES " == *" standalone "* || " $MODES " == *" distributed "* ]] && [ -z "${GATEHOUSE_BIN:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
  (cd "$REPO" && cargo build --release --locked --bin gatehouse) >&2
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi

wait_ok() { # url
  for _ in $(seq 1 300); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done
  die "not ready: $1"
}

# rss_mib pid: the process's resident set, MiB with one decimal.
rss_mib() {
  local mib
  mib="$(awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$1/status" 2>/dev/null || true)"
  [ -n "$mib" ] || die "$MODE: process $1 is gone (see its log in $OUT)"
  echo "$mib"
}

# Every phase's reading of every process of the mode: "<mode> <phase> <process> <MiB>" lines.
READINGS="$WORK/readings"
read_all() { # phase
  sleep "$SETTLE"
  local name mib
  for name in "${!PROCS[@]}"; do
    mib="$(rss_mib "${PROCS[$name]}")" || exit 1
    echo "$MODE $1 $name $mib" >>"$READINGS"
  done
}

# One wrk run: name, URL, lua script, extra env → req/s on stdout. Every answer must be the
# expected one (the scripts count the others): a load of refusals would measure the wrong path.
load() {
  local file="$OUT/$MODE-$1.txt"
  env "${@:4}" ORIGIN="$ORIGIN" wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency -s "$3" "$2" >"$file" ||
    die "$MODE: wrk failed on $1 ($file)"
  grep -q '^unexpected responses: 0$' "$file" || die "$MODE: $1 had unexpected answers: $(grep '^unexpected' "$file")"
  awk '/Requests\/sec/ {print $2}' "$file"
}

# stop_all: the mode's processes, ended and waited for (the next mode takes the same port).
stop_all() {
  local pid
  for pid in "${PROCS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PROCS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# The admin, signed up and made admin by $1 (a command taking the email), its cookie in $COOKIE.
ADMIN_EMAIL=bench-memory@example.com ADMIN_PASSWORD=Bench-Password-123
sign_up_admin() {
  COOKIE="$(TARGET="$BASE" ORIGIN="$ORIGIN" BENCH_EMAIL="$ADMIN_EMAIL" BENCH_PASSWORD="$ADMIN_PASSWORD" bash "$HERE/setup-user.sh")"
  "$@" "$ADMIN_EMAIL" >/dev/null
}

# The phases, after the mode has started its processes (PROCS) and signed the admin up; the
# arguments seed the users admin-list pages through.
phases() {
  local rps=() round total=0 rate
  sleep "$IDLE_WAIT"
  read_all idle
  for round in $(seq 1 "$ROUNDS"); do
    rate="$(COOKIE="$COOKIE" load "get-session-$round" "$BASE/api/auth/get-session" "$HERE/get-session.lua")" || exit 1
    total="$(python3 -c "print($total + $rate)")"
  done
  rps+=("get-session=$(python3 -c "print(round($total / $ROUNDS))")")
  read_all get-session
  rate="$(load sign-in "$BASE/api/auth/sign-in/email" "$HERE/sign-in.lua" BENCH_EMAIL="$ADMIN_EMAIL" BENCH_PASSWORD="$ADMIN_PASSWORD")" || exit 1
  rps+=("sign-in=$rate")
  read_all sign-in
  "$@" >/dev/null
  local code
  code="$(curl -s -o "$WORK/list.json" -w '%{http_code}' -H "cookie: $COOKIE" "$BASE/api/auth/admin/list-users?limit=100")"
  [ "$code" = 200 ] || die "$MODE: list-users answered $code: $(cat "$WORK/list.json")"
  rate="$(COOKIE="$COOKIE" load admin-list "$BASE/api/auth/admin/list-users?limit=100&offset=500" "$HERE/get-session.lua")" || exit 1
  rps+=("admin-list=$rate")
  read_all admin-list
  echo "$MODE ${rps[*]}" >>"$WORK/throughput"
}

mode_reference() {
  if [ ! -d "$REF_CACHE/node_modules" ]; then
    mkdir -p "$REF_CACHE" && cp -r "$REF_SRC"/. "$REF_CACHE"/ && chmod -R u+w "$REF_CACHE"
    (cd "$REF_CACHE" && npm ci --silent) >&2
  fi
  local db="$WORK/ref.sqlite"
  (cd "$REF_CACHE" && PORT=$REF_PORT DB_PATH="$db" MAIL_LOG="$WORK/mail.jsonl" exec node server.mjs >"$OUT/reference.log" 2>&1) &
  PIDS+=($!)
  declare -gA PROCS=([node]=$!)
  BASE="http://127.0.0.1:$REF_PORT" ORIGIN="http://localhost:$REF_PORT"
  wait_ok "$BASE/api/auth/ok"
  make_admin() { DB_PATH="$db" node "$REF_CACHE/make-admin.mjs" --email "$1" 2>/dev/null; }
  sign_up_admin make_admin
  phases python3 "$HERE/seed_users.py" reference "$db" "$USERS"
  stop_all
}

mode_standalone() {
  local data="$WORK/standalone"
  mkdir -p "$data"
  env DATA_DIR="$data" GATEWAY_LISTEN=127.0.0.1:$PORT BASE_URL=http://localhost:$PORT \
    IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 \
    BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 \
    RATE_LIMIT_ENABLED=false SIGN_IN_THROTTLE_AFTER=1000000000 SIGN_IN_HASH_BUDGET=1000000 RUST_LOG=warn \
    "$GATEHOUSE_BIN" standalone >"$OUT/standalone.log" 2>&1 &
  PIDS+=($!)
  declare -gA PROCS=([gatehouse]=$!)
  BASE="http://127.0.0.1:$PORT" ORIGIN="http://localhost:$PORT"
  wait_ok "$BASE/api/auth/ok"
  make_admin() { DATA_DIR="$data" RUST_LOG=warn "$GATEHOUSE_BIN" admin grant --email "$1"; }
  sign_up_admin make_admin
  phases python3 "$HERE/seed_users.py" gatehouse-sqlite "$data" "$USERS"
  stop_all
}

mode_distributed() {
  local stamp part
  stamp="$(date +%s)"
  declare -A db
  for part in identity session mailer organization billing_webhook; do
    db[$part]="gh_bench_memory_${stamp}_$part"
    psql "$PG/postgres" -qc "CREATE DATABASE ${db[$part]}" || die "cannot create ${db[$part]} on $PG"
    DBS+=("${db[$part]}")
  done
  local token=bench-memory-service-token-0123456789abcdef
  local common=(SERVICE_TOKEN=$token CACHE_URL=redis://127.0.0.1:6379 BUS_URL=amqp://guest:guest@127.0.0.1:5672/%2f
    RUST_LOG=warn RATE_LIMIT_ENABLED=false SIGN_IN_THROTTLE_AFTER=1000000000 SIGN_IN_HASH_BUDGET=1000000
    IDENTITY_URL=http://127.0.0.1:50171 SESSION_URL=http://127.0.0.1:50172 MAILER_URL=http://127.0.0.1:50173
    ORGANIZATION_URL=http://127.0.0.1:50174 BILLING_WEBHOOK_URL=http://127.0.0.1:50175)
  declare -gA PROCS=()
  start() { # name, VAR=value…
    local name="$1"; shift
    env "${common[@]}" "$@" "$GATEHOUSE_BIN" "$name" >"$OUT/$name.log" 2>&1 &
    PIDS+=($!)
    PROCS[$name]=$!
  }
  start identity IDENTITY_LISTEN=127.0.0.1:50171 IDENTITY_OPS_LISTEN=127.0.0.1:0 IDENTITY_DATABASE_URL="$PG/${db[identity]}"
  start session SESSION_LISTEN=127.0.0.1:50172 SESSION_OPS_LISTEN=127.0.0.1:0 SESSION_DATABASE_URL="$PG/${db[session]}"
  start mailer MAILER_LISTEN=127.0.0.1:50173 MAILER_OPS_LISTEN=127.0.0.1:0 MAILER_DATABASE_URL="$PG/${db[mailer]}" MAIL_URL="file://$WORK/mail"
  start organization ORGANIZATION_LISTEN=127.0.0.1:50174 ORGANIZATION_OPS_LISTEN=127.0.0.1:0 ORGANIZATION_DATABASE_URL="$PG/${db[organization]}"
  start billing-webhook BILLING_WEBHOOK_LISTEN=127.0.0.1:50175 BILLING_WEBHOOK_OPS_LISTEN=127.0.0.1:0 BILLING_WEBHOOK_DATABASE_URL="$PG/${db[billing_webhook]}"
  start gateway GATEWAY_LISTEN=127.0.0.1:$PORT GATEWAY_OPS_LISTEN=127.0.0.1:0 BASE_URL=http://localhost:$PORT \
    AUTH_SECRET=bench-memory-auth-secret-0123456789abcdefghij
  BASE="http://127.0.0.1:$PORT" ORIGIN="http://localhost:$PORT"
  wait_ok "$BASE/api/auth/ok"
  make_admin() { IDENTITY_DATABASE_URL="$PG/${db[identity]}" RUST_LOG=warn "$GATEHOUSE_BIN" admin grant --email "$1"; }
  sign_up_admin make_admin
  phases python3 "$HERE/seed_users.py" gatehouse-postgres "$PG/${db[identity]}" "$PG/${db[session]}" "$USERS"
  stop_all
}

for MODE in $MODES; do
  log "mode $MODE"
  "mode_$MODE"
done

python3 "$HERE/summarize_memory.py" "$READINGS" "$WORK/throughput" "$OUT" \
  "wrk -t$THREADS -c$CONNS, get-session ${ROUNDS}×$DUR, sign-in and admin-list $DUR each, $USERS users; read ${SETTLE} s after each load, idle ${IDLE_WAIT} s after start; $PROFILE build" \
  ${CEILINGS:+--ceilings "$CEILINGS" --profile "$PROFILE"}
