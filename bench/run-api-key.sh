#!/usr/bin/env bash
# API keys as sessions (issue 30): `GET /api/auth/get-session` with `x-api-key`, Gatehouse
# standalone beside the reference better-auth in the same run (bench/api-key-reference.mjs: the
# reference server's plugins, the api-key plugin's own rate limit off; better-auth writes the
# key's row on every request). Phases 1 and 2 run ROUNDS interleaved rounds, 3 FLOOD_ROUNDS; each
# server's resident memory (VmRSS, the process and its children) is read after every measurement:
#   1. throughput: wrk -t$THREADS -c$CONNS -d$DUR -s bench/api-key.lua (closed loop, median of
#      the rounds; target: Gatehouse >= 20x the reference);
#   2. latency at a fixed offered rate: oha, open loop (--latency-correction: a request is
#      timed from when it was due, so a stall is not hidden), LAT_DUR at half of each server's
#      own median maximum from 1 (target: Gatehouse's p99 <= 10 ms);
#   3. a flood of unknown keys: wrk -s bench/unknown-api-key.lua (a fresh random 64-letter key
#      per request, paced) at each of FLOOD_RATES, while two oha streams of another user (its
#      cookie, and its own API key) run at LEGIT_RATE each, open loop; the same without a
#      flood, and (control) with a flood of the same rate made of one valid key's requests.
#      Target: the other user's median under the unknown-key flood <= 1.10x its median
#      without one. The reference gets the baseline and an unknown-key flood at half its max.
#      Short segments, many rounds: at 100 requests a second the other user's median moves by
#      tens of percent from one minute to the next with nothing else changing (a mostly idle
#      VM's wake-ups), so the conditions alternate every FLOOD_DUR, FLOOD_ROUNDS times.
#
#   bash bench/run-api-key.sh                                  # release build first
#   GATEHOUSE_BIN=path/to/release/gatehouse bash bench/run-api-key.sh
#   env: DUR (10s), LAT_DUR (20s), ROUNDS (3), FLOOD_DUR (5s), FLOOD_ROUNDS (12), THREADS (2), CONNS (32),
#        LAT_CONNS (32, oha's connections at the fixed rate), LEGIT_RATE (100 /s per stream),
#        FLOOD_RATES ("1000 half"; half = half of Gatehouse's maximum from 1, the rate of 2),
#        FLOOD_CONNS (128; each waits 128000/rate ms between requests), GH_PORT (3400), REF_PORT (3410),
#        REF_DB (file: the reference's SQLite in the run's temporary folder, WAL, as server.mjs
#        with DB_PATH; ":memory:" for an in-memory one), DATA_DIR_BASE (/tmp; Gatehouse's
#        DATA_DIR is made under it), BENCH_NICE (-10: the harness and all it starts run at this
#        priority, as bench/run.sh; 0 = off), OHA (the oha binary; installed with
#        `cargo install oha --locked` into $HOME/.cache/oha when missing),
#        QUIET_MAX (0.3) QUIET_WAIT (30) QUIET_BUDGET (300): before each measurement wait up to
#        QUIET_WAIT s (QUIET_BUDGET s a run) for other processes to use <= QUIET_MAX cores.
# Each measurement records the cores other processes used meanwhile (foreign_cores); the summary
# judges the flood on the rounds in which every measurement stayed <= QUIET_MAX, when two or
# more did, and shows the medians of all rounds beside them.
# Exit status 1 when a server does not start, a sanity check fails, or a measurement has
# unexpected answers; targets missed are reported in summary.json, not fatal.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
DUR="${DUR:-10s}" LAT_DUR="${LAT_DUR:-20s}" FLOOD_DUR="${FLOOD_DUR:-5s}" ROUNDS="${ROUNDS:-3}"
FLOOD_ROUNDS="${FLOOD_ROUNDS:-12}"
THREADS="${THREADS:-2}" CONNS="${CONNS:-32}" LAT_CONNS="${LAT_CONNS:-32}"
LEGIT_RATE="${LEGIT_RATE:-100}" FLOOD_CONNS="${FLOOD_CONNS:-128}" FLOOD_RATES="${FLOOD_RATES:-1000 half}"
GH_PORT="${GH_PORT:-3400}" REF_PORT="${REF_PORT:-3410}" BENCH_NICE="${BENCH_NICE:--10}"
QUIET_MAX="${QUIET_MAX:-0.3}" QUIET_WAIT="${QUIET_WAIT:-30}" QUIET_BUDGET="${QUIET_BUDGET:-300}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-$HOME/.cache/gatehouse-bench/better-auth-server}"
PASSWORD="Bench-Password-123"
OUT="$REPO/bench/results/api-key-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log() { echo "[api-key $(date -u +%H:%M:%S)] $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
pids=()     # the two servers
flood_pid="" # the flood's wrk while it runs
work="$(mktemp -d -p "${DATA_DIR_BASE:-/tmp}" gatehouse-api-key-bench.XXXXXX)"
cleanup() {
  [ -z "$flood_pid" ] || kill "$flood_pid" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cmdlog() { echo "$*" >>"$OUT/commands.txt"; }

# ---- tools
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_tools "$GH_PORT" "$REF_PORT"
gatehouse_binary
reference_server

if [ "$BENCH_NICE" != 0 ]; then
  renice -n "$BENCH_NICE" -p $$ >/dev/null 2>&1 || { log "could not renice to $BENCH_NICE; normal priority"; BENCH_NICE=0; }
fi
{
  echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host_nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "mem=$(free -m | awk '/Mem:/ {print $2 " MiB"}')"
  echo "wrk=$(wrk -v 2>&1 | head -n 1)"
  echo "oha=$("$OHA" --version 2>&1 | head -n 1)"
  echo "node=$(node --version)"
  echo "gatehouse_bin=$GATEHOUSE_BIN"
  echo "gatehouse_bin_sha256=$(sha256sum "$GATEHOUSE_BIN" | cut -d' ' -f1)"
  echo "gatehouse_bin_mtime=$(date -u -r "$GATEHOUSE_BIN" +%Y-%m-%dT%H:%M:%SZ)"
  echo "git_head=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)"
  echo "bench_nice=$BENCH_NICE"
  echo "loadavg_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/env.txt"

# ---- the two servers
service_listeners="$(service_listeners)"
data_dir="$work/gatehouse-data"
mkdir -p "$data_dir"
GH_ENV=(DATA_DIR="$data_dir" WEB_DIR= GATEWAY_LISTEN="127.0.0.1:$GH_PORT" BASE_URL="http://localhost:$GH_PORT"
  GATEWAY_OPS_LISTEN=127.0.0.1:0 RUST_LOG=warn RATE_LIMIT_MAX=100000000 RATE_LIMIT_SIGN_IN_MAX=100000000)
# shellcheck disable=SC2086 # one word per VAR=value
env "${GH_ENV[@]}" $service_listeners "$GATEHOUSE_BIN" standalone >"$OUT/gatehouse.log" 2>&1 &
gh_pid=$!
pids+=("$gh_pid")
cmdlog "env ${GH_ENV[*]} $service_listeners $GATEHOUSE_BIN standalone"
case "${REF_DB:-file}" in file) ref_db="$work/reference.sqlite" ;; *) ref_db="$REF_DB" ;; esac
(cd "$REF_CACHE" && PORT="$REF_PORT" DB_PATH="$ref_db" exec node api-key-reference.mjs) >"$OUT/reference.log" 2>&1 &
ref_pid=$!
pids+=("$ref_pid")
cmdlog "(cd $REF_CACHE && PORT=$REF_PORT DB_PATH=$ref_db node api-key-reference.mjs)"
echo "reference_db=$ref_db" >>"$OUT/env.txt"
wait_for "http://127.0.0.1:$GH_PORT/api/auth/ok" "$gh_pid" "$OUT/gatehouse.log"
wait_for "http://127.0.0.1:$REF_PORT/healthz" "$ref_pid" "$OUT/reference.log"

