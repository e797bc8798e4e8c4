#!/usr/bin/env python3
"""Intake-to-delivery latency of the billing fan-out (bench/run-fan-out.sh drives it).

Serves two receivers on loopback, `fast` (answers 204 at once) and `slow` (answers 204 after
SLOW_SECS), registers them as an organization's endpoints through /api/billing, then sends
the payments platform's deliveries to the intake at a steady RATE, signed as it signs, each
naming the organization as `metadata.referenceId`. Latency is from the intake's 202 (the
event stored) to the fast receiver's first byte of that delivery, both on this machine's
clock. Phase 1 has only the fast endpoint; phase 2 adds the slow one, which must not delay
the fast one. Prints one JSON object per phase.

    fan_out_latency.py BASE_URL SECRET FIXTURE.json RATE SECONDS SLOW_SECS
"""
import base64
import hashlib
import hmac
import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

base, secret, fixture, rate, seconds, slow_secs = sys.argv[1:7]
rate, seconds, slow_secs = float(rate), float(seconds), float(slow_secs)
origin = base.rstrip("/")
arrivals = {}  # webhook-id -> arrival time (fast receiver)
slow_seen = []
lock = threading.Lock()


def receiver(slow: bool):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            now = time.time()
            length = int(self.headers.get("content-length", 0))
            self.rfile.read(length)
            with lock:
                if slow:
                    slow_seen.append(now)
                else:
                    arrivals.setdefault(self.headers["webhook-id"], now)
            if slow:
                time.sleep(slow_secs)
            self.send_response(204)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/hook"


def call(method, path, body=None, cookie=None):
    url = urllib.parse.urlsplit(origin)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    headers = {"origin": origin}
    if body is not None:
        headers["content-type"] = "application/json"
    if cookie:
        headers["cookie"] = cookie
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = response.read()
    cookies = "; ".join(v.split(";")[0] for k, v in response.getheaders() if k.lower() == "set-cookie")
    if response.status != 200:
        sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data), cookies


# An owner and their organization; the endpoints are theirs.
email = f"bench-{uuid.uuid4().hex[:12]}@example.com"
_, cookie = call("POST", "/api/auth/sign-up/email", {"name": "Bench", "email": email, "password": "Correct-Horse-9"})
org, _ = call("POST", "/api/auth/organization/create", {"name": "Bench", "slug": f"bench-{uuid.uuid4().hex[:8]}"}, cookie)
fast_endpoint, _ = call("POST", "/api/billing/endpoints", {"url": receiver(False)}, cookie)

template = json.load(open(fixture))
template["data"]["metadata"] = {"referenceId": org["id"]}
key = secret.encode()
intake = urllib.parse.urlsplit(origin)


def send_phase():
    """Sends RATE deliveries a second for SECONDS; returns {delivery body id: 202 time}."""
    conn = http.client.HTTPConnection(intake.hostname, intake.port, timeout=30)
    sent = {}
    total = int(rate * seconds)
    start = time.time()
    for n in range(total):
        due = start + n / rate
        pause = due - time.time()
        if pause > 0:
            time.sleep(pause)
        template["data"]["id"] = str(uuid.uuid4())
        body = json.dumps(template, separators=(",", ":"))
        webhook_id = str(uuid.uuid4())
        ts = str(int(time.time()))
        mac = hmac.new(key, f"{webhook_id}.{ts}.{body}".encode(), hashlib.sha256).digest()
        conn.request("POST", "/api/billing/webhooks", body=body, headers={
            "content-type": "application/json",
            "webhook-id": webhook_id,
            "webhook-timestamp": ts,
            "webhook-signature": "v1," + base64.b64encode(mac).decode(),
        })
        response = conn.getresponse()
        reply = json.loads(response.read())
        if response.status != 202:
            sys.exit(f"intake answered {response.status}: {reply}")
        sent[reply["id"]] = time.time()
    return sent


def event_of_deliveries(cookie, since_count):
    """webhook-id (delivery id) -> event id, for the fast endpoint, from the event log."""
    mapping = {}
    offset = 0
    while True:
        page, _ = call("GET", f"/api/billing/events?limit=100&offset={offset}&endpointId={fast_endpoint['id']}", None, cookie)
        for event in page["events"]:
            for delivery in event["deliveries"]:
                if delivery["endpointId"] == fast_endpoint["id"]:
                    mapping[delivery["id"]] = event["id"]
        if not page["hasMore"]:
            return mapping
        offset += 100


def measure(name, sent):
    deadline = time.time() + 60
    while time.time() < deadline:
        with lock:
            if len(arrivals) >= expected_total[0]:
                break
        time.sleep(0.2)
    mapping = event_of_deliveries(cookie, 0)
    with lock:
        latencies = sorted(
            (arrivals[d] - sent[e]) * 1000 for d, e in mapping.items() if e in sent and d in arrivals
        )
    q = lambda p: round(latencies[min(len(latencies) - 1, int(p * len(latencies)))], 1) if latencies else None
    print(json.dumps({
        "phase": name, "rate_per_s": rate, "events": len(sent), "fast_delivered": len(latencies),
        "median_ms": q(0.5), "p90_ms": q(0.9), "p99_ms": q(0.99), "max_ms": round(latencies[-1], 1) if latencies else None,
        "slow_requests_seen": len(slow_seen),
    }), flush=True)


expected_total = [int(rate * seconds)]
measure("fast endpoint only", send_phase())
call("POST", "/api/billing/endpoints", {"url": receiver(True)}, cookie)
expected_total[0] += int(rate * seconds)
measure(f"with an endpoint answering after {slow_secs:g} s", send_phase())
