#!/usr/bin/env bash
# Schemathesis against both OpenAPI documents of a running Gatehouse: its coverage, fuzzing
# and stateful phases, signed in as an admin who owns an organization (scripts/schemathesis-hooks.py),
# with the settings in scripts/schemathesis.toml. Fails on any server error, schema error,
# failed check, or warning that the document and the server disagree.
#
#   GATEHOUSE_URL=http://localhost:3000 ADMIN_GRANT_CMD="… gatehouse admin grant --email" \
#     scripts/schemathesis.sh [REPORT_DIR]
#
# The venv ($HOME/.cache/gatehouse-schemathesis-venv) holds the pinned
# scripts/schemathesis-requirements.txt. The stack should be a fresh one: the run makes users,
# organizations and endpoints, and bans, removes and deletes what it finds.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${GATEHOUSE_URL:?the running stack, e.g. http://localhost:3000}"
: "${ADMIN_GRANT_CMD:?the command that makes an admin, followed by an email}"
report_dir="${1:-$(mktemp -d)}"

venv="$HOME/.cache/gatehouse-schemathesis-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/schemathesis-requirements.txt

export SCHEMATHESIS_HOOKS="$PWD/scripts/schemathesis-hooks.py" GATEHOUSE_URL ADMIN_GRANT_CMD
status=0
for api in auth billing; do
  echo "-- schemathesis: /api/$api"
  "$venv/bin/st" --config-file scripts/schemathesis.toml run --no-color \
    --report junit,ndjson --report-dir "$report_dir/$api" \
    "$GATEHOUSE_URL/api/$api/open-api/generate-schema" || status=1
done
[ "$status" = 0 ] || echo "schemathesis failed; reports in $report_dir"
exit "$status"