# ---- users and keys
# sign_up port email cookiejar: a user, signed in (the jar holds its session cookie)
sign_up() {
  local code
  code="$(curl -s -o "$work/body" -w '%{http_code}' -c "$3" -X POST "http://127.0.0.1:$1/api/auth/sign-up/email" \
    -H 'content-type: application/json' -H "origin: http://localhost:$1" \
    -d "{\"email\":\"$2\",\"password\":\"$PASSWORD\",\"name\":\"Bench\"}")"
  [ "$code" = 200 ] || { cat "$work/body" >&2; die "sign-up of $2 on port $1 answered $code"; }
}
key_of() { python3 -c 'import json, sys; k = json.load(sys.stdin)["key"]; assert len(k) >= 64; print(k)'; }
# gatehouse_key email: the operator's key, with no rate limit (the default is 600 a minute)
gatehouse_key() {
  DATA_DIR="$data_dir" RUST_LOG=warn "$GATEHOUSE_BIN" api-key create --email "$1" --name bench --no-rate-limit \
    2>>"$OUT/gatehouse-api-key.log" | tee -a "$OUT/gatehouse-api-key.log" | key_of ||
    die "gatehouse api-key create --email $1 failed"
}
# reference_key port cookiejar: a key made over HTTP (the plugin's rate limit is off in the variant)
reference_key() {
  curl -fsS -b "$2" -X POST "http://127.0.0.1:$1/api/auth/api-key/create" -H 'content-type: application/json' \
    -H "origin: http://localhost:$1" -d '{"name":"bench"}' | tee -a "$OUT/reference-api-key.log" | key_of ||
    die "api-key/create on the reference failed"
}
cmdlog "DATA_DIR=$data_dir $GATEHOUSE_BIN api-key create --email <email> --name bench --no-rate-limit"
for who in load legit; do
  sign_up "$GH_PORT" "$who@example.com" "$work/gh-$who.jar"
  sign_up "$REF_PORT" "$who@example.com" "$work/ref-$who.jar"
