#!/usr/bin/env bash
# The billing fan-out's latency (issue 12's targets: median intake-to-delivery <= 50 ms at a
# healthy local receiver; one endpoint answering after 10 s delays no other). A standalone
# Gatehouse (release build) takes RATE deliveries a second for SECONDS into the intake, each
# for one organization whose endpoints are receivers on loopback; bench/fan_out_latency.py
# serves them, sends, and prints each phase's figures as JSON.
#
#   GATEHOUSE_BIN=… RATE=100 SECONDS=20 bash bench/run-fan-out.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
RATE="${RATE:-100}" SECONDS_PER_PHASE="${SECONDS:-20}" SLOW_SECS="${SLOW_SECS:-10}" PORT=3403
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
  BILLING_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8 RATE_LIMIT_MAX=100000 \
  "$GATEHOUSE_BIN" standalone >"$WORK/gatehouse.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/api/auth/ok" >/dev/null 2>&1 && break; sleep 0.1; done
python3 "$HERE/fan_out_latency.py" "http://localhost:$PORT" "$SECRET" \
  "$REPO/services/billing-webhook/tests/fixtures/polar/order.paid.json" "$RATE" "$SECONDS_PER_PHASE" "$SLOW_SECS"
