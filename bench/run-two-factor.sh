#!/usr/bin/env bash
# The second factor (issue 32), Gatehouse standalone beside the reference better-auth with its
# twoFactor plugin (bench/api-key-reference.mjs with TWO_FACTOR=1) in the same run:
#   1. ROUNDS interleaved rounds of POST /two-factor/verify-totp from a signed-in user with the
#      second factor on, wrk -t$THREADS -c$CONNS -d$DUR -s bench/verify-totp.lua, on each
#      server (target: Gatehouse >= 20x the reference). The code sent is not the user's: the
#      whole check runs and is refused (401 INVALID_CODE) on both, since Gatehouse accepts each
#      code only once. Its per-account throttle is set out of reach (TWO_FACTOR_THROTTLE_AFTER) so
#      that the refusals measure the check, not the lock-out;
#   2. the same at a fixed offered rate, open loop (oha -q, --latency-correction) for LAT_DUR at
#      half of each server's own median maximum;
#   3. SIGN_INS password sign-ins of users with the second factor on, each finished by
#      verify-totp with a right code, one at a time (bench/two_factor_setup.py): the accepting
#      path's latency (the session made, its cookies set).
# Each server's resident memory (VmRSS) is read after every measurement.
#
#   bash bench/run-two-factor.sh                               # release build first
#   GATEHOUSE_BIN=path/to/release/gatehouse bash bench/run-two-factor.sh
#   env: DUR (10s), WARMUP (5s, unmeasured, each server before the rounds), LAT_DUR (15s), ROUNDS (3), THREADS (2), CONNS (32), LAT_CONNS (32),
#        SIGN_INS (30), GH_PORT (3400), REF_PORT (3410), BENCH_NICE (-10), OHA
# Writes bench/results/two-factor-<stamp>/ (summary.json, raw outputs, commands.txt).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
DUR="${DUR:-10s}" WARMUP="${WARMUP:-5s}" LAT_DUR="${LAT_DUR:-15s}" ROUNDS="${ROUNDS:-3}" SIGN_INS="${SIGN_INS:-30}"
THREADS="${THREADS:-2}" CONNS="${CONNS:-32}" LAT_CONNS="${LAT_CONNS:-32}"
GH_PORT="${GH_PORT:-3400}" REF_PORT="${REF_PORT:-3410}"
BENCH_NICE="${BENCH_NICE:--10}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-$HOME/.cache/gatehouse-bench/better-auth-server}"
OUT="$REPO/bench/results/two-factor-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log() { echo "[two-factor $(date -u +%H:%M:%S)] $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
pids=()
work="$(mktemp -d -p /tmp gatehouse-two-factor-bench.XXXXXX)"
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cmdlog() { echo "$*" >>"$OUT/commands.txt"; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_tools "$GH_PORT" "$REF_PORT"
gatehouse_binary
reference_server
if [ "$BENCH_NICE" != 0 ]; then
  renice -n "$BENCH_NICE" -p $$ >/dev/null 2>&1 || BENCH_NICE=0
fi
bench_env

service_listeners="$(service_listeners)"
mkdir -p "$work/gatehouse"
gh_env=(DATA_DIR="$work/gatehouse" WEB_DIR= GATEWAY_LISTEN="127.0.0.1:$GH_PORT" BASE_URL="http://localhost:$GH_PORT"
  GATEWAY_OPS_LISTEN=127.0.0.1:0 RUST_LOG=warn RATE_LIMIT_ENABLED=false TWO_FACTOR_THROTTLE_AFTER=1000000000)
# shellcheck disable=SC2086 # one word per VAR=value
env "${gh_env[@]}" $service_listeners "$GATEHOUSE_BIN" standalone >"$OUT/gatehouse.log" 2>&1 &
gh_pid=$!
pids+=("$gh_pid")
cmdlog "env ${gh_env[*]} $service_listeners $GATEHOUSE_BIN standalone"
wait_for "http://127.0.0.1:$GH_PORT/api/auth/ok" "$gh_pid" "$OUT/gatehouse.log"
(cd "$REF_CACHE" && TWO_FACTOR=1 PORT="$REF_PORT" DB_PATH="$work/reference.sqlite" exec node api-key-reference.mjs) >"$OUT/reference.log" 2>&1 &
ref_pid=$!
pids+=("$ref_pid")
cmdlog "(cd $REF_CACHE && TWO_FACTOR=1 PORT=$REF_PORT DB_PATH=$work/reference.sqlite node api-key-reference.mjs)"
wait_for "http://127.0.0.1:$REF_PORT/healthz" "$ref_pid" "$OUT/reference.log"

declare -A ports=([gatehouse]=$GH_PORT [reference]=$REF_PORT)
declare -A server_pids=([gatehouse]=$gh_pid [reference]=$ref_pid)
declare -A cookies
for name in gatehouse reference; do
  cookies[$name]="$(python3 bench/two_factor_setup.py cookie "http://127.0.0.1:${ports[$name]}" \
    "http://localhost:${ports[$name]}" "two-factor-bench@example.com")" || die "$name: set-up failed"
