#!/usr/bin/env python3
"""Runs the rendered dev overlay's Gatehouse Deployments as real pods and drives them.

    python3 scripts/pods-smoke.py [image]        # default image: localhost/gatehouse:dev

1. `kubectl kustomize k8s/overlays/dev`; keeps the ConfigMap `gatehouse-config` and the
   Deployment of every part, and adapts them to this machine: host networking, the host's
   PostgreSQL, Redis and RabbitMQ (fresh databases), free ports, the secret files mounted from
   a temporary directory (podman 4.3's `kube play` crashes on `secret` volumes), an OTLP
   receiver of this script's in place of the collector, and the probes taken out (podman runs
   them only under systemd) to be run from here instead, as the kubelet would.
2. `podman kube play`: the init step (`gatehouse migrate <part>`) runs before each service.
3. Each container's liveness (HTTP `/healthz`) and readiness (gRPC health, the service the
   manifest names) probes pass.
4. Through the gateway pod: sign-up, sign-in, get-session, sign-out; a payments platform's
   webhook (Standard Webhooks signed) taken in by billing-webhook, then its redelivery.
5. The sign-up is one trace: spans of the gateway, identity (gRPC) and the outbox's AMQP
   publish share the caller's trace id.
6. `podman kube down`, the databases dropped, whatever happened.
"""
import base64
import email.parser as email_parser
import email.policy as email_policy
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent import futures
from http.cookiejar import CookieJar
from pathlib import Path

import grpc
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
SECRET_MOUNT = "/run/secrets/gatehouse"
os.environ["CONTAINERS_CONF"] = str(ROOT / "deploy/podman/containers.conf")


def fail(message: str) -> None:
    raise SystemExit(f"pods-smoke: {message}")


def free_ports(count: int) -> list[int]:
    """Distinct ports below the kernel's ephemeral range.

    Ports from bind(0) come out of the ephemeral range, so the same one can be handed out twice
    or taken by a pod's own outgoing connection before that pod binds it; ports held open together
    from below the range can be neither.
    """
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    held: list[socket.socket] = []
    try:
        for candidate in secrets.SystemRandom().sample(range(10000, low), low - 10000):
            if len(held) == count:
                break
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", candidate))
            except OSError:
                s.close()
                continue
            held.append(s)
        if len(held) < count:
            raise RuntimeError(f"only {len(held)} free ports below {low}")
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def run(*command: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def psql(sql: str) -> None:
    run("psql", POSTGRES, "-v", "ON_ERROR_STOP=1", "-qc", sql)


class TraceSink(trace_service_pb2_grpc.TraceServiceServicer):
    """An OTLP/gRPC receiver standing in for the collector: keeps (trace id, service, span)."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str, str]] = []
        self.lock = threading.Lock()

    def Export(self, request, context):  # noqa: N802 (the OTLP method name)
        with self.lock:
            for resource_spans in request.resource_spans:
                service = next(
                    (a.value.string_value for a in resource_spans.resource.attributes
                     if a.key == "service.name"),
                    "?",
                )
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        self.spans.append((span.trace_id.hex(), service, span.name))
        return trace_service_pb2.ExportTraceServiceResponse()

    def services_in(self, trace_id: str) -> dict[str, set[str]]:
        with self.lock:
            found: dict[str, set[str]] = {}
            for trace, service, name in self.spans:
                if trace == trace_id:
                    found.setdefault(service, set()).add(name)
            return found


def render_for_podman(placements: list[dict], image: str, ports: dict, urls: dict, secret_dir: Path):
    """The dev overlay's ConfigMap and part Deployments, adapted to this machine."""
    parts = [placement["name"] for placement in placements]
    docs = [d for d in yaml.safe_load_all(run("kubectl", "kustomize", str(ROOT / "k8s/overlays/dev")).stdout) if d]
    config = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "gatehouse-config")
    data = config["data"]
    for placement in placements:
        part = placement["name"]
        data[placement["listen_var"]] = f"127.0.0.1:{ports[part]}"
        data[placement["ops_listen_var"]] = f"127.0.0.1:{ports[part + '-ops']}"
        if placement["url_var"]:
            data[placement["url_var"]] = f"http://127.0.0.1:{ports[part]}"
    data["BASE_URL"] = urls["base"]
    data["OTEL_EXPORTER_OTLP_ENDPOINT"] = urls["otlp"]
    data["RATE_LIMIT_SIGN_IN_MAX"] = "1000"
    deployments, probes = [], {}
    for doc in docs:
        if doc["kind"] != "Deployment" or doc["metadata"]["name"] not in parts:
            continue
        part = doc["metadata"]["name"]
        spec = doc["spec"]["template"]["spec"]
        spec["hostNetwork"] = True
        # podman 4.3 gives every container, init containers too, the pod's restart policy:
        # under `Always` the finished init step would be started again and again.
        spec["restartPolicy"] = "OnFailure"
        for volume in spec.get("volumes", []):
            if "secret" in volume:
                volume.pop("secret")
                volume["hostPath"] = {"path": str(secret_dir), "type": "Directory"}
        for container in spec.get("initContainers", []) + spec["containers"]:
            if container["image"] != image:
                fail(f"{part}: container {container['name']} runs {container['image']}, not {image}")
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                if probe in container:
                    probes.setdefault(part, {})[probe] = container.pop(probe)
            container.pop("ports", None)
        deployments.append(doc)
    if {d["metadata"]["name"] for d in deployments} != set(parts):
        fail("the dev overlay lacks a Deployment for some part")
    return [config] + deployments, probes


