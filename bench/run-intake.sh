#!/usr/bin/env bash
# The billing webhook intake under load (issue 12's target: >= 2000 events/s stored on
# PostgreSQL): N distinct signed deliveries of the order.paid fixture (3.4 kB), wrk
# -t$THREADS -c$CONNS, each delivery verified, stored durably and answered 202. Counts the rows
# stored afterwards; distributed, also how long the rest (outbox relay to RabbitMQ, projection
# and fan-out) takes after wrk stops to catch up with every stored event.
# - MODE=standalone (default): `gatehouse standalone`, SQLite (synchronous=FULL).
# - MODE=distributed: `gatehouse billing-webhook` on a fresh PostgreSQL database and RabbitMQ,
#   behind `gatehouse gateway` (the other parts are not needed for the intake).
#
#   GATEHOUSE_BIN=… N=60000 bash bench/run-intake.sh
#   GATEHOUSE_BIN=… MODE=distributed N=60000 bash bench/run-intake.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
N="${N:-60000}" CONNS="${CONNS:-32}" THREADS="${THREADS:-2}" DUR="${DUR:-30s}" PORT=3402
MODE="${MODE:-standalone}"
PG="${PG:-postgres://postgres@127.0.0.1:5432}"
BUS_URL="${BUS_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"
if [ -z "${GATEHOUSE_BIN:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
  (cd "$REPO" && cargo build --release --locked --bin gatehouse)
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi
WORK="$(mktemp -d)"
PIDS=() DB=""
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "$DB" ] && psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
SECRET="whsec_$(head -c 24 /dev/urandom | base64)"
TOKEN="gatehouse-bench-service-token-0123456789abcdef"
case "$MODE" in
  standalone)
    DATA_DIR="$WORK" GATEWAY_LISTEN=127.0.0.1:$PORT BASE_URL=http://localhost:$PORT \
      IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 \
      BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 POLAR_WEBHOOK_SECRET="$SECRET" RUST_LOG=warn \
      "$GATEHOUSE_BIN" standalone >"$WORK/gatehouse.log" 2>&1 &
    PIDS+=($!)
    count() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM received_events').fetchone()[0])" "$WORK/billing-webhook.sqlite"; }
    ;;
  distributed)
    DB="gatehouse_bench_intake_$(date +%s)"
    psql "$PG/postgres" -qc "CREATE DATABASE $DB" >/dev/null
    BILLING_WEBHOOK_LISTEN=127.0.0.1:50455 BILLING_WEBHOOK_OPS_LISTEN=127.0.0.1:0 BILLING_WEBHOOK_DATABASE_URL="$PG/$DB" \
      SERVICE_TOKEN="$TOKEN" BUS_URL="$BUS_URL" POLAR_WEBHOOK_SECRET="$SECRET" RUST_LOG=warn \
      "$GATEHOUSE_BIN" billing-webhook >"$WORK/billing-webhook.log" 2>&1 &
    PIDS+=($!)
    GATEWAY_LISTEN=127.0.0.1:$PORT GATEWAY_OPS_LISTEN=127.0.0.1:0 BASE_URL=http://localhost:$PORT SERVICE_TOKEN="$TOKEN" \
      BILLING_WEBHOOK_URL=http://127.0.0.1:50455 BUS_URL="$BUS_URL" AUTH_SECRET="gatehouse-bench-secret-0123456789abcdef" RUST_LOG=warn \
      "$GATEHOUSE_BIN" gateway >"$WORK/gateway.log" 2>&1 &
    PIDS+=($!)
    count() { psql "$PG/$DB" -Atc "SELECT COUNT(*) FROM received_events"; }
    ;;
  *) echo "MODE is standalone or distributed" >&2; exit 2 ;;
esac
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/api/auth/ok" >/dev/null 2>&1 && break; sleep 0.1; done
python3 "$HERE/sign_deliveries.py" "$SECRET" "$REPO/services/billing-webhook/tests/fixtures/polar/order.paid.json" "$N" >"$WORK/deliveries.tsv"
# Until the billing-webhook part answers (migrations done): one delivery of its own.
for _ in $(seq 1 300); do
  code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/api/billing/webhooks" -d '{}' || true)"
  [ "$code" = "403" ] && break
  sleep 0.1
done
DELIVERIES="$WORK/deliveries.tsv" THREADS="$THREADS" wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency \
  -s "$HERE/intake.lua" "http://127.0.0.1:$PORT/api/billing/webhooks" | tee "$WORK/wrk.txt"
echo "mode $MODE: stored events: $(count) of $N signed deliveries"
if [ "$MODE" = distributed ]; then
  # Each stored event is one outbox row and one inbox row (the billing-webhook.events consumer).
  behind() {
    psql "$PG/$DB" -Atc "SELECT (SELECT COUNT(*) FROM outbox WHERE published_at IS NULL) || ' ' || \
      (SELECT COUNT(*) FROM received_events) - (SELECT COUNT(*) FROM inbox)"
  }
  start=$(date +%s.%N)
  read -r unpublished unconsumed < <(behind)
  echo "when wrk stopped: $unpublished events not yet published, $unconsumed consumptions to go"
  for _ in $(seq 1 1200); do
    read -r unpublished unconsumed < <(behind)
    [ "$unpublished" = 0 ] && [ "$unconsumed" = 0 ] && break
    sleep 0.25
  done
  echo "caught up after $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)") s (left: $unpublished unpublished, $unconsumed unconsumed)"
fi
