#!/usr/bin/env bash
# A stand-in for the `gatehouse` binary, to test bench/run.sh end to end
# before the Rust binary exists. It measures NOTHING about Gatehouse: the
# HTTP-facing subcommands run the reference better-auth server instead, the
# gRPC ones a dummy listener.
#
#   MODES="standalone distributed" DUR=3s WARMUP=1s \
#     GATEHOUSE_BIN=bench/selftest/fake-gatehouse.sh bash bench/run.sh
#
# Needs the reference server's copy with node_modules, which a run of
# bench/run.sh with the reference mode leaves in FAKE_REF_DIR (default
# ~/.cache/gatehouse-bench/better-auth-server).
set -euo pipefail
REF="${FAKE_REF_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse-bench/better-auth-server}"
case "${1:-}" in
hash-timing)
  echo "argon2id_ms=${FAKE_ARGON2ID_MS:-50}"
  ;;
standalone | gateway)
  listen="${GATEWAY_LISTEN:-127.0.0.1:3000}"
  cc=0
  [ "${COOKIE_CACHE_ENABLED:-false}" = true ] && cc=1
  db=":memory:"
  [ "$1" = standalone ] && mkdir -p "${DATA_DIR:-./data}" && db="${DATA_DIR:-./data}/fake.sqlite"
  cd "$REF"
  exec env HOST="${listen%:*}" PORT="${listen##*:}" BETTER_AUTH_URL="${BASE_URL:-http://localhost:3000}" \
    DB_PATH="$db" MAIL_LOG=/dev/null COOKIE_CACHE="$cc" node server.mjs
  ;;
identity | session)
  var="$(tr '[:lower:]' '[:upper:]' <<<"$1")_LISTEN"
  listen="${!var:?$var is not set}"
  empty="$(mktemp -d)"
  exec python3 -m http.server "${listen##*:}" --bind "${listen%:*}" --directory "$empty"
  ;;
*)
  echo "usage: $0 standalone|identity|session|gateway|hash-timing" >&2
  exit 2
  ;;
esac
