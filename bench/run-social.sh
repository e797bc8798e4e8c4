#!/usr/bin/env bash
# Social sign-in, Gatehouse beside the reference better-auth in the same run, both against the
# same local OpenID provider (tests/oidc-provider; the reference through its genericOAuth
# plugin, bench/social-reference.mjs):
#   1. a redirect sign-in's own time: the two browser requests (sign-in/social, the callback)
#      less the provider's token and user-info answers, one flow at a time (social-flow.mjs);
#   2. idToken sign-in throughput with the provider's keys cached (wrk, id-token.lua), three
#      interleaved rounds each, and each server's resident memory after it.
#
#   bash bench/run-social.sh                      # release build first
#   GATEHOUSE_BIN=path/to/gatehouse bash bench/run-social.sh
#   env: DUR (10s), ROUNDS (3), THREADS (2), CONNS (32), FLOWS (200)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
DUR="${DUR:-10s}" ROUNDS="${ROUNDS:-3}" THREADS="${THREADS:-2}" CONNS="${CONNS:-32}"
OIDC_PORT="${OIDC_PORT:-9190}" GH_PORT="${GH_PORT:-3300}" REF_PORT="${REF_PORT:-3310}"
REF_SRC="${REF_SRC:-$REPO/../shared/reference/better-auth-server}"
REF_CACHE="${REF_CACHE:-$HOME/.cache/gatehouse-bench/better-auth-server}"
OUT="$REPO/bench/results/social-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log() { echo "[social] $*" >&2; }
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
if [ -z "${GATEHOUSE_BIN:-}" ]; then
  log "cargo build --release --bin gatehouse"
  cargo build --release --locked --bin gatehouse >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
  GATEHOUSE_BIN="$CARGO_TARGET_DIR/release/gatehouse"
fi
[ -d tests/oidc-provider/node_modules ] || npm ci --prefix tests/oidc-provider --silent --no-audit --no-fund
mkdir -p "$REF_CACHE"
if [ ! -d "$REF_CACHE/node_modules/better-auth" ] || ! cmp -s "$REF_SRC/package-lock.json" "$REF_CACHE/package-lock.json"; then
  tar -C "$REF_SRC" --exclude=./node_modules -cf - . | tar -C "$REF_CACHE" -xf -
  (cd "$REF_CACHE" && npm ci --no-audit --no-fund) >"$OUT/npm-ci.log" 2>&1
fi
cp bench/social-reference.mjs "$REF_CACHE/social-reference.mjs"

wait_for() { for _ in $(seq 1 200); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; log "not ready: $1"; exit 1; }

ISSUER="http://127.0.0.1:$OIDC_PORT"
OIDC_PORT="$OIDC_PORT" node tests/oidc-provider/server.mjs >"$OUT/oidc.log" 2>&1 &
pids+=($!)
wait_for "$ISSUER/health"
DISCOVERY="$ISSUER/.well-known/openid-configuration"

# DATA_DIR_BASE=/dev/shm: the same run with the database on tmpfs, to see what the disk's
# flushes (SQLite commits) cost.
data_dir="$(mktemp -d -p "${DATA_DIR_BASE:-/tmp}")"
env DATA_DIR="$data_dir" WEB_DIR= GATEWAY_LISTEN="127.0.0.1:$GH_PORT" BASE_URL="http://localhost:$GH_PORT" \
  GATEWAY_OPS_LISTEN=127.0.0.1:0 RUST_LOG=warn \
  RATE_LIMIT_MAX=100000000 RATE_LIMIT_SIGN_IN_MAX=100000000 \
  SOCIAL_PROVIDERS="{\"test-oidc\":{\"clientId\":\"gatehouse-test\",\"clientSecret\":\"gatehouse-test-secret\",\"discoveryUrl\":\"$DISCOVERY\"}}" \
  "$GATEHOUSE_BIN" standalone >"$OUT/gatehouse.log" 2>&1 &
gh_pid=$!
pids+=($gh_pid)
(cd "$REF_CACHE" && PORT="$REF_PORT" DISCOVERY_URL="$DISCOVERY" exec node social-reference.mjs) >"$OUT/reference.log" 2>&1 &
ref_pid=$!
pids+=($ref_pid)
wait_for "http://127.0.0.1:$GH_PORT/api/auth/ok"
wait_for "http://127.0.0.1:$REF_PORT/healthz"

