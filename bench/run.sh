#!/usr/bin/env bash
# Gatehouse load benchmark, side by side with the reference better-auth server,
# on this machine, in one run. Writes bench/results/<UTC stamp>/ (gitignored):
# raw wrk outputs, server logs, RSS and CPU samples, summary.md and summary.json.
#
#   bash bench/run.sh                                  # everything, ~5 min + the release build
#   DUR=5s WARMUP=1s bash bench/run.sh                 # quicker, noisier
#   MODES=standalone GATEHOUSE_BIN=/path/gatehouse bash bench/run.sh
#   MODES=reference bash bench/run.sh                  # the reference alone (no Rust needed)
#
# Modes (MODES, space separated; default "reference standalone distributed"):
#   reference    the reference server's own bench/run-bench.sh (get-session with
#                and without cookie cache, sign-in at 32 and at 1 connection), run
#                from a writable copy of shared/reference/better-auth-server, plus
#                this harness's "mixed" scenario against the reference
#   standalone   `gatehouse standalone` (SQLite in a fresh DATA_DIR, in-memory cache/bus)
#   distributed  `gatehouse identity` + `gatehouse session` + `gatehouse gateway`
#                (fresh PostgreSQL databases per start, dropped afterwards; Redis; RabbitMQ)
# Scenarios for the Gatehouse modes (SCENARIOS; default all five):
#   get-session  GET /api/auth/get-session, -t$THREADS -c$CONNS, cookie cache off
#   sign-in      POST /api/auth/sign-in/email, -t$THREADS -c$CONNS (saturated)
#   sign-in-c1   the same at -t1 -c1: one unqueued sign-in (≈ one password hash)
#   mixed        sign-in -t1 -c$MIX_CONNS and get-session -t1 -c$MIX_CONNS at once:
#                get-session latency while sign-in saturates the CPU
#   cookiecache  get-session with COOKIE_CACHE_ENABLED=true (server restarted; the
#                client sends both session_token and session_data cookies)
# The sign-in protections are OFF too (SIGN_IN_THROTTLE_AFTER and SIGN_IN_HASH_BUDGET out of
# reach): the sign-in scenarios sign one account in from 32 connections to measure hashing
# throughput, which is exactly what the per-account throttle and the budget refuse with 429.
# Rate limiting is OFF in every Gatehouse process (RATE_LIMIT_ENABLED=false) and in
# the reference (its default).
#
# Knobs (env): DUR=15s WARMUP=3s THREADS=2 CONNS=32 TIMEOUT=30s MIX_CONNS=16
#   GATEHOUSE_BIN (skip the build), CARGO_TARGET_DIR (default ~/.cache/gatehouse-target),
#   BUILD_TIMEOUT=2400 (s), READY_TIMEOUT=60 (s), REF_PORT=3200, GATEWAY_PORT=3300,
#   IDENTITY_PORT=50151, SESSION_PORT=50152, GATEWAY_OPS_PORT=9310, IDENTITY_OPS_PORT=9311,
#   SESSION_OPS_PORT=9312 (metrics and health), SERVICE_TOKEN, PG_HOST=127.0.0.1 PG_PORT=5432 PG_USER=postgres,
#   BUS_URL, CACHE_URL, AUTH_SECRET, COOKIE_CACHE_MAX_AGE=300, RUST_LOG=warn,
#   REF_SRC (the reference server), REF_CACHE (its writable copy with node_modules),
#   BENCH_NICE=-10 (the harness renices itself, and so every server and wrk, to
#   this priority after the build; 0 = off), STRICT=1 (exit 1 when a target is missed),
#   QUIET_MAX=0.3 QUIET_WAIT=20 QUIET_BUDGET=180 (before each measurement wait up to
#   QUIET_WAIT s, at most QUIET_BUDGET s per run, for the machine to use <= QUIET_MAX
#   cores; summary.md flags scenarios during which other processes used more;
#   QUIET_WAIT=0 disables the wait). Full table: bench/RESULTS.md.
# Exit status: 0 when every mode ran (targets missed are reported, not fatal unless
# STRICT=1), 1 when a mode failed or a prerequisite is missing.
set -euo pipefail
shopt -s inherit_errexit 2>/dev/null || true

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse-bench/better-auth-server}"

