#!/usr/bin/env bash
# The web app's numbers for issue 9: the production build's JavaScript per page (gzipped, the
# sign-in page's budget is 150 kB) and the sign-in page's first contentful paint under headless
# Chromium, cold and warm, served by a release build of the gateway (standalone mode).
#
#   bash bench/run-web.sh                 # RUNS=15; GATEHOUSE_BIN=… to skip the release build
#   BASELINE_WEB=/path/to/older/web/out   # also measures that export, served the same way, in
#                                         # the same run (the same binary, turn about)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
cd "$REPO"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
if [ -z "${GATEHOUSE_BIN:-}" ]; then
  cargo build --release --locked --bin gatehouse
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi
command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
npm ci --prefix web --no-audit --no-fund --silent
(cd web && NEXT_TELEMETRY_DISABLED=1 npm run --silent build >/dev/null)
echo "== JavaScript per page (gzip -9 of the scripts each page loads; noModule polyfills excluded)"
node web/scripts/postbuild.mjs --sizes-only

# serve DIR: a standalone stack serving the export DIR on a free port ($port, $pid).
serve() {
  work="$(mktemp -d)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  DATA_DIR="$work" WEB_DIR="$1" GATEWAY_LISTEN="127.0.0.1:$port" BASE_URL="http://localhost:$port" \
    IDENTITY_LISTEN=127.0.0.1:0 SESSION_LISTEN=127.0.0.1:0 MAILER_LISTEN=127.0.0.1:0 ORGANIZATION_LISTEN=127.0.0.1:0 BILLING_WEBHOOK_LISTEN=127.0.0.1:0 GATEWAY_OPS_LISTEN=127.0.0.1:0 RUST_LOG=warn \
    "$GATEHOUSE_BIN" standalone >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/api/auth/ok" >/dev/null 2>&1 && break; sleep 0.1; done
}
measure() {
  serve "$1"
  echo "== first contentful paint of $2 (headless Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), load average $(cut -d' ' -f1 /proc/loadavg))"
  GATEHOUSE_URL="http://localhost:$port" node "$HERE/web-fcp.mjs"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
measure "$REPO/web/out" "this build"
if [ -n "${BASELINE_WEB:-}" ]; then
  measure "$BASELINE_WEB" "the baseline ($BASELINE_WEB)"
  measure "$REPO/web/out" "this build, again"
fi
