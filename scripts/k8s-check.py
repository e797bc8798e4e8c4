#!/usr/bin/env python3
"""Checks the Kubernetes manifests offline:

1. `kubectl kustomize` renders k8s/base and every overlay;
2. every rendered object validates against the Kubernetes schemas (kubernetes-validate);
3. every part the binary runs (`gatehouse parts --json`, the one list of parts) has a
   Deployment, a Service and a NetworkPolicy of its name in the base, so a new service cannot
   ship without manifests; the ConfigMap places it (its listen and operations addresses on the
   part's own ports, a service's URL at its Service, its database URL from a Secret file), its
   container's ports are those, and the dev overlay's Secret holds every file the ConfigMap
   names;
4. every Gatehouse container runs as non-root with a read-only root filesystem, probes on
   its operations port and resource limits, and reads no secret from a plain value;
5. every service's pods apply its migrations first: an init container `gatehouse migrate
   <part>` of the same image.

    python3 scripts/k8s-check.py path/to/gatehouse
"""
import json
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S_VERSION = "1.33.0"
SECRET_WORDS = ("SECRET", "TOKEN", "PASSWORD", "DATABASE_URL", "CACHE_URL", "BUS_URL")


def render(path: Path) -> list[dict]:
    out = subprocess.run(
        ["kubectl", "kustomize", str(path)], check=True, capture_output=True, text=True
    ).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def fail(message: str) -> None:
    print(f"k8s-check: {message}", file=sys.stderr)
    sys.exit(1)


def port(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def check_placements(placements: list[dict], base: list[dict], rendered: dict) -> None:
    """Each part's variables in the ConfigMap, on the ports its container declares."""
    (config,) = [d for d in base if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "gatehouse-config"]
    data = config["data"]
    deployments = {d["metadata"]["name"]: d for d in base if d["kind"] == "Deployment"}
    for placement in placements:
        name = placement["name"]
        (container,) = deployments[name]["spec"]["template"]["spec"]["containers"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        listen = {"listen_var": port(placement["default_listen"]), "ops_listen_var": port(placement["default_ops_listen"])}
        for var, default_port in listen.items():
            value = data.get(placement[var])
            if value is None or port(value) != default_port:
                fail(f"ConfigMap: {placement[var]} is {value!r}, not on {name}'s port {default_port}")
        if sorted(ports.values()) != sorted(listen.values()):
            fail(f"Deployment/{name}: container ports {ports} are not {sorted(listen.values())}")
        if placement["url_var"] and data.get(placement["url_var"]) != f"http://{name}:{listen['listen_var']}":
            fail(f"ConfigMap: {placement['url_var']} is {data.get(placement['url_var'])!r}, not {name}'s Service")
        if placement["database_url_var"] and not data.get(placement["database_url_var"] + "_FILE"):
            fail(f"ConfigMap: {name} has no {placement['database_url_var']}_FILE")
    files = {value.rsplit("/", 1)[1] for key, value in data.items() if key.endswith("_FILE")}
    (secret,) = [d for d in rendered["dev"] if d["kind"] == "Secret" and d["metadata"]["name"] == "gatehouse-secrets"]
    missing = files - set(secret.get("data", {})) - set(secret.get("stringData", {}))
    if missing:
        fail(f"dev: the Secret gatehouse-secrets lacks {sorted(missing)}, which the ConfigMap names")
    print(f"k8s-check: the ConfigMap places every part on its container's ports; the dev Secret holds its {len(files)} files")


def main() -> None:
    binary = sys.argv[1]
    placements = json.loads(
        subprocess.run([binary, "parts", "--json"], check=True, capture_output=True, text=True).stdout
    )
    parts = [placement["name"] for placement in placements]
    if "gateway" not in parts or len(parts) < 3:
        fail(f"`gatehouse parts` listed {parts}")
    trees = [ROOT / "k8s/base"] + sorted((ROOT / "k8s/overlays").iterdir())
    rendered = {}
    for tree in trees:
        docs = render(tree)
        rendered[tree.name] = docs
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
            except kubernetes_validate.ValidationError as error:
                name = f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
                fail(f"{tree.name}: {name} does not validate: {error.message}")
        print(f"k8s-check: {tree.relative_to(ROOT)}: {len(docs)} objects render and validate")

    base = rendered["base"]
    have = {(doc["kind"], doc["metadata"]["name"]) for doc in base}
    for part in parts:
        for kind in ("Deployment", "Service", "NetworkPolicy"):
            if (kind, part) not in have:
                fail(f"the part `{part}` has no {kind} named {part} in k8s/base")

    check_placements(placements, base, rendered)

    for tree, docs in rendered.items():
        for doc in docs:
            if doc["kind"] != "Deployment" or doc["metadata"]["name"] not in parts:
                continue
            spec = doc["spec"]["template"]["spec"]
            (container,) = spec["containers"]
            where = f"{tree}: Deployment/{doc['metadata']['name']}"
            security = container.get("securityContext", {})
            if not spec.get("securityContext", {}).get("runAsNonRoot"):
                fail(f"{where} may run as root")
            if not security.get("readOnlyRootFilesystem"):
                fail(f"{where} has a writable root filesystem")
            if "limits" not in container.get("resources", {}):
                fail(f"{where} has no resource limits")
            for probe in ("livenessProbe", "readinessProbe"):
                port = container.get(probe, {})
                port = (port.get("httpGet") or port.get("grpc") or {}).get("port")
                ops = {p["name"]: p["containerPort"] for p in container["ports"]}["ops"]
                if port not in ("ops", ops):
                    fail(f"{where}: {probe} is not on the operations port")
            if doc["metadata"]["name"] != "gateway":
                inits = spec.get("initContainers", [])
                migrate = ["migrate", doc["metadata"]["name"]]
                if not any(i.get("args") == migrate and i["image"] == container["image"] for i in inits):
                    fail(f"{where}: no init container runs `gatehouse {' '.join(migrate)}`")
                for init in inits:
                    if not init.get("securityContext", {}).get("readOnlyRootFilesystem"):
                        fail(f"{where}: init container {init['name']} has a writable root filesystem")
                    if "limits" not in init.get("resources", {}):
                        fail(f"{where}: init container {init['name']} has no resource limits")
            for env in container.get("env", []):
                if any(word in env["name"] for word in SECRET_WORDS) and "value" in env:
                    fail(f"{where}: {env['name']} is inlined; read it from the Secret")
    print(f"k8s-check: parts {', '.join(parts)} each have a Deployment, Service and NetworkPolicy")


main()