DUR="${DUR:-15s}"
WARMUP="${WARMUP:-3s}"
THREADS="${THREADS:-2}"
CONNS="${CONNS:-32}"
TIMEOUT="${TIMEOUT:-30s}" # wrk's default 2s would drop queued sign-ins (see the reference)
MIX_CONNS="${MIX_CONNS:-16}"
MODES="${MODES:-reference standalone distributed}"
SCENARIOS="${SCENARIOS:-get-session sign-in sign-in-c1 mixed cookiecache}"
REF_PORT="${REF_PORT:-3200}"
GATEWAY_PORT="${GATEWAY_PORT:-3300}"
IDENTITY_PORT="${IDENTITY_PORT:-50151}"
SESSION_PORT="${SESSION_PORT:-50152}"
GATEWAY_OPS_PORT="${GATEWAY_OPS_PORT:-9310}"
IDENTITY_OPS_PORT="${IDENTITY_OPS_PORT:-9311}"
SESSION_OPS_PORT="${SESSION_OPS_PORT:-9312}"
SIGN_IN_OFF="SIGN_IN_THROTTLE_AFTER=1000000000 SIGN_IN_HASH_BUDGET=1000000"
SERVICE_TOKEN="${SERVICE_TOKEN:-gatehouse-bench-service-token-0123456789abcdef}"
PG_HOST="${PG_HOST:-127.0.0.1}"
PG_PORT="${PG_PORT:-5432}"
PG_USER="${PG_USER:-postgres}"
BUS_URL="${BUS_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"
CACHE_URL="${CACHE_URL:-redis://127.0.0.1:6379}"
AUTH_SECRET="${AUTH_SECRET:-gatehouse-bench-secret-0123456789abcdefghijklmnop}"
COOKIE_CACHE_MAX_AGE="${COOKIE_CACHE_MAX_AGE:-300}" # the reference's cookie cache lives 5 min
RUST_LOG="${RUST_LOG:-warn}"
BENCH_PASSWORD="${BENCH_PASSWORD:-Bench-Password-123}"
READY_TIMEOUT="${READY_TIMEOUT:-60}"
QUIET_MAX="${QUIET_MAX:-0.3}"
BENCH_NICE="${BENCH_NICE:--10}"
QUIET_WAIT="${QUIET_WAIT:-20}"
QUIET_BUDGET="${QUIET_BUDGET:-180}"
export QUIET_MAX
BUILD_TIMEOUT="${BUILD_TIMEOUT:-2400}"
SAMPLE_INTERVAL="${SAMPLE_INTERVAL:-0.2}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
export BENCH_PASSWORD

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RUN_ID="$(tr '[:upper:]' '[:lower:]' <<<"$STAMP")"
OUT="$HERE/results/$STAMP"
[ ! -e "$OUT" ] || OUT="$OUT-$$" # two runs in the same second
FAILED=0
CPUMON=""

# ---------------------------------------------------------------- helpers ----
log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

# wrk-style duration -> whole seconds
secs() {
  case "$1" in
  *ms) echo 1 ;;
  *s) echo "${1%s}" ;;
  *m) echo $((${1%m} * 60)) ;;
  *h) echo $((${1%h} * 3600)) ;;
  *) echo "$1" ;;
  esac
}
DUR_S="$(secs "$DUR")"
WARMUP_S="$(secs "$WARMUP")"
TIMEOUT_S="$(secs "$TIMEOUT")"
[[ "$DUR_S" =~ ^[0-9]+$ && "$WARMUP_S" =~ ^[0-9]+$ && "$TIMEOUT_S" =~ ^[0-9]+$ ]] ||
  die "DUR/WARMUP/TIMEOUT must be whole seconds, minutes or hours (e.g. 15s, 1m)"
WRK_LIMIT=$((DUR_S + TIMEOUT_S + 30)) # hard bound on one wrk run
for m in $MODES; do
  case "$m" in reference | standalone | distributed) ;; *) die "unknown mode '$m' in MODES" ;; esac
done
for s in $SCENARIOS; do
  case "$s" in get-session | sign-in | sign-in-c1 | mixed | cookiecache) ;; *) die "unknown scenario '$s' in SCENARIOS" ;; esac
done
mkdir -p "$OUT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-bench.XXXXXX")" # removed by cleanup (trap below)
REG="$WORK/pids" # "<pid> <kind> <name>" of everything started: kind = proc | group
DBREG="$WORK/dbs" # databases created
: >"$REG"
: >"$DBREG"

