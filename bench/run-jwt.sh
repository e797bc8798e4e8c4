#!/usr/bin/env bash
# Users' signed tokens (issue 31), Gatehouse standalone beside the reference better-auth with its
# jwt plugin (bench/api-key-reference.mjs with JWT=1) in the same run, ROUNDS interleaved rounds of:
#   1. GET /api/auth/token, wrk -t$THREADS -c$CONNS -d$DUR -s bench/token.lua, on Gatehouse and
#      on the reference (target: Gatehouse >= 15x the reference);
#   2. get-session on two Gatehouse processes of the same binary, one with
#      JWT_SET_AUTH_HEADER=true and one without, wrk -s bench/get-session.lua (target: the
#      header costs at most 15 % of the rate);
# then /token at a fixed offered rate, open loop (oha -q, --latency-correction) for LAT_DUR at
# half of each server's own median maximum. Each server's resident memory (VmRSS) is read after
# every measurement. Token verification per core is a Criterion benchmark apart:
#   cargo bench -p gatehouse-jwks --bench verify
#
#   bash bench/run-jwt.sh                                  # release build first
#   GATEHOUSE_BIN=path/to/release/gatehouse bash bench/run-jwt.sh
#   env: DUR (10s), LAT_DUR (15s), ROUNDS (3), THREADS (2), CONNS (32), LAT_CONNS (32),
#        GH_PORT (3400), GH_HEADER_PORT (3401), REF_PORT (3410), BENCH_NICE (-10), OHA
# Writes bench/results/jwt-<stamp>/ (summary.json, raw outputs, commands.txt).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
DUR="${DUR:-10s}" LAT_DUR="${LAT_DUR:-15s}" ROUNDS="${ROUNDS:-3}"
THREADS="${THREADS:-2}" CONNS="${CONNS:-32}" LAT_CONNS="${LAT_CONNS:-32}"
GH_PORT="${GH_PORT:-3400}" GH_HEADER_PORT="${GH_HEADER_PORT:-3401}" REF_PORT="${REF_PORT:-3410}"
BENCH_NICE="${BENCH_NICE:--10}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-$HOME/.cache/gatehouse-bench/better-auth-server}"
OUT="$REPO/bench/results/jwt-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log() { echo "[jwt $(date -u +%H:%M:%S)] $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
pids=()
work="$(mktemp -d -p /tmp gatehouse-jwt-bench.XXXXXX)"
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cmdlog() { echo "$*" >>"$OUT/commands.txt"; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_tools "$GH_PORT" "$GH_HEADER_PORT" "$REF_PORT"
gatehouse_binary
reference_server
if [ "$BENCH_NICE" != 0 ]; then
  renice -n "$BENCH_NICE" -p $$ >/dev/null 2>&1 || BENCH_NICE=0
fi
bench_env

service_listeners="$(service_listeners)"
# start_gatehouse name port extra-env...: a standalone stack of its own
declare -A gh_pids
start_gatehouse() {
  local name=$1 port=$2
  shift 2
  mkdir -p "$work/$name"
  local envs=(DATA_DIR="$work/$name" WEB_DIR= GATEWAY_LISTEN="127.0.0.1:$port" BASE_URL="http://localhost:$port"
    GATEWAY_OPS_LISTEN=127.0.0.1:0 RUST_LOG=warn RATE_LIMIT_ENABLED=false "$@")
  # shellcheck disable=SC2086 # one word per VAR=value
  env "${envs[@]}" $service_listeners "$GATEHOUSE_BIN" standalone >"$OUT/$name.log" 2>&1 &
  gh_pids[$name]=$!
  pids+=("$!")
  cmdlog "env ${envs[*]} $service_listeners $GATEHOUSE_BIN standalone"
  wait_for "http://127.0.0.1:$port/api/auth/ok" "$!" "$OUT/$name.log"
}
start_gatehouse gatehouse "$GH_PORT"
start_gatehouse gatehouse-header "$GH_HEADER_PORT" JWT_SET_AUTH_HEADER=true
(cd "$REF_CACHE" && JWT=1 PORT="$REF_PORT" DB_PATH="$work/reference.sqlite" exec node api-key-reference.mjs) >"$OUT/reference.log" 2>&1 &
ref_pid=$!
pids+=("$ref_pid")
cmdlog "(cd $REF_CACHE && JWT=1 PORT=$REF_PORT DB_PATH=$work/reference.sqlite node api-key-reference.mjs)"
wait_for "http://127.0.0.1:$REF_PORT/healthz" "$ref_pid" "$OUT/reference.log"

cookie_of() { # port
  ORIGIN="http://localhost:$1" TARGET="http://127.0.0.1:$1" BENCH_EMAIL="jwt-bench@example.com" \
    BENCH_PASSWORD="Bench-Password-123" bash bench/setup-user.sh
}
declare -A cookies
cookies[gatehouse]="$(cookie_of "$GH_PORT")"
cookies[gatehouse-header]="$(cookie_of "$GH_HEADER_PORT")"
cookies[reference]="$(cookie_of "$REF_PORT")"
declare -A ports=([gatehouse]=$GH_PORT [gatehouse-header]=$GH_HEADER_PORT [reference]=$REF_PORT)
declare -A server_pids=([gatehouse]=${gh_pids[gatehouse]} [gatehouse-header]=${gh_pids[gatehouse-header]} [reference]=$ref_pid)

# Sanity: the tokens verify shapes, the header is there only where it is on.
for name in gatehouse reference; do
  curl -fs "http://127.0.0.1:${ports[$name]}/api/auth/token" -H "cookie: ${cookies[$name]}" | grep -q '"token":"ey' ||
    die "$name: /token answered no token"
done
curl -fsD - -o /dev/null "http://127.0.0.1:$GH_HEADER_PORT/api/auth/get-session" -H "cookie: ${cookies[gatehouse-header]}" |
  grep -qi '^set-auth-jwt: ey' || die "the header-on Gatehouse sent no set-auth-jwt"
! curl -fsD - -o /dev/null "http://127.0.0.1:$GH_PORT/api/auth/get-session" -H "cookie: ${cookies[gatehouse]}" |
  grep -qi '^set-auth-jwt' || die "the header-off Gatehouse sent set-auth-jwt"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# measure label server script: one wrk run, its output and the server's RSS after it
measure() {
  local label=$1 name=$2 script=$3 file="$OUT/$1.txt"
  COOKIE="${cookies[$name]}" ORIGIN="http://localhost:${ports[$name]}" \
    wrk -t"$THREADS" -c"$CONNS" -d"$DUR" -s "$script" "http://127.0.0.1:${ports[$name]}/api/auth/get-session" >"$file" 2>&1
  echo "rss_kib $(rss_kib "${server_pids[$name]}")" >>"$file"
  cmdlog "COOKIE=… ORIGIN=http://localhost:${ports[$name]} wrk -t$THREADS -c$CONNS -d$DUR -s $script http://127.0.0.1:${ports[$name]}/api/auth/get-session"
  grep -q "unexpected responses: 0" "$file" || die "$label: unexpected answers ($(grep unexpected "$file"))"
  log "$label: $(awk '/Requests\/sec/ {print $2}' "$file") req/s"
}
for round in $(seq 1 "$ROUNDS"); do
  measure "token-gatehouse-$round" gatehouse bench/token.lua
  measure "token-reference-$round" reference bench/token.lua
  measure "get-session-plain-$round" gatehouse bench/get-session.lua
  measure "get-session-header-$round" gatehouse-header bench/get-session.lua
done

median_rate() { # label prefix
  for f in "$OUT/$1"-*.txt; do awk '/Requests\/sec/ {print $2}' "$f"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
for name in gatehouse reference; do
  rate="$(median_rate "token-$name")"
  half="$(python3 -c "print(max(1, int(float('$rate') / 2)))")"
  "$OHA" --no-tui --output-format json --latency-correction -q "$half" -z "$LAT_DUR" -c "$LAT_CONNS" \
    -H "cookie: ${cookies[$name]}" -H "origin: http://localhost:${ports[$name]}" \
    "http://127.0.0.1:${ports[$name]}/api/auth/token" >"$OUT/latency-$name.json"
  cmdlog "$OHA --no-tui --output-format json --latency-correction -q $half -z $LAT_DUR -c $LAT_CONNS -H cookie:… http://127.0.0.1:${ports[$name]}/api/auth/token"
  log "latency $name at $half/s: p99 $(python3 -c "import json; print(round(json.load(open('$OUT/latency-$name.json'))['latencyPercentiles']['p99']*1000, 2))") ms"
done

python3 - "$OUT" <<'EOF'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
def runs(prefix):
    rates, rss = [], []
    for f in sorted(glob.glob(f"{out}/{prefix}-*.txt")):
        text = open(f).read()
        rates.append(float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)))
        rss.append(int(re.search(r"rss_kib (\d+)", text).group(1)) / 1024)
    return {"rates": rates, "median": statistics.median(rates), "rss_mib_max": round(max(rss), 1)}
def latency(name):
    data = json.load(open(f"{out}/latency-{name}.json"))
    p = data["latencyPercentiles"]
    return {"p50_ms": round(p["p50"] * 1000, 2), "p99_ms": round(p["p99"] * 1000, 2),
            "success_rate": data["summary"]["successRate"]}
summary = {
    "token_gatehouse": runs("token-gatehouse"), "token_reference": runs("token-reference"),
    "get_session_plain": runs("get-session-plain"), "get_session_header": runs("get-session-header"),
    "token_latency_gatehouse": latency("gatehouse"), "token_latency_reference": latency("reference"),
}
summary["token_ratio"] = round(summary["token_gatehouse"]["median"] / summary["token_reference"]["median"], 1)
summary["header_cost_pct"] = round(100 * (1 - summary["get_session_header"]["median"] / summary["get_session_plain"]["median"]), 1)
summary["targets"] = {"token_15x": summary["token_ratio"] >= 15, "header_cost_le_15pct": summary["header_cost_pct"] <= 15}
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(json.dumps(summary, indent=2))
EOF
