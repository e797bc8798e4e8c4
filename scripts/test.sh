#!/usr/bin/env bash
# The one test command. Formatting and lints, every Rust suite (each storage suite on SQLite
# AND PostgreSQL; Redis and RabbitMQ outages; distributed mode as separate processes), the
# proto lint, the web app (typecheck, Vitest, production build and its budget, its API types
# against the served OpenAPI documents), the better-auth
# client conformance suite and the web app's Playwright tests against a running standalone
# stack, schemathesis against both OpenAPI documents, standalone's memory footprint against its
# recorded ceilings, and the Kubernetes manifests: rendered and validated, then played as real
# pods with podman.
# It starts PostgreSQL, Redis and RabbitMQ if they are down; a suite whose backend cannot be
# reached fails, it is never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"

step() { printf '\n== %s ==\n' "$*"; }

step "backends"
bash scripts/backends.sh
# Test databases and data directories are removed by the tests' own guards.

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

step "proto lint (buf)"
(cd proto && npx --yes @bufbuild/buf@1.75.0 lint)

step "SMTP server for the mailer's tests (aiosmtpd, in a venv)"
command -v openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq openssl >/dev/null; }
smtp_venv="$HOME/.cache/gatehouse-smtp-venv"
[ -x "$smtp_venv/bin/python" ] || python3 -m venv "$smtp_venv"
"$smtp_venv/bin/pip" install -q --disable-pip-version-check -r scripts/smtp-requirements.txt
export SMTP_SINK_PYTHON="$smtp_venv/bin/python"

step "the test OpenID provider (tests/oidc-provider: the identity suite and the conformance suite sign in through it)"
npm ci --prefix tests/oidc-provider --no-audit --no-fund --silent
(cd tests/oidc-provider && node --test)

step "Rust test suites (one binary per crate; storage cases named per backend)"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi

step "web app: typecheck, Vitest, production build (with its JavaScript budget)"
npm ci --prefix web --no-audit --no-fund --silent
(cd web && npm run --silent typecheck && npm test --silent && NEXT_TELEMETRY_DISABLED=1 npm run --silent build)

step "live standalone stack (serves the web app and /api/auth to the next two steps)"
cargo build --locked --bin gatehouse
# Every service's listener on a free loopback port, for each part `gatehouse parts` lists.
service_listeners="$("$CARGO_TARGET_DIR/debug/gatehouse" parts --json | python3 -c \
  'import json, sys; print(" ".join(p["listen_var"] + "=127.0.0.1:0" for p in json.load(sys.stdin) if p["url_var"]))')"
# start_stack DATA_DIR [VAR=value …]: a standalone Gatehouse on a free port with rate limits
# raised (the suites sign in many times from one address); sets $port and $stack_pid.
start_stack() {
  local dir="$1"; shift
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  env DATA_DIR="$dir" WEB_DIR="$PWD/web/out" GATEWAY_LISTEN="127.0.0.1:$port" BASE_URL="http://localhost:$port" \
    $service_listeners GATEWAY_OPS_LISTEN=127.0.0.1:0 \
    RATE_LIMIT_MAX=100000 RATE_LIMIT_SIGN_IN_MAX=100000 RATE_LIMIT_EMAIL_MAX=100000 DEV_MAILBOX=true JWT_SET_AUTH_HEADER=true RUST_LOG=warn "$@" \
    "$CARGO_TARGET_DIR/debug/gatehouse" standalone >"$dir/gatehouse.log" 2>&1 &
  stack_pid=$!
  for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/api/auth/ok" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "gatehouse did not start:"; cat "$dir/gatehouse.log"; return 1
}
# A real OpenID provider for social sign-in (tests/oidc-provider), as `test-oidc`.
oidc_log="$(mktemp)"
OIDC_PORT=9090 node tests/oidc-provider/server.mjs >"$oidc_log" 2>&1 &
oidc_pid=$!
for _ in $(seq 1 100); do
  curl -fs http://127.0.0.1:9090/health >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs http://127.0.0.1:9090/health >/dev/null || { echo "the OpenID provider did not start:"; cat "$oidc_log"; exit 1; }
export SOCIAL_PROVIDERS='{"test-oidc":{"clientId":"gatehouse-test","clientSecret":"gatehouse-test-secret","discoveryUrl":"http://127.0.0.1:9090/.well-known/openid-configuration"}}'
data_dir="$(mktemp -d)"
# The billing intake suite signs its deliveries with this secret, as the payments platform would.
export POLAR_WEBHOOK_SECRET="whsec_$(head -c 24 /dev/urandom | base64)"
# Loopback allowed as a destination: the fan-out suite's receiver listens there.
# Social sign-ins ask for a second factor too: the two-factor suite checks it.
# An operator's accent colour, light and dark: the brand suite checks the app wears it (and
# the accessibility audit that it still reads).
start_stack "$data_dir" POLAR_WEBHOOK_SECRET="$POLAR_WEBHOOK_SECRET" BILLING_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8 \
  TWO_FACTOR_SOCIAL_SIGN_IN=true BRAND_ACCENT='#0f766e' BRAND_ACCENT_DARK='#5eead4'
