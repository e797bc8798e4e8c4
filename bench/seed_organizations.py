#!/usr/bin/env python3
"""Puts one user in ORGS organizations of MEMBERS members each, straight into an organization
store, for the organization reads benchmark (bench/run-admin.sh's `organization` scenarios).
The other members are the first MEMBERS-1 users seed_users.py made, so run that first. Rows
are written the way each server writes them itself.

    seed_organizations.py gatehouse-sqlite DATA_DIR USER_ID ORGS MEMBERS
    seed_organizations.py gatehouse-postgres IDENTITY_DB_URL ORGANIZATION_DB_URL USER_ID ORGS MEMBERS
    seed_organizations.py reference DB_PATH USER_ID ORGS MEMBERS

Prints the id of the first organization (the one whose members the benchmark lists).
"""
import datetime as dt
import sqlite3
import subprocess
import sys

from seed_users import copy, gatehouse_time, reference_time, rid

OTHERS = "SELECT id FROM {table} WHERE email LIKE 'bench-user-%' ORDER BY email LIMIT {n}"


def plan(user_id: str, others: list[str], orgs: int):
    """(organizations, memberships): the user owns each organization, the others are members."""
    now = dt.datetime.now(dt.timezone.utc)
    organizations, members = [], []
    for i in range(orgs):
        created = now - dt.timedelta(minutes=orgs - i)
        org = rid()
        organizations.append((org, f"Bench Org {i:03d}", f"bench-org-{i:03d}-{org[:6].lower()}", created))
        members.append((rid(), org, user_id, "owner", created))
        for j, other in enumerate(others):
            members.append((rid(), org, other, "member", created + dt.timedelta(seconds=j + 1)))
    return organizations, members


def gatehouse_sqlite(data_dir: str, user_id: str, orgs: int, size: int) -> str:
    identity = sqlite3.connect(f"{data_dir}/identity.sqlite")
    others = [r[0] for r in identity.execute(OTHERS.format(table="users", n=size - 1))]
    organizations, members = plan(user_id, others, orgs)
    db = sqlite3.connect(f"{data_dir}/organization.sqlite")
    db.executemany(
        "INSERT INTO organizations (id, name, slug, logo, metadata, created_at) VALUES (?,?,?,NULL,NULL,?)",
        [(o, n, s, gatehouse_time(t)) for o, n, s, t in organizations],
    )
    db.executemany(
        "INSERT INTO members (id, organization_id, user_id, role, created_at) VALUES (?,?,?,?,?)",
        [(m, o, u, r, gatehouse_time(t)) for m, o, u, r, t in members],
    )
    db.commit()
    return organizations[0][0]


def gatehouse_postgres(identity_url: str, organization_url: str, user_id: str, orgs: int, size: int) -> str:
    listed = subprocess.run(
        ["psql", identity_url, "-Atc", OTHERS.format(table="users", n=size - 1)],
        capture_output=True, text=True, check=True,
    )
    organizations, members = plan(user_id, listed.stdout.split(), orgs)
    copy(organization_url, "organizations", "id,name,slug,created_at",
         [f"{o},{n},{s},{gatehouse_time(t)}" for o, n, s, t in organizations])
    copy(organization_url, "members", "id,organization_id,user_id,role,created_at",
         [f"{m},{o},{u},{r},{gatehouse_time(t)}" for m, o, u, r, t in members])
    subprocess.run(["psql", organization_url, "-qc", "VACUUM ANALYZE"], check=True)
    return organizations[0][0]


def reference(db_path: str, user_id: str, orgs: int, size: int) -> str:
    db = sqlite3.connect(db_path)
    others = [r[0] for r in db.execute(OTHERS.format(table='"user"', n=size - 1))]
    organizations, members = plan(user_id, others, orgs)
    db.executemany(
        'INSERT INTO "organization" (id, name, slug, logo, createdAt, metadata) VALUES (?,?,?,NULL,?,NULL)',
        [(o, n, s, reference_time(t)) for o, n, s, t in organizations],
    )
    db.executemany(
        'INSERT INTO "member" (id, organizationId, userId, role, createdAt) VALUES (?,?,?,?,?)',
        [(m, o, u, r, reference_time(t)) for m, o, u, r, t in members],
    )
    db.commit()
    return organizations[0][0]


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    *stores, user_id, orgs, size = args
    if kind == "gatehouse-sqlite":
        print(gatehouse_sqlite(stores[0], user_id, int(orgs), int(size)))
    elif kind == "gatehouse-postgres":
        print(gatehouse_postgres(stores[0], stores[1], user_id, int(orgs), int(size)))
    elif kind == "reference":
        print(reference(stores[0], user_id, int(orgs), int(size)))
    else:
        raise SystemExit(f"unknown store {kind}")
