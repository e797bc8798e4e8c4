#!/bin/sh
# Expires one invitation in the better-auth REFERENCE server's sqlite file (for the expired-
# invitation tests; Gatehouse needs its own command, see README.md):
#
#   DB_PATH=/tmp/reforg.sqlite sh expire-invitation.sh <invitationId>
#
# Sets expiresAt to one minute ago, written the way better-auth stores dates in sqlite
# (toISOString text). Needs the sqlite3 command-line shell.
set -eu
id="${1:-}"
case "$id" in
  "" | *[!A-Za-z0-9]*) echo "expire-invitation: need one invitation id of [A-Za-z0-9]" >&2; exit 2 ;;
esac
if [ -z "${DB_PATH:-}" ] || [ "$DB_PATH" = ":memory:" ]; then
  echo "expire-invitation: DB_PATH must point at the reference server's sqlite file" >&2
  exit 2
fi
changed=$(sqlite3 -cmd ".timeout 5000" "$DB_PATH" \
  "UPDATE invitation SET expiresAt = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 minute') WHERE id = '$id'; SELECT changes();")
if [ "$changed" != "1" ]; then
  echo "expire-invitation: expected to update 1 invitation, updated ${changed}" >&2
  exit 1
fi
