#!/usr/bin/env bash
# get-session latency in distributed mode while Redis goes silent (a partition: connections
# open, nothing answers), for one or more gatehouse binaries side by side.
#
#   BINS="before:/tmp/gatehouse-old after:target/release/gatehouse" bash bench/redis-outage.sh
#
# For each binary: identity, session and gateway on fresh PostgreSQL databases, the cache
# behind bench/blackhole_proxy.py; wrk -t1 -c4 for DUR on get-session with Redis answering,
# then again with the proxy silent. Needs PostgreSQL (createdb/dropdb), Redis, RabbitMQ, wrk.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINS="${BINS:?BINS=\"label:/path/to/gatehouse ...\"}"
DUR="${DUR:-10s}"
PG="${PG:-postgres://postgres@127.0.0.1:5432}"
REDIS_PORT="${REDIS_PORT:-6379}"
PROXY_PORT="${PROXY_PORT:-6390}"
GATEWAY_PORT="${GATEWAY_PORT:-3310}"
ORIGIN="http://localhost:$GATEWAY_PORT"
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in "${DBS[@]:-}"; do [ -n "$db" ] && dropdb -h 127.0.0.1 -U postgres --if-exists "$db" 2>/dev/null || true; done
  [ -n "${KEEP_LOGS:-}" ] && cp -r "$WORK" "$KEEP_LOGS"; rm -rf "$WORK"
}
DBS=()
trap cleanup EXIT

echo up >"$WORK/control"
python3 "$HERE/blackhole_proxy.py" "$PROXY_PORT" 127.0.0.1 "$REDIS_PORT" "$WORK/control" &
PIDS+=($!)

measure() { # label -> prints p50/p99 in ms
  local out
  out="$(COOKIE="$COOKIE" ORIGIN="$ORIGIN" wrk -t1 -c4 -d"$DUR" --timeout 10s -s "$HERE/get-session.lua" \
    "http://127.0.0.1:$GATEWAY_PORT/api/auth/get-session" 2>&1)"
  local rps p50 p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p50="$(grep -o 'p50=[0-9]*' <<<"$out" | head -1 | cut -d= -f2)"
  p99="$(grep -o 'p99=[0-9]*' <<<"$out" | head -1 | cut -d= -f2)"
  printf '%s req/s, p50 %.2f ms, p99 %.2f ms' "$rps" "$(bc -l <<<"$p50/1000")" "$(bc -l <<<"$p99/1000")"
}

echo "| binary | Redis answering | Redis silent |"
echo "|---|---|---|"
for entry in $BINS; do
  label="${entry%%:*}" bin="${entry#*:}"
  run="${label}_$$"
  idb="outage_${run}_identity" sdb="outage_${run}_session"
  createdb -h 127.0.0.1 -U postgres "$idb"; createdb -h 127.0.0.1 -U postgres "$sdb"
  DBS+=("$idb" "$sdb")
  common=(CACHE_URL="redis://127.0.0.1:$PROXY_PORT" BUS_URL="amqp://guest:guest@127.0.0.1:5672/%2f"
    SERVICE_TOKEN="outage-bench-service-token-0123456789abcdef" RUST_LOG="${RUST_LOG:-error}" RATE_LIMIT_ENABLED=false)
  env "${common[@]}" IDENTITY_LISTEN=127.0.0.1:50161 IDENTITY_OPS_LISTEN=127.0.0.1:9321 \
    IDENTITY_DATABASE_URL="$PG/$idb" "$bin" identity >"$WORK/$label-identity.log" 2>&1 &
  PIDS+=($!)
  env "${common[@]}" SESSION_LISTEN=127.0.0.1:50162 SESSION_OPS_LISTEN=127.0.0.1:9322 \
    SESSION_DATABASE_URL="$PG/$sdb" IDENTITY_URL=http://127.0.0.1:50161 "$bin" session >"$WORK/$label-session.log" 2>&1 &
  PIDS+=($!)
  env "${common[@]}" GATEWAY_LISTEN="127.0.0.1:$GATEWAY_PORT" GATEWAY_OPS_LISTEN=127.0.0.1:9320 \
    BASE_URL="$ORIGIN" AUTH_SECRET=outage-bench-secret-0123456789abcdefghij \
    IDENTITY_URL=http://127.0.0.1:50161 SESSION_URL=http://127.0.0.1:50162 "$bin" gateway >"$WORK/$label-gateway.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do curl -fs "$ORIGIN/api/auth/ok" >/dev/null 2>&1 && break; sleep 0.1; done
  COOKIE="$(TARGET="http://127.0.0.1:$GATEWAY_PORT" ORIGIN="$ORIGIN" BENCH_EMAIL="outage-$run@example.com" \
    bash "$HERE/setup-user.sh" 2>"$WORK/$label-setup.log")"
  up="$(measure)"
  echo down >"$WORK/control"
  sleep 1
  down="$(measure)"
  echo up >"$WORK/control"
  echo "| $label | $up | $down |"
  for pid in "${PIDS[@]:1}"; do kill "$pid" 2>/dev/null || true; done
  sleep 1
  PIDS=("${PIDS[0]}")
done
