#!/usr/bin/env bash
# The one run command: builds the web app (when its sources changed) and starts everything in
# one process — `gatehouse standalone`: SQLite under ./data, in-memory cache and bus, the web
# app at / and the auth API at /api/auth. Needs the Rust toolchain and Node.js 20.9+.
#
#   scripts/run.sh                # then open http://localhost:3000
#   GATEWAY_LISTEN=0.0.0.0:8080 BASE_URL=http://localhost:8080 scripts/run.sh
#
# Every setting is an environment variable (README, "Configuration").
set -euo pipefail
cd "$(dirname "$0")/.."

command -v node >/dev/null || { echo "Node.js 20.9 or newer is needed to build the web app (web/)" >&2; exit 1; }
if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  echo "installing the web app's dependencies (web/package-lock.json)"
  npm ci --prefix web --no-audit --no-fund --silent
fi
# Rebuild the static export only when something it is made of is newer than the last build.
if [ ! -f web/out/index.html ] || [ -n "$(find web/app web/components web/lib web/public web/scripts web/next.config.ts web/package.json web/package-lock.json web/tsconfig.json -newer web/out/index.html -print -quit)" ]; then
  echo "building the web app (web/out)"
  (cd web && NEXT_TELEMETRY_DISABLED=1 npm run build --silent >/dev/null)
fi
export WEB_DIR="${WEB_DIR:-$PWD/web/out}"
# A developer's machine: the mails the stack sends can be read in the web app's mailbox
# (/dev/mailbox/). Off unless set: mails carry live reset and verification links.
export DEV_MAILBOX="${DEV_MAILBOX:-true}"
exec cargo run --release --locked --bin gatehouse -- standalone