done
GH_KEY="$(gatehouse_key load@example.com)"
GH_LEGIT_KEY="$(gatehouse_key legit@example.com)"
REF_KEY="$(reference_key "$REF_PORT" "$work/ref-load.jar")"
REF_LEGIT_KEY="$(reference_key "$REF_PORT" "$work/ref-legit.jar")"
cookie_of() { awk '$6 ~ /session_token$/ {print $6 "=" $7}' "$1"; }
GH_LEGIT_COOKIE="$(cookie_of "$work/gh-legit.jar")"
REF_LEGIT_COOKIE="$(cookie_of "$work/ref-legit.jar")"
[ -n "$GH_LEGIT_COOKIE" ] && [ -n "$REF_LEGIT_COOKIE" ] || die "no session cookie after sign-up"

# ---- sanity: 25 get-session calls in a row answer the key's owner on each server; a made-up
# key, the other user's cookie and key answer as they should.
random_key() { python3 -c 'import random, string; print("".join(random.choice(string.ascii_letters) for _ in range(64)))'; }
session_email() { # port header -> the email get-session answers ("null" when none)
  curl -fsS --max-time 5 -H "$2" -H "origin: http://localhost:$1" "http://127.0.0.1:$1/api/auth/get-session" |
    python3 -c 'import json, sys; b = json.load(sys.stdin); print(b["user"]["email"] if b else "null")'
}
for side in gh ref; do
  if [ "$side" = gh ]; then port="$GH_PORT" key="$GH_KEY" lkey="$GH_LEGIT_KEY" cookie="$GH_LEGIT_COOKIE"
  else port="$REF_PORT" key="$REF_KEY" lkey="$REF_LEGIT_KEY" cookie="$REF_LEGIT_COOKIE"; fi
  for i in $(seq 1 25); do
    got="$(session_email "$port" "x-api-key: $key")" || die "get-session with the key on port $port failed (call $i)"
    [ "$got" = load@example.com ] || die "get-session with the key on port $port answered $got (call $i)"
  done
  [ "$(session_email "$port" "x-api-key: $lkey")" = legit@example.com ] || die "the second user's key on port $port"
  [ "$(session_email "$port" "cookie: $cookie")" = legit@example.com ] || die "the second user's cookie on port $port"
  code="$(curl -s -o /dev/null -w '%{http_code}' -H "x-api-key: $(random_key)" "http://127.0.0.1:$port/api/auth/get-session")"
  case "$code" in 401 | 403) ;; *) die "a made-up key on port $port answered $code (expected 401/403)" ;; esac
  echo "sanity_$side=25 get-session calls with the key answered its owner; unknown key -> $code" >>"$OUT/env.txt"
