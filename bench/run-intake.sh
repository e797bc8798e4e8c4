#!/usr/bin/env bash
# The billing webhook intake under load (issue 12's target: >= 2000 events/s stored): a
# standalone Gatehouse (release build) takes N distinct signed deliveries of the order.paid
# fixture (3.4 kB), wrk -t$THREADS -c$CONNS, each delivery verified, stored durably (SQLite,
# synchronous=FULL) and answered 202. Counts the rows stored afterwards.
#
#   GATEHOUSE_BIN=… N=60000 bash bench/run-intake.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
N="${N:-60000}" CONNS="${CONNS:-32}" THREADS="${THREADS:-2}" DUR="${DUR:-30s}" PORT=3402
if [ -z "${GATEHOUSE_BIN:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
  (cd "$REPO" && cargo build --release --locked --bin gatehouse)
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi
WORK="$(mktemp -d)"
trap 'kill $pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
SECRET="whsec_$(head -c 24 /dev/urandom | base64)"
DATA_DIR="$WORK" GATEWAY_LISTEN=127.0.0.1:$PORT BASE_URL=http://localhost:$PORT \
  IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 \
  BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 POLAR_WEBHOOK_SECRET="$SECRET" RUST_LOG=warn \
  "$GATEHOUSE_BIN" standalone >"$WORK/gatehouse.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/api/auth/ok" >/dev/null 2>&1 && break; sleep 0.1; done
python3 "$HERE/sign_deliveries.py" "$SECRET" "$REPO/services/billing-webhook/tests/fixtures/polar/order.paid.json" "$N" >"$WORK/deliveries.tsv"
DELIVERIES="$WORK/deliveries.tsv" THREADS="$THREADS" wrk -t"$THREADS" -c"$CONNS" -d"$DUR" --latency \
  -s "$HERE/intake.lua" "http://127.0.0.1:$PORT/api/billing/webhooks" | tee "$WORK/wrk.txt"
stored="$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM received_events').fetchone()[0])" "$WORK/billing-webhook.sqlite")"
echo "stored events: $stored of $N signed deliveries"