def secret_file(var: str) -> str:
    """The Secret's file that `<var>_FILE` names in the base ConfigMap (`identity-database-url`
    for `IDENTITY_DATABASE_URL`)."""
    docs = yaml.safe_load_all((ROOT / "k8s/base/config.yaml").read_text())
    data = next(d for d in docs if d and d["kind"] == "ConfigMap")["data"]
    return data[f"{var}_FILE"].rsplit("/", 1)[1]


def http(opener, method: str, url: str, body=None, headers=None):
    request = urllib.request.Request(url, method=method, headers=headers or {})
    if body is not None:
        request.data = json.dumps(body).encode()
        request.add_header("content-type", "application/json")
    try:
        with opener.open(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for(what: str, check, seconds: float, logs) -> None:
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception as error:  # noqa: BLE001 (any failure means: not yet)
            last = error
        time.sleep(0.5)
    fail(f"{what} not within {seconds} s (last error: {last})\n{logs()}")


def check_probes(part: str, probes: dict, ports: dict, logs) -> None:
    """The manifest's probes, run from here against the pod's operations port."""
    liveness, readiness = probes["livenessProbe"], probes["readinessProbe"]
    ops = ports[part + "-ops"]
    path = liveness["httpGet"]["path"]

    def live() -> bool:
        with urllib.request.urlopen(f"http://127.0.0.1:{ops}{path}", timeout=2) as reply:
            return reply.status == 200

    def ready() -> bool:
        with grpc.insecure_channel(f"127.0.0.1:{ops}") as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=readiness["grpc"].get("service", "")),
                timeout=2,
            )
            return answer.status == health_pb2.HealthCheckResponse.SERVING

    wait_for(f"{part}: liveness GET {path}", live, 60, logs)
    wait_for(f"{part}: readiness (gRPC health {readiness['grpc'].get('service')!r})", ready, 60, logs)
    print(f"pods-smoke: {part}: liveness and readiness probes pass")


def container_events(since: str, event: str) -> list[tuple[str, int]]:
    """(container name, exit code) of podman's `event` events since `since`, oldest first."""
    out = run("podman", "events", "--stream=false", "--since", since, "--filter", f"event={event}",
              "--format", "{{.Name}} {{.ContainerExitCode}}").stdout
    return [(name, int(code)) for name, code in (line.rsplit(" ", 1) for line in out.splitlines())]