done
log "sanity checks passed on both servers"

# ---- measuring helpers
rss_mib() { # pid: VmRSS of the process and its descendants, MiB
  local total=0 p kids
  kids="$(pgrep -P "$1" 2>/dev/null || true)"
  for p in "$1" $kids; do
    total=$((total + $(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)))
  done
  awk -v kb="$total" 'BEGIN {printf "%.1f", kb / 1024}'
}
alive_check() {
  kill -0 "$gh_pid" 2>/dev/null || { tail -n 30 "$OUT/gatehouse.log" >&2; die "gatehouse exited"; }
  kill -0 "$ref_pid" 2>/dev/null || { tail -n 30 "$OUT/reference.log" >&2; die "the reference exited"; }
}
# cpu_snap: "<seconds> <machine's busy ticks> <ticks of this harness, all it waited for, and both
# servers>"; two snaps give the CPU other processes (another build, a test suite) took meanwhile.
cpu_snap() {
  python3 - "$$" "$gh_pid" "$ref_pid" <<'PY'
import sys, time
def ticks(pid, children):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in (f[11:15] if children else f[11:13]))
v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
busy = sum(v) - v[3] - v[4]  # less idle and iowait
ours = ticks(sys.argv[1], True) + sum(ticks(p, False) for p in sys.argv[2:])
print(f"{time.time():.3f} {busy} {ours}")
PY
}
foreign_now() { # cores other processes use, over one second
  local a b
  a="$(cpu_snap)"; sleep 1; b="$(cpu_snap)"
  echo "$a $b" | awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", (($5 - $2) - ($6 - $3)) / hz / ($4 - $1)}'
}
QUIET_SPENT=0
begin() { # file: a measurement starts: wait (QUIET_WAIT s at most, QUIET_BUDGET s a run) for
  # other processes to use <= QUIET_MAX cores, then note the load and snap the CPU counters
  local f waited=0
  while [ "$QUIET_SPENT" -lt "$QUIET_BUDGET" ] && [ "$waited" -lt "$QUIET_WAIT" ]; do
    f="$(foreign_now)"
    awk -v f="$f" -v m="$QUIET_MAX" 'BEGIN {exit !(f <= m)}' && break
    [ "$waited" = 0 ] && log "   waiting for a quieter machine (others use $f cores)"
    waited=$((waited + 1)) QUIET_SPENT=$((QUIET_SPENT + 1))
  done
  echo "loadavg_before=$(cut -d' ' -f1-3 /proc/loadavg)" >"$1"
  echo "quiet_waited_s=$waited" >>"$1"
  CPU0="$(cpu_snap)"
}
stamp() { # file: load, other processes' CPU and both servers' RSS after a measurement
  alive_check
  { echo "loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "$CPU0 $(cpu_snap)" | awk -v hz="$(getconf CLK_TCK)" \
      '{printf "foreign_cores=%.2f\nours_cores=%.2f\n", (($5 - $2) - ($6 - $3)) / hz / ($4 - $1), ($6 - $3) / hz / ($4 - $1)}'
    echo "rss_mib_gatehouse=$(rss_mib "$gh_pid")"
    echo "rss_mib_reference=$(rss_mib "$ref_pid")"; } >>"$1"
}
side_vars() { # gh|ref -> port key pid
  if [ "$1" = gh ]; then port="$GH_PORT" key="$GH_KEY" lkey="$GH_LEGIT_KEY" cookie="$GH_LEGIT_COOKIE"
  else port="$REF_PORT" key="$REF_KEY" lkey="$REF_LEGIT_KEY" cookie="$REF_LEGIT_COOKIE"; fi
}
# oha_fixed out rate duration conns header: open loop at a fixed rate, JSON out
oha_fixed() {
  "$OHA" --no-tui --output-format json -q "$2" --latency-correction -w -z "$3" -c "$4" \
    -H "$5" -H "origin: http://localhost:$port" "http://127.0.0.1:$port/api/auth/get-session" >"$1" 2>"$1.err" ||
    { cat "$1.err" >&2; die "oha failed ($1)"; }
}
oha_check() { # out: every answer 200, none lost
  python3 - "$1" <<'PY' || die "unexpected answers in $1"
import json, sys
d = json.load(open(sys.argv[1]))
codes = d.get("statusCodeDistribution", {})
errors = d.get("errorDistribution", {})
bad = sum(n for c, n in codes.items() if c != "200") + sum(errors.values())
sys.exit(1 if bad or not codes.get("200") else 0)
PY
}