register() { echo "$1 $2 $3" >>"$REG"; }
unregister() {
  awk -v p="$1" '$1 != p' "$REG" >"$REG.tmp" 2>/dev/null || true
  mv -f "$REG.tmp" "$REG" 2>/dev/null || true
}
alive() { # not gone and not a zombie
  local st
  st="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
terminate() { # pid [grace seconds] [group]: TERM, then KILL after the grace period
  local pid="$1" grace="${2:-10}" group="${3:-}" target i
  target="$pid"
  [ -n "$group" ] && target="-$pid"
  alive "$pid" || { [ -z "$group" ] || kill -KILL -- "$target" 2>/dev/null || true; return 0; }
  kill -TERM -- "$target" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  kill -KILL -- "$target" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# run a command in the background (so signals are handled at once), registered,
# bounded by timeout(1); stdout+stderr to $1
run_tracked() { # outfile limit_s cmd...
  local out="$1" limit="$2" pid rc=0
  shift 2
  timeout -k 5 "$limit" "$@" >"$out" 2>&1 &
  pid=$!
  register "$pid" proc "${1##*/}"
  wait "$pid" || rc=$?
  unregister "$pid"
  return "$rc"
}

port_busy() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
need_port_free() { ! port_busy 127.0.0.1 "$1" || die "port $1 is in use (set ${2}=another port)"; }

rss_kb() { # VmRSS of one process in KiB (0 when it is gone)
  local v
  v="$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null)" || true
  echo "${v:-0}"
}
cpu_ticks() { # utime+stime of one process in clock ticks (0 when it is gone)
  local v
  v="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}')" || true
  echo "${v:-0}"
}
now() { date +%s.%N; }
mark() { echo "$1 $2 $3 $(now)" >>"$OUT/markers.txt"; } # mode scenario start|end

want() { [[ " $SCENARIOS " == *" $1 "* ]]; }

# Wait (at most QUIET_WAIT s each time, QUIET_BUDGET s per run) until the whole
# machine uses at most QUIET_MAX cores: other work (a cargo build, a test suite)
# steals CPU from the servers under test. Called before each measurement, when
# the bench's own servers are idle. Goes on with a note if it stays busy;
# summary.md then flags the scenarios that ran on a busy machine.
busy_cores() { # machine-wide busy cores over one second
  local a b
  a="$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat)"
  sleep 1
  b="$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat)"
  awk -v a="$a" -v b="$b" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz}'
}
wait_quiet() { # label
  local start=$SECONDS c spent
  ((QUIET_WAIT > 0)) || return 0
  while :; do
    c="$(busy_cores)"
    awk -v c="$c" -v m="$QUIET_MAX" 'BEGIN {exit !(c <= m)}' && break
    spent="$(cat "$WORK/quiet-spent" 2>/dev/null || echo 0)"
    if ((SECONDS - start >= QUIET_WAIT || spent + SECONDS - start >= QUIET_BUDGET)); then
      log "$1: machine still busy ($c cores in use); going on (see Warnings in summary.md)"
      break
    fi
    ((SECONDS - start > 1)) || log "$1: waiting for the machine to be quiet ($c cores in use, want <= $QUIET_MAX)"
  done
  echo $(($(cat "$WORK/quiet-spent" 2>/dev/null || echo 0) + SECONDS - start)) >"$WORK/quiet-spent"
}

# ------------------------------------------------------------- cleanup -------
cleanup() {
  local rc=$? pid kind name db
  trap - EXIT INT TERM
  if [ -s "$REG" ]; then
    log "cleanup: stopping what is still running"
    # newest first: wrk and samplers before servers before mode subshells
    while read -r pid kind name; do
      [ -n "$pid" ] || continue
      log "  stopping $name ($pid)"
      if [ "$kind" = group ]; then terminate "$pid" 10 group; else terminate "$pid" 10; fi
    done < <(tac "$REG")
    : >"$REG"
  fi
  if [ -s "$DBREG" ]; then
    while read -r db; do
      [ -n "$db" ] || continue
      if psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -qAt -c "drop database if exists \"$db\" with (force)" >/dev/null 2>&1; then
        log "  dropped database $db"
      else
        log "  could not drop database $db"
      fi
    done <"$DBREG"
  fi
  [ -n "$CPUMON" ] && terminate "$CPUMON" 2
  rm -rf "$WORK"
  if [ -n "${TEE_PID:-}" ]; then # let tee flush run.log and the terminal
    exec >/dev/null 2>&1
    wait "$TEE_PID" 2>/dev/null || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------- per-mode server handling -----
# These run inside a mode's subshell: SERVERS holds "name:pid" of its processes.
start_server() { # name logfile cmd...
  local name="$1" lf="$2" pid
  shift 2
  "$@" >"$lf" 2>&1 &
  pid=$!
  SERVERS+=("$name:$pid")
  register "$pid" proc "$MODE-$name"
  log "$MODE: started $name (pid $pid, log ${lf#"$OUT"/})"
}

server_failed() { # name pid logfile message
  log "$MODE: $1 $4; last lines of ${3#"$OUT"/}:"
  tail -n 40 "$3" | sed 's/^/    /'
  return 1
}

wait_http_ok() { # name pid logfile url
  local deadline=$((SECONDS + READY_TIMEOUT)) body
  while ((SECONDS < deadline)); do
    alive "$2" || server_failed "$1" "$2" "$3" "exited during startup"
    if body="$(curl -fsS --max-time 2 "$4" 2>/dev/null)" && [[ "$body" == *'"ok"'* ]]; then
      return 0
    fi
    sleep 0.2
  done
  server_failed "$1" "$2" "$3" "not ready after ${READY_TIMEOUT}s ($4)"
}

wait_tcp() { # name pid logfile port
  local deadline=$((SECONDS + READY_TIMEOUT))
  while ((SECONDS < deadline)); do
    alive "$2" || server_failed "$1" "$2" "$3" "exited during startup"
    port_busy 127.0.0.1 "$4" && return 0
    sleep 0.2
  done
  server_failed "$1" "$2" "$3" "not listening on 127.0.0.1:$4 after ${READY_TIMEOUT}s"
}

check_servers_alive() {
  local e
  for e in "${SERVERS[@]}"; do
    alive "${e#*:}" || server_failed "${e%%:*}" "${e#*:}" "$MDIR/${e%%:*}-$INSTANCE.log" "died under load"
  done
}

record_rss() { # phase (startup | after-setup)
  local e
  for e in "${SERVERS[@]}"; do
    echo "start=$INSTANCE proc=${e%%:*} phase=$1 rss_kb=$(rss_kb "${e#*:}")" >>"$MDIR/rss.txt"
  done
}

scrape_metrics() { # name:addr ...
  local e
  for e in "$@"; do
    curl -fsS --max-time 3 "http://${e#*:}/metrics" >"$MDIR/metrics-$INSTANCE-${e%%:*}.txt" 2>/dev/null ||
      echo "# no /metrics answer from ${e#*:}" >"$MDIR/metrics-$INSTANCE-${e%%:*}.txt"
  done
}

stop_servers() {
  local i e
  for ((i = ${#SERVERS[@]} - 1; i >= 0; i--)); do # reverse start order: gateway first
    e="${SERVERS[$i]}"
    terminate "${e#*:}" 10
    unregister "${e#*:}"
  done
  SERVERS=()
}

create_db() { # name
  psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -v ON_ERROR_STOP=1 -qAt -c "create database \"$1\"" >/dev/null ||
    die "could not create database $1"
  echo "$1" >>"$DBREG"
  MODE_DBS+=("$1")
}

drop_mode_dbs() {
  local db
  for db in "${MODE_DBS[@]}"; do
    psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -qAt -c "drop database if exists \"$db\" with (force)" \
      >/dev/null 2>&1 || log "$MODE: could not drop database $db"
    awk -v d="$db" '$0 != d' "$DBREG" >"$DBREG.tmp" && mv -f "$DBREG.tmp" "$DBREG"
  done
  MODE_DBS=()
}

# sign up a user unique to this server start (a shared Redis cache must not
# answer from an earlier run), sign in, export COOKIE and BENCH_EMAIL
setup_user() { # require-cookies...
  BENCH_EMAIL="bench-$RUN_ID-$MODE-$INSTANCE@example.com"
  export BENCH_EMAIL
  log "$MODE: sign-up + sign-in of $BENCH_EMAIL"
  COOKIE="$(TARGET="$TARGET" ORIGIN="$ORIGIN" REQUIRE_COOKIES="$*" timeout 120 bash "$HERE/setup-user.sh" 2>"$MDIR/setup-$INSTANCE.err")" || {
    log "$MODE: user setup failed:"
    sed 's/^/    /' "$MDIR/setup-$INSTANCE.err"
    return 1
  }
  export COOKIE
  # shellcheck disable=SC2001 # a regex, not a fixed string
  echo "cookies=$(sed 's/=[^;]*//g' <<<"$COOKIE")" >"$MDIR/cookie-names-$INSTANCE.txt"
}

# ------------------------------------------------------------ scenarios ------
SAMPLER=""
start_sampler() { # file
  local f="$1" entries=("${SERVERS[@]}")
  (
    trap 'exit 0' TERM
    end=$((SECONDS + DUR_S + TIMEOUT_S + 120))
    while ((SECONDS < end)); do
      for e in "${entries[@]}"; do echo "${e%%:*} $(rss_kb "${e#*:}")"; done
      sleep "$SAMPLE_INTERVAL"
    done
  ) >"$f" 2>/dev/null &
  SAMPLER=$!
  register "$SAMPLER" proc sampler
}
stop_sampler() {
  [ -n "$SAMPLER" ] || return 0
  terminate "$SAMPLER" 2
  unregister "$SAMPLER"
  SAMPLER=""
}

# RSS and CPU of every server process around one measured interval
declare -A BEFORE_RSS BEFORE_CPU
snapshot_before() {
  local e
  for e in "${SERVERS[@]}"; do
    BEFORE_RSS[${e%%:*}]="$(rss_kb "${e#*:}")"
    BEFORE_CPU[${e%%:*}]="$(cpu_ticks "${e#*:}")"
  done
  T0="$(now)"
}
snapshot_after() { # scenario samples-file
  local e n peak after t1
  t1="$(now)"
  for e in "${SERVERS[@]}"; do
    n="${e%%:*}"
    after="$(rss_kb "${e#*:}")"
    peak="$(awk -v n="$n" -v m="${BEFORE_RSS[$n]}" -v a="$after" '$1 == n && $2 > m {m = $2} END {print (a > m ? a : m) + 0}' "$2")"
    echo "scenario=$1 proc=$n before_kb=${BEFORE_RSS[$n]} peak_kb=$peak after_kb=$after" \
      "cpu_ticks=$(($(cpu_ticks "${e#*:}") - ${BEFORE_CPU[$n]})) secs=$(awk -v a="$T0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')" \
      >>"$MDIR/rss.txt"
  done
}

wrk_args() { # threads conns duration script path -> WRK=(wrk ...)
  WRK=(wrk -t"$1" -c"$2" -d"$3" --timeout "$TIMEOUT" --latency -s "$HERE/$4" "$TARGET$5")
}

show() { # wrk output file
  awk '/Requests\/sec|latency_us|unexpected responses|Non-2xx|Socket errors/ {print "    " $0}' "$1"
}

scenario() { # name script path threads conns
  local name="$1" script="$2" path="$3" t="$4" c="$5"
  wrk_args "$t" "$c" "$DUR" "$script" "$path"
  echo "$MODE $name: ${WRK[*]}" >>"$OUT/commands.txt"
  wait_quiet "$MODE/$name"
  log "$MODE/$name: warmup $WARMUP, then wrk -t$t -c$c -d$DUR $path"
  wrk_args "$t" "$c" "$WARMUP" "$script" "$path"
  run_tracked "$MDIR/$name.warmup.txt" "$WRK_LIMIT" "${WRK[@]}" ||
    { cat "$MDIR/$name.warmup.txt"; check_servers_alive; return 1; }
  snapshot_before
  start_sampler "$MDIR/$name.rss-samples"
  mark "$MODE" "$name" start
  wrk_args "$t" "$c" "$DUR" "$script" "$path"
  run_tracked "$MDIR/$name.txt" "$WRK_LIMIT" "${WRK[@]}" ||
    { cat "$MDIR/$name.txt"; check_servers_alive; return 1; }
  mark "$MODE" "$name" end
  stop_sampler
  snapshot_after "$name" "$MDIR/$name.rss-samples"
  show "$MDIR/$name.txt"
  check_servers_alive
}

# sign-in and get-session at the same time, each -t1 -c$MIX_CONNS
wrk_pair() { # duration out-sign-in out-get-session -> waits for both; status 0 when both exited 0
  local p1 p2 rc=0
  wrk_args 1 "$MIX_CONNS" "$1" sign-in.lua /api/auth/sign-in/email
  timeout -k 5 "$WRK_LIMIT" "${WRK[@]}" >"$2" 2>&1 &
  p1=$!
  wrk_args 1 "$MIX_CONNS" "$1" get-session.lua /api/auth/get-session
  timeout -k 5 "$WRK_LIMIT" "${WRK[@]}" >"$3" 2>&1 &
  p2=$!
  register "$p1" proc wrk
  register "$p2" proc wrk
  wait "$p1" || rc=$?
  wait "$p2" || rc=$?
  unregister "$p1"
  unregister "$p2"
  return "$rc"
}

mixed() {
  wrk_args 1 "$MIX_CONNS" "$DUR" sign-in.lua /api/auth/sign-in/email
  echo "$MODE mixed-sign-in: ${WRK[*]}   (at the same time as mixed-get-session)" >>"$OUT/commands.txt"
  wrk_args 1 "$MIX_CONNS" "$DUR" get-session.lua /api/auth/get-session
  echo "$MODE mixed-get-session: ${WRK[*]}   (at the same time as mixed-sign-in)" >>"$OUT/commands.txt"
  wait_quiet "$MODE/mixed"
  log "$MODE/mixed: sign-in -t1 -c$MIX_CONNS and get-session -t1 -c$MIX_CONNS at once (warmup $WARMUP, then $DUR)"
  wrk_pair "$WARMUP" "$MDIR/mixed.warmup-sign-in.txt" "$MDIR/mixed.warmup-get-session.txt" ||
    { cat "$MDIR/mixed.warmup-sign-in.txt" "$MDIR/mixed.warmup-get-session.txt"; check_servers_alive; return 1; }
  snapshot_before
  start_sampler "$MDIR/mixed.rss-samples"
  mark "$MODE" mixed start
  wrk_pair "$DUR" "$MDIR/mixed-sign-in.txt" "$MDIR/mixed-get-session.txt" ||
    { cat "$MDIR/mixed-sign-in.txt" "$MDIR/mixed-get-session.txt"; check_servers_alive; return 1; }
  mark "$MODE" mixed end
  stop_sampler
  snapshot_after mixed "$MDIR/mixed.rss-samples"
  echo "    sign-in:"
  show "$MDIR/mixed-sign-in.txt"
  echo "    get-session:"
  show "$MDIR/mixed-get-session.txt"
  check_servers_alive
}

# the cache-off scenarios against whatever is running
run_nocache_scenarios() {
  if want get-session; then scenario get-session-nocache get-session.lua /api/auth/get-session "$THREADS" "$CONNS"; fi
  if want sign-in; then scenario sign-in sign-in.lua /api/auth/sign-in/email "$THREADS" "$CONNS"; fi
  if want sign-in-c1; then scenario sign-in-c1 sign-in.lua /api/auth/sign-in/email 1 1; fi
  if want mixed; then mixed; fi
  return 0
}
any_nocache() { want get-session || want sign-in || want sign-in-c1 || want mixed; }

# ---------------------------------------------------------------- modes ------
# --- standalone
start_standalone() { # instance cookie-cache(true|false)
  INSTANCE="$1"
  local data="$WORK/standalone-$1-data" pid
  rm -rf "$data" && mkdir -p "$data"
  start_server gatehouse "$MDIR/gatehouse-$INSTANCE.log" env \
    GATEWAY_LISTEN="127.0.0.1:$GATEWAY_PORT" BASE_URL="$ORIGIN" DATA_DIR="$data" \
    IDENTITY_LISTEN="127.0.0.1:$IDENTITY_PORT" SESSION_LISTEN="127.0.0.1:$SESSION_PORT" \
    GATEWAY_OPS_LISTEN="127.0.0.1:$GATEWAY_OPS_PORT" \
    RATE_LIMIT_ENABLED=false $SIGN_IN_OFF COOKIE_CACHE_ENABLED="$2" COOKIE_CACHE_MAX_AGE="$COOKIE_CACHE_MAX_AGE" \
    RUST_LOG="$RUST_LOG" "$BIN" standalone
  pid="${SERVERS[-1]#*:}"
  wait_http_ok gatehouse "$pid" "$MDIR/gatehouse-$INSTANCE.log" "$TARGET/api/auth/ok"
  sleep 1
  record_rss startup
}

mode_standalone() {
  TARGET="http://127.0.0.1:$GATEWAY_PORT"
  ORIGIN="http://localhost:$GATEWAY_PORT"
  export ORIGIN
  if any_nocache; then
    start_standalone nocache false
    setup_user session_token
    sleep 1
    record_rss after-setup
    run_nocache_scenarios
    scrape_metrics "gatehouse:127.0.0.1:$GATEWAY_OPS_PORT"
    stop_servers
  fi
  if want cookiecache; then
    start_standalone cookiecache true
    setup_user session_token session_data
    sleep 1
    record_rss after-setup
    scenario get-session-cookiecache get-session.lua /api/auth/get-session "$THREADS" "$CONNS"
    scrape_metrics "gatehouse:127.0.0.1:$GATEWAY_OPS_PORT"
    stop_servers
  fi
}

# --- distributed
start_distributed() { # instance cookie-cache(true|false)
  INSTANCE="$1"
  local idb="gatehouse_bench_${RUN_ID}_$1_identity" sdb="gatehouse_bench_${RUN_ID}_$1_session"
  local pg="postgres://$PG_USER@$PG_HOST:$PG_PORT"
  idb="${idb//-/_}"
  sdb="${sdb//-/_}"
  create_db "$idb"
  create_db "$sdb"
  start_server identity "$MDIR/identity-$INSTANCE.log" env \
    IDENTITY_LISTEN="127.0.0.1:$IDENTITY_PORT" IDENTITY_DATABASE_URL="$pg/$idb" \
    IDENTITY_OPS_LISTEN="127.0.0.1:$IDENTITY_OPS_PORT" SERVICE_TOKEN="$SERVICE_TOKEN" \
    BUS_URL="$BUS_URL" CACHE_URL="$CACHE_URL" RATE_LIMIT_ENABLED=false $SIGN_IN_OFF \
    COOKIE_CACHE_ENABLED="$2" COOKIE_CACHE_MAX_AGE="$COOKIE_CACHE_MAX_AGE" RUST_LOG="$RUST_LOG" \
    "$BIN" identity
  wait_tcp identity "${SERVERS[-1]#*:}" "$MDIR/identity-$INSTANCE.log" "$IDENTITY_PORT"
  start_server session "$MDIR/session-$INSTANCE.log" env \
    SESSION_LISTEN="127.0.0.1:$SESSION_PORT" SESSION_DATABASE_URL="$pg/$sdb" \
    SESSION_OPS_LISTEN="127.0.0.1:$SESSION_OPS_PORT" SERVICE_TOKEN="$SERVICE_TOKEN" \
    CACHE_URL="$CACHE_URL" BUS_URL="$BUS_URL" IDENTITY_URL="http://127.0.0.1:$IDENTITY_PORT" \
    RATE_LIMIT_ENABLED=false $SIGN_IN_OFF COOKIE_CACHE_ENABLED="$2" COOKIE_CACHE_MAX_AGE="$COOKIE_CACHE_MAX_AGE" \
    RUST_LOG="$RUST_LOG" "$BIN" session
  wait_tcp session "${SERVERS[-1]#*:}" "$MDIR/session-$INSTANCE.log" "$SESSION_PORT"
  start_server gateway "$MDIR/gateway-$INSTANCE.log" env \
    GATEWAY_LISTEN="127.0.0.1:$GATEWAY_PORT" BASE_URL="$ORIGIN" AUTH_SECRET="$AUTH_SECRET" \
    GATEWAY_OPS_LISTEN="127.0.0.1:$GATEWAY_OPS_PORT" SERVICE_TOKEN="$SERVICE_TOKEN" \
    IDENTITY_URL="http://127.0.0.1:$IDENTITY_PORT" SESSION_URL="http://127.0.0.1:$SESSION_PORT" \
    CACHE_URL="$CACHE_URL" BUS_URL="$BUS_URL" RATE_LIMIT_ENABLED=false \
    COOKIE_CACHE_ENABLED="$2" COOKIE_CACHE_MAX_AGE="$COOKIE_CACHE_MAX_AGE" RUST_LOG="$RUST_LOG" \
    "$BIN" gateway
  wait_http_ok gateway "${SERVERS[-1]#*:}" "$MDIR/gateway-$INSTANCE.log" "$TARGET/api/auth/ok"
  sleep 1
  record_rss startup
}

stop_distributed() {
  scrape_metrics "gateway:127.0.0.1:$GATEWAY_OPS_PORT" "identity:127.0.0.1:$IDENTITY_OPS_PORT" "session:127.0.0.1:$SESSION_OPS_PORT"
  stop_servers
  drop_mode_dbs
}

mode_distributed() {
  TARGET="http://127.0.0.1:$GATEWAY_PORT"
  ORIGIN="http://localhost:$GATEWAY_PORT"
  export ORIGIN
  if any_nocache; then
    start_distributed nocache false
    setup_user session_token
    sleep 1
    record_rss after-setup
    run_nocache_scenarios
    stop_distributed
  fi
  if want cookiecache; then
    start_distributed cookiecache true
    setup_user session_token session_data
    sleep 1
    record_rss after-setup
    scenario get-session-cookiecache get-session.lua /api/auth/get-session "$THREADS" "$CONNS"
    stop_distributed
  fi
}

# --- reference
prepare_reference() {
  if [ ! -f "$REF_SRC/server.mjs" ] || [ ! -f "$REF_SRC/bench/run-bench.sh" ]; then
    die "reference server not found at $REF_SRC (set REF_SRC)"
  fi
  mkdir -p "$REF_CACHE"
  # the reference folder is read-only and must stay clean: run it from a copy
  # whose node_modules survive between runs (npm ci only when the lock changed)
  if [ ! -d "$REF_CACHE/node_modules/better-auth" ] || ! cmp -s "$REF_SRC/package-lock.json" "$REF_CACHE/package-lock.json"; then
    rm -rf "$REF_CACHE/node_modules"
    local need_ci=1
  fi
  tar -C "$REF_SRC" --exclude=./node_modules --exclude=./bench/results -cf - . | tar -C "$REF_CACHE" -xf -
  find "$REF_CACHE" -path "$REF_CACHE/node_modules" -prune -o -exec chmod u+w {} +
  if [ -n "${need_ci:-}" ]; then
    log "reference: npm ci in $REF_CACHE (about a minute: compiles better-sqlite3)"
    (cd "$REF_CACHE" && timeout 900 npm ci --no-audit --no-fund) >"$MDIR/npm-ci.log" 2>&1 ||
      { tail -n 30 "$MDIR/npm-ci.log"; die "npm ci of the reference server failed"; }
  fi
}

mode_reference() {
  prepare_reference
  need_port_free "$REF_PORT" REF_PORT
  # 1) the reference's own bench, unchanged, with this run's wrk settings
  local limit=$((4 * (WARMUP_S + DUR_S + TIMEOUT_S + 30) + 120)) pid rc=0 res f t0 t1
  echo "reference run-bench: DUR=$DUR WARMUP=$WARMUP THREADS=$THREADS CONNS=$CONNS TIMEOUT=$TIMEOUT PORT=$REF_PORT bash $REF_CACHE/bench/run-bench.sh (copy of $REF_SRC)" >>"$OUT/commands.txt"
  wait_quiet reference/run-bench
  log "reference: bench/run-bench.sh of the reference (4 scenarios, ~$((4 * (WARMUP_S + DUR_S + 2)))s)"
  mark reference run-bench start
  # own session/process group, so cleanup can stop its server and wrk too
  DUR="$DUR" WARMUP="$WARMUP" THREADS="$THREADS" CONNS="$CONNS" TIMEOUT="$TIMEOUT" PORT="$REF_PORT" \
    BENCH_EMAIL="bench-$RUN_ID-ref@example.com" \
    setsid timeout -k 5 "$limit" bash "$REF_CACHE/bench/run-bench.sh" >"$MDIR/run-bench.log" 2>&1 </dev/null &
  pid=$!
  register "$pid" group reference-run-bench
  wait "$pid" || rc=$?
  unregister "$pid"
  mark reference run-bench end
  res="$(sed -n 's/^results in //p' "$MDIR/run-bench.log" | tail -n 1)"
  if [ "$rc" != 0 ] || [ -z "$res" ] || [ ! -d "$res" ]; then
    tail -n 40 "$MDIR/run-bench.log" | sed 's/^/    /'
    die "the reference's run-bench.sh failed (exit $rc)"
  fi
  mv "$res" "$MDIR/run-bench"
  # its scenarios' intervals (birth and last write of each wrk output) for the CPU accounting
  for f in get-session-nocache sign-in sign-in-c1 get-session-cookiecache; do
    read -r t0 t1 < <(stat -c '%.3W %.3Y' "$MDIR/run-bench/$f.txt" 2>/dev/null || echo "0 0")
    if [ "${t0%.*}" -gt 0 ] 2>/dev/null; then
      echo "reference $f start $t0" >>"$OUT/markers.txt"
      echo "reference $f end $t1" >>"$OUT/markers.txt"
    fi
  done
  for f in get-session-nocache sign-in sign-in-c1 get-session-cookiecache; do
    echo "    $f:"
    show "$MDIR/run-bench/$f.txt"
  done
  # 2) this harness's mixed scenario against the reference (not in run-bench.sh)
  if want mixed; then
    TARGET="http://127.0.0.1:$REF_PORT"
    ORIGIN="http://localhost:$REF_PORT"
    export ORIGIN
    INSTANCE=mixed
    start_server node "$MDIR/node-mixed.log" env -C "$REF_CACHE" PORT="$REF_PORT" \
      DB_PATH="$WORK/ref-mixed.sqlite" MAIL_LOG="$WORK/ref-mail.jsonl" COOKIE_CACHE=0 node server.mjs
    wait_http_ok node "${SERVERS[-1]#*:}" "$MDIR/node-mixed.log" "$TARGET/api/auth/ok"
    sleep 1
    record_rss startup
    setup_user session_token
    record_rss after-setup
    mixed
    stop_servers
  fi
}

run_mode() { # mode: in a subshell, so a failing mode does not stop the others
  local mode="$1" pid rc=0
  log "==== mode: $mode"
  uptime >>"$OUT/load.txt"
  (
    MODE="$mode"
    MDIR="$OUT/$mode"
    mkdir -p "$MDIR"
    SERVERS=()
    MODE_DBS=()
    INSTANCE=""
    # shellcheck disable=SC2317 # invoked by the EXIT trap
    mode_exit() {
      local rc=$?
      trap - EXIT INT TERM
      stop_sampler
      stop_servers
      drop_mode_dbs
      exit "$rc"
    }
    trap mode_exit EXIT
    trap 'exit 143' TERM
    trap 'exit 130' INT
    trap 'log "$MODE: failed at line $LINENO: $BASH_COMMAND"' ERR
    set -E
    "mode_$mode"
  ) &
  pid=$!
  register "$pid" proc "mode-$mode"
  wait "$pid" || rc=$?
  unregister "$pid"
  if [ "$rc" = 0 ]; then
    echo "$mode=ok" >>"$OUT/status.txt"
  else
    echo "$mode=FAILED (exit $rc; see run.log and $mode/)" >>"$OUT/status.txt"
    log "==== mode $mode FAILED (exit $rc)"
    FAILED=1
  fi
}

# ---------------------------------------------------------------- main -------
exec > >(tee -a "$OUT/run.log") 2>&1
TEE_PID=$!
log "Gatehouse bench -> ${OUT#"$REPO"/}"

has_mode() { [[ " $MODES " == *" $1 "* ]]; }

# --- prerequisites, all checked before anything long starts
for tool in curl awk timeout setsid python3 tac; do
  command -v "$tool" >/dev/null || die "$tool is required"
done
if ! command -v wrk >/dev/null; then
  [ "$(id -u)" = 0 ] || die "wrk is not installed (apt-get install -y wrk)"
  log "installing wrk"
  { apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }; } >"$WORK/apt.log" 2>&1 ||
    { tail -n 20 "$WORK/apt.log"; die "could not install wrk"; }
fi
if has_mode reference; then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then die "node and npm are required for the reference"; fi
fi
if has_mode standalone || has_mode distributed; then
  need_port_free "$GATEWAY_PORT" GATEWAY_PORT
  need_port_free "$IDENTITY_PORT" IDENTITY_PORT
  need_port_free "$SESSION_PORT" SESSION_PORT
fi
has_mode reference && need_port_free "$REF_PORT" REF_PORT
if has_mode distributed; then
  command -v psql >/dev/null || die "psql is required for the distributed mode"
  psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -qAt -c 'select 1' >/dev/null 2>&1 ||
    die "PostgreSQL is not reachable at $PG_USER@$PG_HOST:$PG_PORT (distributed mode)"
  hp="${CACHE_URL#*://}"
  hp="${hp#*@}"
  hp="${hp%%/*}"
  [ "${hp##*:}" != "$hp" ] || hp="$hp:6379"
  # shellcheck disable=SC2016 # $1/$2 are the inner shell's arguments
  pong="$(timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"; printf "PING\r\n" >&3; head -c 5 <&3' _ "${hp%:*}" "${hp##*:}" 2>/dev/null)" || true
  [[ "$pong" == "+PONG"* ]] || die "Redis is not answering at $hp (CACHE_URL=$CACHE_URL)"
  hp="${BUS_URL#*://}"
  hp="${hp#*@}"
  hp="${hp%%/*}"
  [ "${hp##*:}" != "$hp" ] || hp="$hp:5672"
  port_busy "${hp%:*}" "${hp##*:}" || die "RabbitMQ is not reachable at $hp (BUS_URL)"
fi

# --- the binary
BIN=""
if has_mode standalone || has_mode distributed; then
  if [ -n "${GATEHOUSE_BIN:-}" ]; then
    BIN="$GATEHOUSE_BIN"
    log "using GATEHOUSE_BIN=$BIN (no build)"
  else
    command -v cargo >/dev/null || die "cargo not found (or set GATEHOUSE_BIN)"
    log "cargo build --release --bin gatehouse (CARGO_TARGET_DIR=$CARGO_TARGET_DIR, log build.log)"
    (cd "$REPO" && timeout "$BUILD_TIMEOUT" cargo build --release --bin gatehouse) >"$OUT/build.log" 2>&1 ||
      { tail -n 30 "$OUT/build.log"; die "the release build failed (see $OUT/build.log)"; }
    BIN="$CARGO_TARGET_DIR/release/gatehouse"
  fi
  if [ ! -f "$BIN" ] || [ ! -x "$BIN" ]; then die "gatehouse binary not found or not executable: $BIN"; fi
  BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
fi

# Everything from here on (servers, wrk, the reference's run-bench.sh) runs at a
# raised CPU priority, so that other work on a shared machine (a cargo build,
# a test suite) disturbs the measurements less. Root only; BENCH_NICE=0 turns it off.
if [ "$BENCH_NICE" != 0 ]; then
  if renice -n "$BENCH_NICE" -p $$ >/dev/null 2>&1; then
    log "running at nice $BENCH_NICE (BENCH_NICE)"
  else
    log "could not renice to $BENCH_NICE (not root?); running at normal priority"
    BENCH_NICE="0 (renice failed)"
  fi
fi

if [ -n "$BIN" ]; then
  log "gatehouse hash-timing"
  if timeout 120 "$BIN" hash-timing >"$OUT/hash-timing.txt" 2>&1 && grep -q '^argon2id_ms=' "$OUT/hash-timing.txt"; then
    log "  $(grep '^argon2id_ms=' "$OUT/hash-timing.txt")"
  else
    log "  WARNING: 'gatehouse hash-timing' printed no argon2id_ms=<ms> line; the sign-in target cannot be judged"
  fi
fi

{
  echo "date_utc=$STAMP"
  echo "host_nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "mem=$(free -m | awk '/Mem:/ {print $2 " MiB"}')"
  echo "kernel=$(uname -r)"
  echo "wrk=$(wrk -v 2>&1 | head -n 1)"
  echo "node=$(node --version 2>/dev/null || echo none)"
  echo "modes=$MODES"
  echo "scenarios=$SCENARIOS"
  printf '%s\n' "dur=$DUR" "warmup=$WARMUP" "threads=$THREADS" "conns=$CONNS" "timeout=$TIMEOUT" "mix_conns=$MIX_CONNS"
  echo "rate_limit=disabled (RATE_LIMIT_ENABLED=false in every Gatehouse process; the reference runs without its limiter)"
  echo "cookie_cache_max_age=$COOKIE_CACHE_MAX_AGE"
  echo "rust_log=$RUST_LOG"
  echo "bench_nice=$BENCH_NICE"
  echo "quiet_max=$QUIET_MAX quiet_wait=$QUIET_WAIT quiet_budget=$QUIET_BUDGET"
  echo "gatehouse_bin=${BIN:-none}"
  [ -n "$BIN" ] && echo "gatehouse_bin_sha256=$(sha256sum "$BIN" | cut -d' ' -f1)"
  [ -n "$BIN" ] && echo "gatehouse_bin_mtime=$(date -u -r "$BIN" +%Y-%m-%dT%H:%M:%SZ)"
  echo "git_head=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)"
  echo "git_dirty=$(git -C "$REPO" status --porcelain 2>/dev/null | wc -l | tr -d ' ') files"
  echo "loadavg_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/env.txt"
sed 's/^/    /' "$OUT/env.txt"

# machine-wide CPU accounting (what did other processes take during a scenario?)
python3 "$HERE/cpumon.py" "$$" "$OUT/cpu.txt" 0.5 7200 &
CPUMON=$!

for m in $MODES; do
  run_mode "$m"
done

terminate "$CPUMON" 2
CPUMON=""
log "==== summary"
strict=()
[ "${STRICT:-0}" = 1 ] && strict=(--strict)
python3 "$HERE/summarize.py" "${strict[@]}" "$OUT" || FAILED=1
log "results in ${OUT#"$REPO"/}"
[ "$FAILED" = 0 ] || exit 1
