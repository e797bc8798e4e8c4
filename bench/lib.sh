# Shared set-up of the benchmarks that run Gatehouse standalone beside the reference server
# (bench/run-api-key.sh, bench/run-jwt.sh). Sourced after the caller has set OUT, REPO,
# REF_SRC, REF_CACHE, CARGO_TARGET_DIR and defined log and die.

# bench_tools port...: wrk and oha (OHA; installed into $HOME/.cache/oha once when missing), and
# the ports free.
bench_tools() {
  command -v wrk >/dev/null || apt-get install -y wrk >/dev/null || die "wrk is missing (apt-get install -y wrk)"
  OHA="${OHA:-$(command -v oha || echo "$HOME/.cache/oha/bin/oha")}"
  if [ ! -x "$OHA" ]; then
    log "cargo install oha --locked (once, a few minutes) into $HOME/.cache/oha"
    cargo install oha --locked --root "$HOME/.cache/oha" >"$OUT/oha-install.log" 2>&1 ||
      { tail -n 20 "$OUT/oha-install.log"; die "could not install oha"; }
    OHA="$HOME/.cache/oha/bin/oha"
  fi
  local port
  for port in "$@"; do
    ! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/" || die "port $port is taken"
  done
}

# gatehouse_binary: GATEHOUSE_BIN, else a release build of this checkout.
gatehouse_binary() {
  if [ -z "${GATEHOUSE_BIN:-}" ]; then
    log "cargo build --release --locked --bin gatehouse (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
    cargo build --release --locked --bin gatehouse >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
    GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
  fi
  [ -x "$GATEHOUSE_BIN" ] || die "no gatehouse binary at $GATEHOUSE_BIN"
}

# reference_server: a writable copy of the reference server with its node_modules (npm ci when
# its lock file changed), and bench/api-key-reference.mjs beside it.
reference_server() {
  mkdir -p "$REF_CACHE"
  if [ ! -d "$REF_CACHE/node_modules/better-auth" ] || ! cmp -s "$REF_SRC/package-lock.json" "$REF_CACHE/package-lock.json"; then
    log "npm ci of the reference server in $REF_CACHE"
    tar -C "$REF_SRC" --exclude=./node_modules --exclude=./bench/results -cf - . | tar -C "$REF_CACHE" -xf -
    chmod -R u+w "$REF_CACHE"
    (cd "$REF_CACHE" && npm ci --no-audit --no-fund) >"$OUT/npm-ci.log" 2>&1 || { tail -n 30 "$OUT/npm-ci.log"; die "npm ci failed"; }
  fi
  cp "$REPO/bench/api-key-reference.mjs" "$REF_CACHE/api-key-reference.mjs"
}

# wait_for url pid log: until url answers, failing when the process behind it exits.
wait_for() {
  for _ in $(seq 1 600); do
    curl -fs --max-time 2 "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { tail -n 30 "$3" >&2; die "the server behind $1 exited"; }
    sleep 0.1
  done
  tail -n 30 "$3" >&2
  die "not ready after 60 s: $1"
}

# service_listeners: every service's gRPC listener on a free loopback port, as VAR=value words
# (another stack may hold the defaults).
service_listeners() {
  local listeners
  listeners="$("$GATEHOUSE_BIN" parts --json | python3 -c \
    'import json, sys; print(" ".join(p["listen_var"] + "=127.0.0.1:0" for p in json.load(sys.stdin) if p["url_var"]))')"
  [ -n "$listeners" ] || die "'gatehouse parts --json' listed no service listener"
  echo "$listeners"
}

# bench_env: what the run measured on, into $OUT/env.txt (the machine, the tools, the binary).
bench_env() {
  {
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host_nproc=$(nproc)"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "wrk=$(wrk -v 2>&1 | head -n 1)"
    echo "oha=$("$OHA" --version 2>&1 | head -n 1)"
    echo "node=$(node --version)"
    echo "gatehouse_bin_sha256=$(sha256sum "$GATEHOUSE_BIN" | cut -d' ' -f1)"
    echo "git_head=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)"
  } >"$OUT/env.txt"
}