# ---- 1. closed-loop throughput
log "1. throughput: wrk -t$THREADS -c$CONNS -d$DUR -s bench/api-key.lua, $ROUNDS interleaved rounds"
cmdlog "API_KEY=<key> ORIGIN=http://localhost:<port> wrk -t$THREADS -c$CONNS -d$DUR -s bench/api-key.lua http://127.0.0.1:<port>"
for side in gh ref; do # warm-up (JIT, caches, the SQLite page cache)
  side_vars "$side"
  API_KEY="$key" ORIGIN="http://localhost:$port" wrk -t1 -c4 -d3s -s bench/api-key.lua "http://127.0.0.1:$port" >/dev/null
done
for round in $(seq 1 "$ROUNDS"); do
  for side in gh ref; do
    side_vars "$side"
    f="$OUT/throughput-$side-$round.txt"
    begin "$f"
    API_KEY="$key" ORIGIN="http://localhost:$port" \
      wrk -t"$THREADS" -c"$CONNS" -d"$DUR" -s bench/api-key.lua "http://127.0.0.1:$port" >>"$f" 2>&1
    stamp "$f"
    grep -q '^unexpected_responses=0$' "$f" || { cat "$f" >&2; die "unexpected answers in $f"; }
    log "   $side round $round: $(awk '/Requests\/sec/ {print $2}' "$f") req/s"
  done
