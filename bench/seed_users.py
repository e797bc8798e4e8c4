#!/usr/bin/env python3
"""Seeds N users (each with one live session) straight into a user store, for the admin
list-users / list-sessions benchmark (bench/run-admin.sh). Rows are written the way each
server writes them itself, so the servers read them as their own.

    seed_users.py gatehouse-sqlite DATA_DIR N
    seed_users.py gatehouse-postgres IDENTITY_DB_URL SESSION_DB_URL N
    seed_users.py reference DB_PATH N
"""
import datetime as dt
import secrets
import sqlite3
import string
import subprocess
import sys

ALPHABET = string.ascii_letters + string.digits


def rid() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(32))


def rows(n: int):
    now = dt.datetime.now(dt.timezone.utc)
    for i in range(n):
        created = now - dt.timedelta(minutes=n - i)
        yield {
            "id": rid(),
            "name": f"Bench User {i:05d}",
            "email": f"bench-user-{i:05d}@example.com",
            "created": created,
            "session_id": rid(),
            "token": rid(),
            "expires": now + dt.timedelta(days=7),
        }


def gatehouse_time(t: dt.datetime) -> str:
    return t.isoformat(timespec="milliseconds")  # 2026-11-23T20:11:50.859+00:00


def reference_time(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def gatehouse_sqlite(data_dir: str, n: int) -> None:
    identity = sqlite3.connect(f"{data_dir}/identity.sqlite")
    session = sqlite3.connect(f"{data_dir}/session.sqlite")
    users, sessions = [], []
    for r in rows(n):
        t = gatehouse_time(r["created"])
        users.append((r["id"], r["name"], r["email"], 0, None, t, t, None, None, "user", 0, None, None))
        sessions.append((r["session_id"], r["token"], r["id"], gatehouse_time(r["expires"]), t, t, "", "", 1, None))
    # Columns named: later migrations add columns (with defaults) to both tables.
    identity.executemany(
        "INSERT INTO users (id, name, email, email_verified, image, created_at, updated_at, username, "
        "display_username, role, banned, ban_reason, ban_expires) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        users,
    )
    session.executemany(
        "INSERT INTO sessions (id, token, user_id, expires_at, created_at, updated_at, ip_address, "
        "user_agent, remember_me, impersonated_by) VALUES (?,?,?,?,?,?,?,?,?,?)",
        sessions,
    )
    identity.commit()
    session.commit()


def copy(url: str, table: str, columns: str, lines: list[str]) -> None:
    subprocess.run(
        ["psql", url, "-v", "ON_ERROR_STOP=1", "-qc", f"\\copy {table} ({columns}) FROM STDIN WITH (FORMAT csv)"],
        input="\n".join(lines) + "\n", text=True, check=True,
    )


def gatehouse_postgres(identity_url: str, session_url: str, n: int) -> None:
    users, sessions = [], []
    for r in rows(n):
        t = gatehouse_time(r["created"])
        users.append(f'{r["id"]},{r["name"]},{r["email"]},false,{t},{t},user,false')
        sessions.append(f'{r["session_id"]},{r["token"]},{r["id"]},{gatehouse_time(r["expires"])},{t},{t},"","",true')
    copy(identity_url, "users", "id,name,email,email_verified,created_at,updated_at,role,banned", users)
    copy(session_url, "sessions", "id,token,user_id,expires_at,created_at,updated_at,ip_address,user_agent,remember_me", sessions)
    # VACUUM as well: a bulk load leaves the visibility map unset, so until autovacuum has
    # passed (and it may be off on a development server) every index-only scan (the total, the
    # walk to a deep page's first user) reads the table too. A database in service has it set.
    for url in (identity_url, session_url):
        subprocess.run(["psql", url, "-qc", "VACUUM ANALYZE"], check=True)


def reference(db_path: str, n: int) -> None:
    db = sqlite3.connect(db_path)
    users, sessions = [], []
    for r in rows(n):
        t = reference_time(r["created"])
        users.append((r["id"], r["name"], r["email"], 0, None, t, t, None, None, "user", 0, None, None))
        sessions.append((r["session_id"], reference_time(r["expires"]), r["token"], t, t, "", "", r["id"], None, None, None))
    db.executemany('INSERT INTO "user" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)', users)
    db.executemany('INSERT INTO "session" VALUES (?,?,?,?,?,?,?,?,?,?,?)', sessions)
    db.commit()


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    if kind == "gatehouse-sqlite":
        gatehouse_sqlite(args[0], int(args[1]))
    elif kind == "gatehouse-postgres":
        gatehouse_postgres(args[0], args[1], int(args[2]))
    elif kind == "reference":
        reference(args[0], int(args[1]))
    else:
        raise SystemExit(f"unknown store {kind}")