def container_of(name: str, part: str, container: str) -> bool:
    """podman names a Deployment's containers `<part>-pod[-N]-<container>`."""
    return re.fullmatch(rf"{part}-pod(-\d+)?-{container}", name) is not None


def check_init_steps(services: list[str], since: str, logs) -> None:
    """Each service's init step (`gatehouse migrate`) ran to success before the service started."""
    died, started = container_events(since, "died"), container_events(since, "start")
    for part in services:
        migrated = [code for name, code in died if container_of(name, part, "migrate")]
        if migrated != [0]:
            fail(f"{part}: the init step ended {migrated}, not once with 0\n{logs()}")
        order = [name for name, _ in started if container_of(name, part, "migrate") or container_of(name, part, part)]
        if len(order) != 2 or not container_of(order[0], part, "migrate"):
            fail(f"{part}: the service started before its migrations were applied: {order}")
    print(f"pods-smoke: {', '.join(services)}: the init step applied the migrations before the service started")


def stop_gracefully(parts: list[str], since: str, logs) -> None:
    """SIGTERM (the grace period of the manifests): every part drains and exits 0."""
    pods = run("podman", "pod", "ps", "--format", "{{.Name}}").stdout.split()
    for part in parts:
        for pod in (p for p in pods if re.fullmatch(rf"{part}-pod(-\d+)?", p)):
            run("podman", "pod", "stop", "--time", "45", pod)
    died = container_events(since, "died")
    for part in parts:
        codes = [code for name, code in died if container_of(name, part, part)]
        if codes != [0]:
            fail(f"{part}: stopped with exit codes {codes}, not a clean drain\n{logs()}")
    print("pods-smoke: SIGTERM: every part drained and exited 0")


def smoke(api: str, base_url: str, trace_id: str, logs) -> None:
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    email = f"pods-{secrets.token_hex(6)}@example.com"
    password = "Correct-Horse-9"
    origin = {"origin": base_url}
    status, body = http(
        opener, "POST", f"{api}/sign-up/email",
        {"name": "Pod Person", "email": email, "password": password},
        {**origin, "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"},
    )
    if status != 200 or body["user"]["email"] != email:
        fail(f"sign-up answered {status} {body}\n{logs()}")
    jar.clear()
    status, body = http(opener, "POST", f"{api}/sign-in/email", {"email": email, "password": password}, origin)
    if status != 200 or not body.get("token"):
        fail(f"sign-in answered {status} {body}\n{logs()}")
    status, body = http(opener, "GET", f"{api}/get-session")
    if status != 200 or not body or body["user"]["email"] != email:
        fail(f"get-session answered {status} {body}\n{logs()}")
    organization(api, opener, origin, email, logs)
    status, body = http(opener, "POST", f"{api}/sign-out", {}, origin)
    if status != 200 or body != {"success": True}:
        fail(f"sign-out answered {status} {body}")
    status, body = http(opener, "GET", f"{api}/get-session")
    if status != 200 or body is not None:
        fail(f"get-session after sign-out answered {status} {body}")
    status, body = http(opener, "POST", f"{api}/sign-in/email", {"email": email, "password": "wrong-password-1"}, origin)
    if status != 401 or body.get("code") != "INVALID_EMAIL_OR_PASSWORD":
        fail(f"a wrong password answered {status} {body}")
    print("pods-smoke: sign-up, sign-in, get-session and sign-out through the gateway pod")


def organization(api: str, opener, origin: dict, email: str, logs) -> None:
    """An organization across the pods: the gateway asks the organization service, which reads
    the member's user from identity and sets the session's active organization in session."""
    slug = f"pods-{secrets.token_hex(4)}"
    status, body = http(opener, "POST", f"{api}/organization/create", {"name": "Pod Org", "slug": slug}, origin)
    if status != 200 or body.get("slug") != slug or body["members"][0]["role"] != "owner":
        fail(f"organization/create answered {status} {body}\n{logs()}")
    status, session = http(opener, "GET", f"{api}/get-session?disableCookieCache=true")
    if status != 200 or session["session"]["activeOrganizationId"] != body["id"]:
        fail(f"the new organization is not the session's active one: {status} {session}\n{logs()}")
    status, full = http(opener, "GET", f"{api}/organization/get-full-organization")
    if status != 200 or [m["user"]["email"] for m in full["members"]] != [email]:
        fail(f"get-full-organization answered {status} {full}\n{logs()}")
    print("pods-smoke: an organization went gateway → organization → identity and session, and reads back")