done
median_rps() { grep -h 'Requests/sec' "$OUT"/throughput-"$1"-*.txt | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
GH_MAX="$(median_rps gh)" REF_MAX="$(median_rps ref)"
GH_RATE="$(awk -v r="$GH_MAX" 'BEGIN {printf "%d", r / 2}')"
REF_RATE="$(awk -v r="$REF_MAX" 'BEGIN {printf "%d", r / 2}')"
[ "$GH_RATE" -gt 0 ] && [ "$REF_RATE" -gt 0 ] || die "no throughput measured"
log "   medians: gatehouse $GH_MAX req/s, reference $REF_MAX req/s"

# ---- 2. latency at a fixed offered rate (half of each server's own maximum)
log "2. fixed rate, open loop: oha -q <half max> --latency-correction -z $LAT_DUR -c $LAT_CONNS (gatehouse $GH_RATE/s, reference $REF_RATE/s)"
cmdlog "oha --no-tui --output-format json -q <rate> --latency-correction -w -z $LAT_DUR -c $LAT_CONNS -H 'x-api-key: <key>' http://127.0.0.1:<port>/api/auth/get-session"
for round in $(seq 1 "$ROUNDS"); do
  for side in gh ref; do
    side_vars "$side"
    rate="$GH_RATE"; [ "$side" = ref ] && rate="$REF_RATE"
    f="$OUT/fixed-$side-$round.json"
    begin "$f.meta"
    echo "offered_rate=$rate" >>"$f.meta"
    oha_fixed "$f" "$rate" "$LAT_DUR" "$LAT_CONNS" "x-api-key: $key"
    stamp "$f.meta"
    oha_check "$f"
    log "   $side round $round: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["latencyPercentiles"]; print("%.0f req/s, p50 %.2f ms, p99 %.2f ms" % (d["summary"]["requestsPerSec"], p["p50"]*1e3, p["p99"]*1e3))' "$f")"
  done
done

# ---- 3. a flood of unknown keys beside another user's requests, at each of FLOOD_RATES
# ("half": half of Gatehouse's maximum from 1); the reference's flood at half of its own.
rates=()
for r in $FLOOD_RATES; do
  [ "$r" = half ] && r="$GH_RATE"
  [[ "$r" =~ ^[0-9]+$ ]] && [ "$r" -gt 0 ] || die "FLOOD_RATES: '$r' is not a rate"
  rates+=("$r")
done
log "3. flood: unknown keys at ${rates[*]} /s (gatehouse), $REF_RATE/s (reference); the other user at $LEGIT_RATE/s by cookie and $LEGIT_RATE/s by key"
cmdlog "FLOOD_DELAY_MS=<$FLOOD_CONNS*1000/rate> wrk -t1 -c$FLOOD_CONNS -d<FLOOD_DUR+2s> -s bench/unknown-api-key.lua http://127.0.0.1:<port>   # the control flood: the same with KNOWN_KEY=<a valid key>"
cmdlog "oha --no-tui --output-format json -q $LEGIT_RATE --latency-correction -w -z $FLOOD_DUR -c 4 -H 'cookie: <the other user's session>' | -H 'x-api-key: <the other user's key>'"
# flood_start kind rate out: paced wrk in the background, for FLOOD_DUR plus a second each side
flood_start() {
  local delay dur known=""
  delay="$(awk -v c="$FLOOD_CONNS" -v r="$2" 'BEGIN {d = int(c * 1000 / r + 0.5); if (d < 1) d = 1; print d}')"
  dur="$(( ${FLOOD_DUR%s} + 2 ))s"
  [ "$1" = known ] && known="$key"
  FLOOD_DELAY_MS="$delay" KNOWN_KEY="$known" ORIGIN="http://localhost:$port" \
    wrk -t1 -c"$FLOOD_CONNS" -d"$dur" -s bench/unknown-api-key.lua "http://127.0.0.1:$port" >"$3" 2>&1 &
  flood_pid=$!
  sleep 1
}
flood_round() { # side kind(none|unknown|known) rate round
  local base="$OUT/flood-$1-$2-r$3-$4" c k
  [ "$2" = none ] && base="$OUT/flood-$1-none-$4"
  side_vars "$1"
  begin "$base.meta"
  echo "flood_rate_target=$3" >>"$base.meta"
  [ "$2" = none ] || flood_start "$2" "$3" "$base-flood.txt"
  oha_fixed "$base-cookie.json" "$LEGIT_RATE" "$FLOOD_DUR" 4 "cookie: $cookie" &
  c=$!
  oha_fixed "$base-key.json" "$LEGIT_RATE" "$FLOOD_DUR" 4 "x-api-key: $lkey" &
  k=$!
  wait "$c" || die "oha (cookie) failed in $base"
  wait "$k" || die "oha (key) failed in $base"
  if [ "$2" != none ]; then
    wait "$flood_pid" || die "the flood's wrk failed ($base-flood.txt)"
    flood_pid=""
    if [ "$2" = unknown ]; then
      grep -q '^flood_accepted=0 ' "$base-flood.txt" || { cat "$base-flood.txt" >&2; die "a made-up key was accepted ($base-flood.txt)"; }
    else
      grep -q ' flood_refused=0 ' "$base-flood.txt" ||
        { cat "$base-flood.txt" >&2; die "the valid key was refused in the control flood ($base-flood.txt)"; }
    fi
    grep -q 'flood_other=0$' "$base-flood.txt" || { cat "$base-flood.txt" >&2; die "the flood got other answers (429/5xx) ($base-flood.txt)"; }
  fi
  stamp "$base.meta"
  oha_check "$base-cookie.json"
  oha_check "$base-key.json"
  log "   $1 $2${3:+ at $3/s} round $4: other user's p50 $(python3 -c 'import json,sys; print(" / ".join("%.2f" % (json.load(open(f))["latencyPercentiles"]["p50"]*1e3) for f in sys.argv[1:]))' "$base-cookie.json" "$base-key.json") ms (cookie / key)$([ "$2" = none ] || echo ", flood $(awk '/Requests\/sec/ {print $2}' "$base-flood.txt") req/s")"
}
for round in $(seq 1 "$FLOOD_ROUNDS"); do
  flood_round gh none "" "$round"
  for r in "${rates[@]}"; do
    flood_round gh unknown "$r" "$round"
    flood_round gh known "$r" "$round"
  done
  flood_round ref none "" "$round"
  flood_round ref unknown "$REF_RATE" "$round"
done

# ---- summary
QUIET_MAX="$QUIET_MAX" python3 bench/summarize_api_key.py "$OUT" "$GH_RATE" "$REF_RATE" | tee "$OUT/summary.txt"
log "results in $OUT"
