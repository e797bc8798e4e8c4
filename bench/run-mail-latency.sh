#!/usr/bin/env bash
# A request that sends mail never waits for SMTP (issue 10): POST /request-password-reset with
# wrk against a standalone stack whose mailer sends to a real SMTP server (aiosmtpd), first
# with the server up, then with it down (connection refused); then the server comes back and
# every mail requested must arrive. The better-auth reference answers the same request in the
# same run for comparison (its mail callback writes a log line before it answers).
#
#   bash bench/run-mail-latency.sh     # DUR=10s CONNS=16 THREADS=2 GATEHOUSE_BIN=… REF_CACHE=…
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
DUR="${DUR:-10s}" CONNS="${CONNS:-16}" THREADS="${THREADS:-2}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse-bench/better-auth-server}"
PORT=3410 REF_PORT=3411
EMAIL=bench-reset@example.com
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { printf '[%s] %s\n' "$(date -u +%T)" "$*"; }
wait_ok() { for _ in $(seq 1 300); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "not ready: $1" >&2; return 1; }

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
venv="$HOME/.cache/gatehouse-smtp-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$REPO/scripts/smtp-requirements.txt"
if [ -z "${GATEHOUSE_BIN:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
  (cd "$REPO" && cargo build --release --locked --bin gatehouse)
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi

sign_up() { # base URL
  curl -fs -o /dev/null -H "origin: http://localhost:${1##*:}" -H 'content-type: application/json' \
    "$1/api/auth/sign-up/email" -d "{\"name\":\"Bench Reset\",\"email\":\"$EMAIL\",\"password\":\"Correct-Horse-9\"}"
}

# One wrk run → "name: req/s, p50, p99, unexpected", and the count of 200s in $WORK/<name>.ok.
measure() { # name base-url
  local file="$WORK/$1.txt"
  BENCH_EMAIL="$EMAIL" ORIGIN="http://localhost:${2##*:}" \
    wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency -s "$HERE/request-password-reset.lua" "$2" >"$file"
  local rps p50 p99 bad total
  rps=$(awk '/Requests\/sec/ {print $2}' "$file")
  p50=$(awk -F'[ =]' '/latency_us/ {print $3}' "$file")
  p99=$(awk -F'[ =]' '/latency_us/ {print $7}' "$file")
  bad=$(awk '/unexpected responses/ {print $3}' "$file")
  total=$(awk '/requests in/ {print $1}' "$file")
  echo $((total - bad)) >"$WORK/$1.ok"
  printf '| %s | %s | %.1f | %.1f | %s |\n' "$1" "$rps" "$(echo "$p50/1000" | bc -l)" "$(echo "$p99/1000" | bc -l)" "$bad"
}

echo "# POST /request-password-reset, wrk -t$THREADS -c$CONNS -d$DUR ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| run | req/s | p50 ms | p99 ms | non-200 |"
echo "|---|---|---|---|---|"

# The reference, same request, same machine.
if [ ! -d "$REF_CACHE/node_modules" ]; then
  mkdir -p "$REF_CACHE" && cp -r "$REF_SRC"/. "$REF_CACHE"/ && chmod -R u+w "$REF_CACHE"
  (cd "$REF_CACHE" && npm ci --silent)
fi
(cd "$REF_CACHE" && PORT=$REF_PORT DB_PATH="$WORK/ref.sqlite" MAIL_LOG="$WORK/ref-mail.jsonl" exec node server.mjs >"$WORK/reference.log" 2>&1) &
PIDS+=($!)
wait_ok "http://127.0.0.1:$REF_PORT/api/auth/ok"
sign_up "http://127.0.0.1:$REF_PORT"
measure "reference" "http://127.0.0.1:$REF_PORT"
kill "${PIDS[-1]}"

smtp_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# Each start of the SMTP server writes to a folder of its own: it numbers its files from 1.
start_sink() { # folder
  mkdir -p "$WORK/$1"
  "$venv/bin/python" "$REPO/services/mailer/tests/smtp_sink.py" "$smtp_port" "$WORK/$1" >/dev/null & SINK=$!
  PIDS+=($SINK); sleep 1
}
start_sink spool-first
DATA_DIR="$WORK/data" GATEWAY_LISTEN="127.0.0.1:$PORT" BASE_URL="http://localhost:$PORT" \
  IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 \
  MAIL_URL="smtp://127.0.0.1:$smtp_port" MAIL_RETRY_MAX_DELAY=5 RATE_LIMIT_ENABLED=false RUST_LOG=warn \
  "$GATEHOUSE_BIN" standalone >"$WORK/gatehouse.log" 2>&1 &
PIDS+=($!)
wait_ok "http://127.0.0.1:$PORT/api/auth/ok"
sign_up "http://127.0.0.1:$PORT"
measure "Gatehouse, SMTP up" "http://127.0.0.1:$PORT"
kill "$SINK"; wait "$SINK" 2>/dev/null || true
measure "Gatehouse, SMTP down" "http://127.0.0.1:$PORT"
start_sink spool-back
wanted=$(( $(cat "$WORK/Gatehouse, SMTP up.ok") + $(cat "$WORK/Gatehouse, SMTP down.ok") ))
started=$(date +%s)
for _ in $(seq 1 600); do
  got=$(find "$WORK"/spool-* -name '*.eml' | wc -l)
  [ "$got" -ge "$wanted" ] && break
  sleep 1
done
echo
echo "Mails answered 200 by wrk: $wanted; received by the SMTP server (both starts): $got, all in $(( $(date +%s) - started )) s after it came back."