log "redirect sign-in, one flow at a time (FLOWS=${FLOWS:-200})"
ISSUER="$ISSUER" node bench/social-flow.mjs "http://localhost:$GH_PORT" gatehouse >"$OUT/flow-gatehouse.json"
ISSUER="$ISSUER" node bench/social-flow.mjs "http://localhost:$REF_PORT" reference >"$OUT/flow-reference.json"
id_token="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id_token"])' "$OUT/flow-gatehouse.json")"

rss_mib() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
run_wrk() { # label port pid round
  ID_TOKEN="$id_token" ORIGIN="http://localhost:$2" \
    wrk -t"$THREADS" -c"$CONNS" -d"$DUR" -s bench/id-token.lua "http://localhost:$2" >"$OUT/idtoken-$1-$4.txt" 2>&1
  echo "rss_mib=$(rss_mib "$3")" >>"$OUT/idtoken-$1-$4.txt"
}
# The token's user exists before the load (the first sign-in creates it).
for port in "$GH_PORT" "$REF_PORT"; do
  curl -fs -o /dev/null -X POST "http://localhost:$port/api/auth/sign-in/social" \
    -H 'content-type: application/json' -H "origin: http://localhost:$port" \
    -d "{\"provider\":\"test-oidc\",\"idToken\":{\"token\":\"$id_token\"}}" || { log "idToken sign-in failed on $port"; exit 1; }
done
log "idToken sign-in: wrk -t$THREADS -c$CONNS -d$DUR, $ROUNDS interleaved rounds each"
for round in $(seq 1 "$ROUNDS"); do
  run_wrk gatehouse "$GH_PORT" "$gh_pid" "$round"
  run_wrk reference "$REF_PORT" "$ref_pid" "$round"
done
python3 - "$OUT" <<'PY'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
def wrk(label):
    rows = []
    for path in sorted(glob.glob(os.path.join(out, f"idtoken-{label}-*.txt"))):
        text = open(path).read()
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
        bad = int(re.search(r"unexpected_responses=(\d+)", text).group(1))
        p50 = float(re.search(r"latency_p50_ms=([\d.]+)", text).group(1))
        rss = float(re.search(r"rss_mib=([\d.]+)", text).group(1))
        rows.append(dict(rps=rps, bad=bad, p50=p50, rss=rss))
    return rows
summary = {}
for label in ("gatehouse", "reference"):
    flow = json.load(open(os.path.join(out, f"flow-{label}.json")))
    flow.pop("id_token", None)
    rows = wrk(label)
    summary[label] = dict(flow=flow, idtoken_rps=[r["rps"] for r in rows],
        idtoken_rps_median=statistics.median(r["rps"] for r in rows),
        idtoken_p50_ms=statistics.median(r["p50"] for r in rows),
        unexpected=sum(r["bad"] for r in rows), rss_mib_after=rows[-1]["rss"])
g, r = summary["gatehouse"], summary["reference"]
summary["idtoken_ratio"] = round(g["idtoken_rps_median"] / r["idtoken_rps_median"], 2)
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)
print(f"redirect sign-in own time p50: gatehouse {g['flow']['own_ms_p50']} ms, reference {r['flow']['own_ms_p50']} ms "
      f"(less two empty requests' round trips: {g['flow']['own_less_round_trips_ms_p50']} / {r['flow']['own_less_round_trips_ms_p50']} ms)")
for label, s in (("gatehouse", g), ("reference", r)):
    f = s["flow"]
    print(f"  {label}: sign-in/social p50 {f['start_ms']['p50']} ms, callback p50 {f['callback_ms']['p50']} ms, "
          f"provider token p50 {f['provider_token_ms']['p50']} ms + user-info p50 {f['provider_userinfo_ms']['p50']} ms")
print(f"idToken sign-in: gatehouse {g['idtoken_rps_median']:.0f} req/s (p50 {g['idtoken_p50_ms']} ms, RSS {g['rss_mib_after']} MiB), "
      f"reference {r['idtoken_rps_median']:.0f} req/s (p50 {r['idtoken_p50_ms']} ms, RSS {r['rss_mib_after']} MiB): "
      f"{summary['idtoken_ratio']}x; unexpected answers: {g['unexpected']} / {r['unexpected']}")
PY
log "results in $OUT"