def billing_webhook(site: str, secret: str, database: str, logs) -> None:
    """A payments platform's delivery through the gateway pod to billing-webhook, signed as the
    platform signs (Standard Webhooks, the HMAC key the secret's text, `whsec_` included), then
    the same delivery again: stored once, acknowledged both times."""
    body = (b'{"type":"order.paid","timestamp":"2026-09-14T10:21:37.004512Z",'
            b'"api_version":"2026-04","data":{"id":"ord_1"}}')
    webhook_id = f"msg_pods_{secrets.token_hex(8)}"
    timestamp = str(int(time.time()))
    mac = hmac.new(secret.encode(), f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256)
    headers = {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": timestamp,
        "webhook-signature": "v1," + base64.b64encode(mac.digest()).decode(),
    }

    def deliver():
        request = urllib.request.Request(f"{site}/api/billing/webhooks", data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    status, first = deliver()
    if status != 202 or not isinstance(first, dict) or not first.get("id") or first.get("duplicate") is not False:
        fail(f"a signed webhook answered {status} {first}\n{logs()}")
    print(f"pods-smoke: POST /api/billing/webhooks ({webhook_id}) answered {status} {json.dumps(first)}")
    status, again = deliver()
    if status != 200 or again != {"id": first["id"], "duplicate": True}:
        fail(f"the same delivery again answered {status} {again}\n{logs()}")
    print(f"pods-smoke: the same delivery again answered {status} {json.dumps(again)}")
    stored = run("psql", database, "-tAc",
                 f"SELECT count(*) FROM received_events WHERE webhook_id = '{webhook_id}'").stdout.strip()
    if stored != "1":
        fail(f"billing-webhook's database holds {stored!r} rows of {webhook_id}, not 1")
    print("pods-smoke: a signed webhook went gateway → billing-webhook → its database, stored once")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def mail_flow(api: str, base_url: str, spool: Path, logs) -> None:
    """A password reset across the pods: the gateway, identity's outbox, RabbitMQ, the mailer
    pod and a real SMTP server; then the mailed link and the new password."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    email = f"pods-mail-{secrets.token_hex(6)}@example.com"
    origin = {"origin": base_url}
    status, body = http(opener, "POST", f"{api}/sign-up/email", {"name": "Pod Mail", "email": email, "password": "Correct-Horse-9"}, origin)
    if status != 200:
        fail(f"sign-up answered {status} {body}\n{logs()}")
    status, body = http(opener, "POST", f"{api}/request-password-reset", {"email": email, "redirectTo": "/reset-password/"}, origin)
    if status != 200 or body.get("status") is not True:
        fail(f"request-password-reset answered {status} {body}\n{logs()}")

    def received():
        for path in spool.glob("*.eml"):
            message = email_parser.BytesParser(policy=email_policy.default).parsebytes(path.read_bytes())
            if email in str(message["To"]):
                return message
        return None

    wait_for(f"the reset mail to {email} at the SMTP server", lambda: received() is not None, 60, logs)
    text = received().get_body(preferencelist=("plain",)).get_content()
    links = re.findall(r"https?://\S+", text)
    prefix = f"{base_url}/api/auth/reset-password/"
    if not links or not links[0].startswith(prefix):
        fail(f"the mail's link is not on BASE_URL: {links}")
    token = links[0][len(prefix):].split("?")[0]
    site = api.removesuffix("/api/auth")
    try:
        urllib.request.build_opener(NoRedirect).open(site + links[0][len(base_url):], timeout=10)
        fail("the reset link did not redirect")
    except urllib.error.HTTPError as error:
        code, location = error.code, error.headers.get("location", "")
    if code != 302 or f"token={token}" not in location:
        fail(f"the reset link answered {code} to {location!r}")
    status, body = http(opener, "POST", f"{api}/reset-password", {"token": token, "newPassword": "New-Horse-10"}, origin)
    if status != 200:
        fail(f"reset-password answered {status} {body}")
    status, body = http(opener, "POST", f"{api}/sign-in/email", {"email": email, "password": "New-Horse-10"}, origin)
    if status != 200:
        fail(f"sign-in with the new password answered {status} {body}")
    print("pods-smoke: a password reset went gateway → identity → RabbitMQ → mailer → SMTP, and its link worked")


def web_app(site: str, logs) -> None:
    """The image carries the web app and the gateway pod serves it: a page and its script."""
    try:
        with urllib.request.urlopen(f"{site}/sign-in/", timeout=10) as reply:
            page = reply.read().decode()
            kind = reply.headers.get("content-type", "")
    except urllib.error.URLError as error:
        fail(f"the web app's sign-in page: {error}\n{logs()}")
    scripts = re.findall(r'src="(/_next/static/[^"]+\.js)"', page)
    if not kind.startswith("text/html") or "Sign in" not in page or not scripts:
        fail(f"the gateway pod did not serve the web app's sign-in page ({kind})\n{logs()}")
    request = urllib.request.Request(f"{site}{scripts[0]}", headers={"accept-encoding": "br"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        cache = reply.headers.get("cache-control", "")
        encoding = reply.headers.get("content-encoding", "")
    if "immutable" not in cache or encoding != "br":
        fail(f"{scripts[0]} answered cache-control {cache!r}, content-encoding {encoding!r}")
    print(f"pods-smoke: the gateway pod serves the web app ({len(scripts)} scripts on /sign-in/, brotli, immutable)")


def main() -> None:
    image = sys.argv[1] if len(sys.argv) > 1 else "localhost/gatehouse:dev"
    # The image's own list of parts (`gatehouse parts --json`): the one list, with each part's
    # variables.
    placements = json.loads(
        run("podman", "run", "--rm", "--entrypoint", "/usr/local/bin/gatehouse", image, "parts", "--json").stdout
    )
    parts = [placement["name"] for placement in placements]
    keys = [key for part in parts for key in (part, part + "-ops")] + ["smtp"]
    ports = dict(zip(keys, free_ports(len(keys))))
    suffix = secrets.token_hex(4)
    databases = {
        p["name"]: f"gh_pods_{p['name'].replace('-', '_')}_{suffix}" for p in placements if p["database_url_var"]
    }
    base_url = f"http://localhost:{ports['gateway']}"

    sink = TraceSink()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(sink, server)
    otlp_port = server.add_insecure_port("127.0.0.1:0")
    server.start()

    work = Path(tempfile.mkdtemp(prefix="gatehouse-pods-"))
    secret_dir = work / "secrets"
    secret_dir.mkdir()
    spool = work / "spool"
    spool.mkdir()
    smtp_port = ports.pop("smtp")
    smtp_python = os.environ.get("SMTP_SINK_PYTHON", str(Path.home() / ".cache/gatehouse-smtp-venv/bin/python"))
    smtp_sink = subprocess.Popen(
        [smtp_python, str(ROOT / "services/mailer/tests/smtp_sink.py"), str(smtp_port), str(spool)],
        stdout=subprocess.PIPE,
        text=True,
    )
    if smtp_sink.stdout is None or smtp_sink.stdout.readline().strip() != "ready":
        fail(f"the SMTP server ({smtp_python}, aiosmtpd) did not start")
    pg_base = POSTGRES.rsplit("/", 1)[0]
    values = {
        "auth-secret": secrets.token_hex(32),
        "service-token": secrets.token_hex(32),
        "cache-url": "redis://127.0.0.1:6379",
        "bus-url": "amqp://guest:guest@127.0.0.1:5672/%2f",
        **{secret_file(p["database_url_var"]): f"{pg_base}/{databases[p['name']]}" for p in placements
           if p["database_url_var"]},
        # A real SMTP server (aiosmtpd) on this host: the mail flow step reads what it receives.
        "mail-url": f"smtp://127.0.0.1:{smtp_port}",
        # As the payments platform shows it; the webhook step signs with it.
        "polar-webhook-secret": f"whsec_{base64.b64encode(secrets.token_bytes(24)).decode()}",
        # No social sign-in provider here (every part reads the file: the ConfigMap is shared).
        "social-providers": "{}",
    }
    for name, value in values.items():
        path = secret_dir / name
        path.write_text(value)
        os.chown(path, 65532, 65532)
        path.chmod(0o400)
    secret_dir.chmod(0o755)

    manifests, probes = render_for_podman(
        placements, image, ports, {"base": base_url, "otlp": f"http://127.0.0.1:{otlp_port}"}, secret_dir
    )
    played = work / "pods.yaml"
    played.write_text(yaml.safe_dump_all(manifests))

    def logs() -> str:
        out = []
        # podman names them `<part>-pod[-N]-<container>` (4.3: `gateway-pod-0-gateway`).
        names = subprocess.run(["podman", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True).stdout.split()
        for part in parts:
            for name in (n for n in names if container_of(n, part, "migrate") or container_of(n, part, part)):
                result = subprocess.run(["podman", "logs", "--tail", "40", name], capture_output=True, text=True)
                if result.returncode == 0:
                    out.append(f"--- {name} ---\n{result.stdout}{result.stderr}")
        return "\n".join(out)

    try:
        for name in databases.values():
            psql(f"CREATE DATABASE {name}")
        started, since = time.monotonic(), str(int(time.time()) - 1)
        play = subprocess.run(["podman", "kube", "play", str(played)], capture_output=True, text=True)
        if play.returncode != 0:
            fail(f"podman kube play failed: {play.stderr}{play.stdout}")
        print(f"pods-smoke: played {len(parts)} Deployments from k8s/overlays/dev ({image})")
        for part in parts:
            check_probes(part, probes[part], ports, logs)
        print(f"pods-smoke: every part ready {time.monotonic() - started:.1f} s after kube play")
        check_init_steps(list(databases), since, logs)
        trace_id = secrets.token_hex(16)
        smoke(f"http://127.0.0.1:{ports['gateway']}/api/auth", base_url, trace_id, logs)
        web_app(f"http://127.0.0.1:{ports['gateway']}", logs)
        billing_webhook(
            f"http://127.0.0.1:{ports['gateway']}", values["polar-webhook-secret"],
            f"{pg_base}/{databases['billing-webhook']}", logs,
        )
        mail_flow(f"http://127.0.0.1:{ports['gateway']}/api/auth", base_url, spool, logs)

        expected = {"gatehouse-gateway", "gatehouse-identity", "gatehouse-session"}
        wait_for(
            f"spans of trace {trace_id} from {sorted(expected)} with the outbox's publish",
            lambda: expected <= set(sink.services_in(trace_id))
            and "publish" in sink.services_in(trace_id).get("gatehouse-identity", set()),
            30,
            lambda: f"spans seen for the trace: {sink.services_in(trace_id)}\n{logs()}",
        )
        seen = sink.services_in(trace_id)
        print(f"pods-smoke: the sign-up is one trace: {', '.join(f'{s} {sorted(n)}' for s, n in sorted(seen.items()))}")
        stop_gracefully(parts, since, logs)
    finally:
        subprocess.run(["podman", "kube", "down", str(played)], capture_output=True)
        server.stop(0)
        smtp_sink.kill()
        for name in databases.values():
            subprocess.run(["psql", POSTGRES, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)
        subprocess.run(["rm", "-rf", str(work)])
    print("pods-smoke: pods torn down")


main()