gatehouse_pid=$stack_pid
trap 'kill $gatehouse_pid $stack_pid $oidc_pid 2>/dev/null || true; rm -rf "$data_dir" "${mail_dir:-}" "${st_dir:-}" "$oidc_log"' EXIT
export GATEHOUSE_URL="http://localhost:$port"
# The admin tests make their admins with the same command an operator uses.
export ADMIN_GRANT_CMD="DATA_DIR=$data_dir RUST_LOG=warn $CARGO_TARGET_DIR/debug/gatehouse admin grant --email"
# …and their keys with server-set limits with the operator's command.
export API_KEY_CMD="DATA_DIR=$data_dir RUST_LOG=warn $CARGO_TARGET_DIR/debug/gatehouse api-key create --email"
show_log() { echo "--- gatehouse log ---"; cat "$data_dir/gatehouse.log"; }

step "better-auth client conformance (Node, better-auth 1.7.7)"
npm ci --prefix tests/conformance --no-audit --no-fund --silent
node --test tests/conformance/*.test.mjs tests/conformance/mail-flows/*.test.mjs || { show_log; exit 1; }

step "billing webhooks (Node: the intake, and our deliveries verified by standardwebhooks and the payments platform's SDKs)"
npm ci --prefix tests/billing --no-audit --no-fund --silent
node --test tests/billing/*.test.mjs || { show_log; exit 1; }

step "web app: its API types (web/lib/api/*.ts) match the OpenAPI documents this stack serves"
(cd web && npm run --silent api-types:check)

step "web app end to end (Playwright in Debian Chromium; failures keep screenshots in web/test-results/)"
command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
(cd web && npx --no-install playwright test) || { show_log; exit 1; }
kill "$gatehouse_pid"; wait "$gatehouse_pid" 2>/dev/null || true

step "account deletion confirmed by mail (a stack with DELETE_USER_VERIFY_BY_MAIL=true)"
mail_dir="$(mktemp -d)"
start_stack "$mail_dir" DELETE_USER_VERIFY_BY_MAIL=true
GATEHOUSE_URL="http://localhost:$port" DELETE_ACCOUNT_MAIL=1 node --test tests/conformance/mail-flows/delete-user.test.mjs ||
  { cat "$mail_dir/gatehouse.log"; exit 1; }
kill "$stack_pid"; wait "$stack_pid" 2>/dev/null || true
rm -rf "$mail_dir"

step "schemathesis: both OpenAPI documents against a fresh stack (scripts/schemathesis.sh)"
# Its own stack: the run makes, bans and deletes users, organizations and endpoints.
# Endpoints it registers point at loopback only (the hooks), which this allows.
st_dir="$(mktemp -d)"
start_stack "$st_dir" BILLING_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8
GATEHOUSE_URL="http://localhost:$port" \
  ADMIN_GRANT_CMD="DATA_DIR=$st_dir RUST_LOG=warn $CARGO_TARGET_DIR/debug/gatehouse admin grant --email" \
  bash scripts/schemathesis.sh "$st_dir/reports" || { tail -n 200 "$st_dir/gatehouse.log"; exit 1; }
kill "$stack_pid"; wait "$stack_pid" 2>/dev/null || true
rm -rf "$st_dir"

step "memory footprint: standalone idle and after load within its recorded ceilings (bench/run-memory.sh, bench/memory-ceilings.json)"
# The debug binary this command built: its own ceilings (the release figures are in bench/RESULTS.md).
MODES=standalone PROFILE=debug DUR=3s USERS=1000 CEILINGS=bench/memory-ceilings.json \
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')" \
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/debug/gatehouse" bash bench/run-memory.sh

step "Kubernetes manifests (render, validate offline, one set per part)"
command -v kubectl >/dev/null || { apt-get update -qq && apt-get install -y -qq kubectl >/dev/null; }
venv="$HOME/.cache/gatehouse-k8s-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/k8s-requirements.txt
"$venv/bin/python" scripts/k8s-check.py "$CARGO_TARGET_DIR/debug/gatehouse"

step "Kubernetes pods (podman: the image, the dev overlay played, a smoke test, a trace)"
bash scripts/podman-image.sh "$CARGO_TARGET_DIR/debug/gatehouse" web/out localhost/gatehouse:dev
"$venv/bin/python" scripts/pods-smoke.py localhost/gatehouse:dev
