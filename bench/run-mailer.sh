#!/usr/bin/env bash
# Mails per second from the mailer to a real SMTP server on this machine (issue 10: >= 200/s).
# Starts aiosmtpd (services/mailer/tests/smtp_sink.py, writing each mail to a file), then the
# mailer bench (services/mailer/benches/mailer_throughput.rs) on SQLite and on PostgreSQL.
#
#   bash bench/run-mailer.sh            # MAILS=5000 MAIL_CONCURRENCY=16 BACKENDS="sqlite postgres"
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gatehouse-target}"
venv="$HOME/.cache/gatehouse-smtp-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/smtp-requirements.txt
cargo bench --locked --workspace --bench mailer_throughput --no-run
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
spool="$(mktemp -d)"
"$venv/bin/python" services/mailer/tests/smtp_sink.py "$port" "$spool" >/dev/null &
sink=$!
trap 'kill $sink 2>/dev/null || true; rm -rf "$spool"' EXIT
sleep 1
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for backend in ${BACKENDS:-sqlite postgres}; do
  BACKEND="$backend" SMTP_PORT="$port" cargo bench --locked --workspace --bench mailer_throughput 2>"$spool.err" | grep "mailer throughput" || { cat "$spool.err"; exit 1; }
done
echo "mails received by the SMTP server: $(ls "$spool" | grep -c '\.eml$')"
