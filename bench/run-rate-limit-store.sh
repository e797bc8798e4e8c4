#!/usr/bin/env bash
# The in-memory rate-limit store after a flood of 200,000 distinct keys: per-check latency
# (known and new keys), entries kept, RSS. Numbers go to bench/RESULTS.md by hand.
#   bash bench/run-rate-limit-store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
cargo bench --locked --workspace --bench rate_limit_store
