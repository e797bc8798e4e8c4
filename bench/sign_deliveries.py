#!/usr/bin/env python3
"""Writes N webhook deliveries signed now, as the payments platform signs them (HMAC-SHA256 keyed
with the secret's text): one line per delivery, `id<TAB>timestamp<TAB>signature<TAB>body`, each
with its own webhook-id, for bench/intake.lua.

    python3 bench/sign_deliveries.py SECRET FIXTURE.json N > deliveries.tsv
"""
import base64
import hashlib
import hmac
import json
import sys
import time
import uuid

secret, fixture, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
key = secret.encode()
template = json.load(open(fixture))
now = str(int(time.time()))
out = sys.stdout
for n in range(count):
    template["data"]["id"] = str(uuid.uuid4())
    body = json.dumps(template, separators=(",", ":"))
    webhook_id = str(uuid.uuid4())
    mac = hmac.new(key, f"{webhook_id}.{now}.{body}".encode(), hashlib.sha256).digest()
    out.write(f"{webhook_id}\t{now}\tv1,{base64.b64encode(mac).decode()}\t{body}\n")
