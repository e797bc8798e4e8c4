#!/usr/bin/env python3
"""Checks the Kubernetes manifests offline:

1. `kubectl kustomize` renders k8s/base and every overlay;
2. every rendered object validates against the Kubernetes schemas (kubernetes-validate);
3. every part the binary runs (`gatehouse parts`) has a Deployment, a Service and a
   NetworkPolicy of its name in the base, so a new service cannot ship without manifests;
4. every Gatehouse container runs as non-root with a read-only root filesystem, probes on
   its operations port and resource limits, and reads no secret from a plain value;
5. every service's pods apply its migrations first: an init container `gatehouse migrate
   <part>` of the same image.

    python3 scripts/k8s-check.py path/to/gatehouse
"""
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


def main() -> None:
    binary = sys.argv[1]
    parts = subprocess.run(
        [binary, "parts"], check=True, capture_output=True, text=True
    ).stdout.split()
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