done

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# measure label server: one wrk run, its output and the server's RSS after it
measure() {
  local label=$1 name=$2 file="$OUT/$1.txt"
  COOKIE="${cookies[$name]}" ORIGIN="http://localhost:${ports[$name]}" \
    wrk -t"$THREADS" -c"$CONNS" -d"$DUR" -s bench/verify-totp.lua "http://127.0.0.1:${ports[$name]}/api/auth/two-factor/verify-totp" >"$file" 2>&1
  echo "rss_kib $(rss_kib "${server_pids[$name]}")" >>"$file"
  cmdlog "COOKIE=… ORIGIN=http://localhost:${ports[$name]} wrk -t$THREADS -c$CONNS -d$DUR -s bench/verify-totp.lua http://127.0.0.1:${ports[$name]}/api/auth/two-factor/verify-totp"
  grep -q "unexpected responses: 0" "$file" || die "$label: unexpected answers ($(grep unexpected "$file"))"
  log "$label: $(awk '/Requests\/sec/ {print $2}' "$file") req/s"
}
for name in gatehouse reference; do
  COOKIE="${cookies[$name]}" ORIGIN="http://localhost:${ports[$name]}" wrk -t"$THREADS" -c"$CONNS" -d"$WARMUP" \
    -s bench/verify-totp.lua "http://127.0.0.1:${ports[$name]}/api/auth/two-factor/verify-totp" >"$OUT/warmup-$name.txt" 2>&1
done
for round in $(seq 1 "$ROUNDS"); do
  measure "verify-gatehouse-$round" gatehouse
  measure "verify-reference-$round" reference
done

median_rate() { # label prefix
  for f in "$OUT/$1"-*.txt; do awk '/Requests\/sec/ {print $2}' "$f"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
for name in gatehouse reference; do
  rate="$(median_rate "verify-$name")"
  half="$(python3 -c "print(max(1, int(float('$rate') / 2)))")"
  "$OHA" --no-tui --output-format json --latency-correction -q "$half" -z "$LAT_DUR" -c "$LAT_CONNS" -m POST \
    -H "cookie: ${cookies[$name]}" -H "origin: http://localhost:${ports[$name]}" -H "content-type: application/json" \
    -d '{"code":"000000"}' "http://127.0.0.1:${ports[$name]}/api/auth/two-factor/verify-totp" >"$OUT/latency-$name.json"
  echo "rss_kib $(rss_kib "${server_pids[$name]}")" >"$OUT/latency-$name.rss"
  cmdlog "$OHA --no-tui --output-format json --latency-correction -q $half -z $LAT_DUR -c $LAT_CONNS -m POST -d '{\"code\":\"000000\"}' -H cookie:… http://127.0.0.1:${ports[$name]}/api/auth/two-factor/verify-totp"
  log "latency $name at $half/s: p99 $(python3 -c "import json; print(round(json.load(open('$OUT/latency-$name.json'))['latencyPercentiles']['p99']*1000, 2))") ms"
done

for name in gatehouse reference; do
  python3 bench/two_factor_setup.py sign-ins "http://127.0.0.1:${ports[$name]}" "http://localhost:${ports[$name]}" \
    "sign-in-$name" "$SIGN_INS" "$OUT/sign-ins-$name.json" || die "$name: sign-ins failed"
  echo "rss_kib $(rss_kib "${server_pids[$name]}")" >"$OUT/sign-ins-$name.rss"
  cmdlog "python3 bench/two_factor_setup.py sign-ins http://127.0.0.1:${ports[$name]} http://localhost:${ports[$name]} sign-in-$name $SIGN_INS …"
done

python3 - "$OUT" <<'PY'
import glob, json, re, statistics, sys
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
    rss = int(re.search(r"rss_kib (\d+)", open(f"{out}/latency-{name}.rss").read()).group(1)) / 1024
    return {"p50_ms": round(p["p50"] * 1000, 2), "p99_ms": round(p["p99"] * 1000, 2),
            "rps": round(data["summary"]["requestsPerSec"], 1), "rss_mib": round(rss, 1)}
def sign_ins(name):
    results = json.load(open(f"{out}/sign-ins-{name}.json"))
    ok = [r for r in results if r["status"] == 200 and r["signed_in"]]
    ms = sorted(r["ms"] for r in ok)
    rss = int(re.search(r"rss_kib (\d+)", open(f"{out}/sign-ins-{name}.rss").read()).group(1)) / 1024
    return {"signed_in": len(ok), "of": len(results), "p50_ms": round(statistics.median(ms), 2),
            "max_ms": round(ms[-1], 2), "rss_mib": round(rss, 1)}
summary = {
    "verify_gatehouse": runs("verify-gatehouse"), "verify_reference": runs("verify-reference"),
    "latency_gatehouse": latency("gatehouse"), "latency_reference": latency("reference"),
    "sign_ins_gatehouse": sign_ins("gatehouse"), "sign_ins_reference": sign_ins("reference"),
}
summary["verify_ratio"] = round(summary["verify_gatehouse"]["median"] / summary["verify_reference"]["median"], 1)
summary["targets"] = {"verify_totp_20x": summary["verify_ratio"] >= 20}
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(json.dumps(summary, indent=2))
PY
