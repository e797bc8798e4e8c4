#!/usr/bin/env python3
"""Summarize one bench/run.sh results folder: summary.md, summary.json, a table on stdout.

    python3 bench/summarize.py [--strict] bench/results/<stamp>

Reads the wrk outputs (the lines printed by bench/*.lua and by the reference's
lua scripts: "Requests/sec:", "latency_us p50=.. p90=.. p99=.. max=..",
"unexpected responses: N"), the RSS records (rss.txt of this harness,
*.rss of the reference's run-bench.sh), hash-timing.txt, cpu.txt and
markers.txt. --strict: exit 1 when a target is missed or cannot be judged.
Stdlib only.
"""
import json
import os
import re
import sys

MODES = ["reference", "standalone", "distributed"]
GATEHOUSE = ["standalone", "distributed"]
SCENARIOS = [
    ("get-session-nocache", "get-session, cache off"),
    ("get-session-cookiecache", "get-session, cookie cache on"),
    ("sign-in", "sign-in/email, saturated"),
    ("sign-in-c1", "sign-in/email, 1 connection"),
    ("mixed-get-session", "mixed: get-session beside sign-in"),
    ("mixed-sign-in", "mixed: sign-in beside get-session"),
]
# the targets of the issue
GS_RPS_MIN = 15000.0
GS_P99_MAX_MS = 5.0
CC_RATIO_MIN = 40.0
SIGNIN_TOLERANCE = 0.15
MIXED_P99_MAX_MS = 10.0
RSS_IDLE_MAX_MIB = 30.0
QUIET_MAX = float(os.environ.get("QUIET_MAX", "0.3"))  # foreign CPU cores

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def kv_file(path):
    out = {}
    for line in (read(path) or "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def kv_tokens(line):
    return dict(t.split("=", 1) for t in line.split() if "=" in t)


def parse_wrk(path):
    text = read(path)
    if text is None:
        return None
    r = {"file": path}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    r["rps"] = float(m.group(1)) if m else None
    m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", text)
    if m:
        r["requests"] = int(m.group(1))
    m = re.search(r"latency_us p50=(\d+) p90=(\d+) p99=(\d+) max=(\d+)", text)
    if m:
        r["p50_ms"], r["p90_ms"], r["p99_ms"], r["max_ms"] = (int(x) / 1000.0 for x in m.groups())
    m = re.search(r"unexpected responses: (\d+)", text)
    r["unexpected"] = int(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    r["non2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    r["socket_errors"] = sum(int(x) for x in m.groups()) if m else 0
    if m:
        r["socket_errors_detail"] = m.group(0)
    if r["rps"] is None:
        r["error"] = "no Requests/sec line (wrk failed?)"
    return r


def scenario_file(out, mode, name):
    for p in (os.path.join(out, mode, name + ".txt"), os.path.join(out, mode, "run-bench", name + ".txt")):
        if os.path.exists(p):
            return p
    return None


def load_rss(out, mode):
    """-> {"procs": {proc: {"startup": kb, "after_setup": kb, "peak": kb, "peak_scenario": s}},
    "cpu": {scenario: {proc: cores}}}"""
    procs, cpu = {}, {}

    def proc(n):
        return procs.setdefault(n, {"startup": None, "after_setup": None, "peak": None, "peak_scenario": None})

    def bump(d, key, kb):
        if kb and (d[key] is None or kb > d[key]):
            d[key] = kb
            return True
        return False

    for line in (read(os.path.join(out, mode, "rss.txt")) or "").splitlines():
        t = kv_tokens(line)
        if "phase" in t:
            bump(proc(t["proc"]), "startup" if t["phase"] == "startup" else "after_setup", int(t["rss_kb"]))
        elif "scenario" in t:
            p = proc(t["proc"])
            if bump(p, "peak", int(t.get("peak_kb", 0))):
                p["peak_scenario"] = t["scenario"]
            secs = float(t.get("secs", 0) or 0)
            if secs > 0 and "cpu_ticks" in t:
                cpu.setdefault(t["scenario"], {})[t["proc"]] = int(t["cpu_ticks"]) / CLK_TCK / secs
    rb = os.path.join(out, mode, "run-bench")
    if os.path.isdir(rb):  # the reference's own records (ps rss, KiB)
        p = proc("node")
        bump(p, "startup", int(kv_file(os.path.join(rb, "startup-cache0.rss")).get("startup_rss_kb", 0) or 0))
        for name, _ in SCENARIOS:
            d = kv_file(os.path.join(rb, name + ".rss"))
            if bump(p, "peak", int(d.get("peak_rss_kb", 0) or 0)):
                p["peak_scenario"] = name
    return {"procs": procs, "cpu": cpu}


def load_cpu(out):
    """foreign CPU (cores) and ours per marked interval"""
    samples = []
    for line in (read(os.path.join(out, "cpu.txt")) or "").splitlines():
        t = kv_tokens(line)
        try:
            samples.append((float(t["t"]), int(t["busy"]), int(t["ours"]), t.get("top", "-")))
        except (KeyError, ValueError):
            continue
    starts, res = {}, {}
    for line in (read(os.path.join(out, "markers.txt")) or "").splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        mode, name, what, ts = parts[0], parts[1], parts[2], float(parts[3])
        if what == "start":
            starts[(mode, name)] = ts
            continue
        t0 = starts.get((mode, name))
        inside = [s for s in samples if t0 is not None and t0 <= s[0] <= ts]
        if len(inside) < 2:
            continue
        a, b = inside[0], inside[-1]
        dt = b[0] - a[0]
        if dt <= 0:
            continue
        foreign = max(0.0, ((b[1] - a[1]) - (b[2] - a[2])) / CLK_TCK / dt)
        tops = {}
        for s in inside[1:]:
            for item in s[3].split(","):
                if ":" in item:
                    c, n = item.rsplit(":", 1)
                    tops[c] = tops.get(c, 0) + int(n)
        top = [(c, n) for c, n in sorted(tops.items(), key=lambda x: -x[1])[:3] if n / CLK_TCK / dt >= 0.01]
        res[(mode, name)] = {
            "foreign_cores": foreign,
            "ours_cores": (b[2] - a[2]) / CLK_TCK / dt,
            "foreign_top": ", ".join(f"{c} {n / CLK_TCK / dt:.2f}" for c, n in top),
        }
    return res


def fmt_rps(v):
    return "—" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_ms(v):
    return "—" if v is None else f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def fmt_mib(kb):
    return "—" if not kb else f"{kb / 1024:.1f}"


def fmt_x(v):
    return "—" if v is None else f"{v:.2f}×" if v < 10 else f"{v:.1f}×"


def cell(r):
    if r is None:
        return "not run"
    if r.get("error"):
        return "failed"
    s = f"{fmt_rps(r['rps'])} req/s ({fmt_ms(r.get('p50_ms'))} / {fmt_ms(r.get('p99_ms'))} ms)"
    if r.get("unexpected") or r.get("socket_errors") or r.get("non2xx"):
        s += " ⚠"
    return s


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0].rstrip("/")
    env = kv_file(os.path.join(out, "env.txt"))
    status = kv_file(os.path.join(out, "status.txt"))
    modes = [m for m in MODES if m in env.get("modes", " ".join(MODES)).split()]
    nproc = int(env.get("host_nproc", os.cpu_count() or 1))
    ht = kv_file(os.path.join(out, "hash-timing.txt"))
    argon_ms = float(ht["argon2id_ms"]) if ht.get("argon2id_ms") else None
    expected_signin = nproc * 1000.0 / argon_ms if argon_ms else None

    data = {m: {name: parse_wrk(scenario_file(out, m, name)) if scenario_file(out, m, name) else None
                for name, _ in SCENARIOS} for m in modes}
    rss = {m: load_rss(out, m) for m in modes}
    cpu = load_cpu(out)
    warnings = []

    for m in modes:
        for name, _ in SCENARIOS:
            r = data[m][name]
            if r is None:
                continue
            if r.get("error"):
                warnings.append(f"{m}/{name}: {r['error']}")
            if r.get("unexpected"):
                warnings.append(f"{m}/{name}: {r['unexpected']} unexpected responses (not 200, or a null session)")
            if r.get("non2xx"):
                warnings.append(f"{m}/{name}: {r['non2xx']} non-2xx/3xx responses")
            if r.get("socket_errors"):
                warnings.append(f"{m}/{name}: {r.get('socket_errors_detail')}")
    for (m, name), c in sorted(cpu.items()):
        if c["foreign_cores"] > QUIET_MAX:
            warnings.append(
                f"{m}/{name}: other processes used {c['foreign_cores']:.2f} cores during the run"
                f" ({c['foreign_top'] or '?'}): the numbers are not from a quiet machine"
            )
    for m, s in status.items():
        if s != "ok":
            warnings.append(f"mode {m}: {s}")

    ref = data.get("reference", {})

    def g(m, name, key):
        r = data.get(m, {}).get(name)
        return None if r is None else r.get(key)

    # ---- targets
    targets = []  # (label, {mode: (verdict, detail)})

    def verdict(ok):
        return "n/a" if ok is None else ("PASS" if ok else "FAIL")

    row = {}
    for m in GATEHOUSE:
        if m not in modes:
            continue
        rps, p99 = g(m, "get-session-nocache", "rps"), g(m, "get-session-nocache", "p99_ms")
        ok = None if rps is None or p99 is None else (rps >= GS_RPS_MIN and p99 <= GS_P99_MAX_MS)
        row[m] = (verdict(ok), f"{fmt_rps(rps)} req/s, p99 {fmt_ms(p99)} ms")
    targets.append((f"get-session (cache off, c{env_conns(env)}) ≥ {GS_RPS_MIN:,.0f} req/s and p99 ≤ {GS_P99_MAX_MS:g} ms", row))

    row = {}
    ref_cc = g("reference", "get-session-cookiecache", "rps")
    for m in GATEHOUSE:
        if m not in modes:
            continue
        rps = g(m, "get-session-cookiecache", "rps")
        x = ratio(rps, ref_cc)
        ok = None if x is None else x >= CC_RATIO_MIN
        row[m] = (verdict(ok), f"{fmt_rps(rps)} req/s = {fmt_x(x)} the reference's {fmt_rps(ref_cc)}")
    targets.append((f"get-session with cookie cache ≥ {CC_RATIO_MIN:g}× the reference (cookie cache on in both)", row))

    row = {}
    for m in GATEHOUSE:
        if m not in modes:
            continue
        rps = g(m, "sign-in", "rps")
        x = ratio(rps, expected_signin)
        ok = None if x is None else abs(x - 1.0) <= SIGNIN_TOLERANCE
        row[m] = (verdict(ok), f"{fmt_rps(rps)} req/s = {fmt_x(x)} of {fmt_rps(expected_signin)} expected")
    targets.append((
        f"sign-in within {SIGNIN_TOLERANCE:.0%} of nproc×1000/argon2id_ms"
        f" ({nproc}×1000/{argon_ms if argon_ms else '?'} = {fmt_rps(expected_signin)} req/s)", row))

    row = {}
    for m in GATEHOUSE:
        if m not in modes:
            continue
        p99 = g(m, "mixed-get-session", "p99_ms")
        ok = None if p99 is None else p99 <= MIXED_P99_MAX_MS
        row[m] = (verdict(ok), f"p99 {fmt_ms(p99)} ms (sign-in beside it: {fmt_rps(g(m, 'mixed-sign-in', 'rps'))} req/s)")
    targets.append((f"get-session p99 ≤ {MIXED_P99_MAX_MS:g} ms while sign-in is saturated", row))

    row = {}
    for m in GATEHOUSE:
        if m not in modes:
            continue
        procs = rss[m]["procs"]
        if not procs:
            row[m] = ("n/a", "no RSS records")
            continue
        worst = max(max(p["startup"] or 0, p["after_setup"] or 0) for p in procs.values())
        ok = worst / 1024 <= RSS_IDLE_MAX_MIB if worst else None
        detail = ", ".join(
            f"{n} {fmt_mib(p['startup'])}/{fmt_mib(p['after_setup'])}" for n, p in procs.items()
        )
        row[m] = (verdict(ok), f"MiB at start/after setup: {detail}")
    targets.append((f"RSS idle ≤ {RSS_IDLE_MAX_MIB:g} MiB per service (at start and after the setup sign-in)", row))

    # ---- markdown
    L = []
    L.append(f"# Gatehouse benchmark {env.get('date_utc', os.path.basename(out))}")
    L.append("")
    L.append(
        f"Machine: {env.get('host_nproc', '?')} cores ({env.get('cpu', '?')}), {env.get('mem', '?')}; "
        f"{env.get('wrk', 'wrk')}; node {env.get('node', '?')}."
    )
    L.append(
        f"wrk: -d{env_get(env, 'dur')} (after a {env_get(env, 'warmup')} warm-up) --timeout {env_get(env, 'timeout')}, "
        f"-t{env_get(env, 'threads')} -c{env_conns(env)} unless noted; mixed = two wrk at once, each -t1 -c{env_get(env, 'mix_conns')}."
    )
    L.append(f"Rate limiting: {env.get('rate_limit', 'disabled')}.")
    rb_env = kv_file(os.path.join(out, "reference", "run-bench", "env.txt"))
    if rb_env:
        L.append(f"Reference: better-auth {rb_env.get('better-auth', '?')} on node {rb_env.get('node', '?')} (its own bench/run-bench.sh).")
    if env.get("gatehouse_bin") and env.get("gatehouse_bin") != "none":
        L.append(
            f"Gatehouse binary: `{env['gatehouse_bin']}` (sha256 {env.get('gatehouse_bin_sha256', '?')[:12]}…, "
            f"built {env.get('gatehouse_bin_mtime', '?')}); git {env.get('git_head', '?')}"
            f" ({env.get('git_dirty', '?')} uncommitted); argon2id_ms={argon_ms if argon_ms else 'n/a'}."
        )
    L.append("Modes: " + ", ".join(f"{m} {status.get(m, 'not run')}" for m in modes) + ".")
    L.append("")
    L.append("## Throughput and latency")
    L.append("")
    L.append("req/s (p50 / p99 latency). ⚠ = unexpected responses or socket errors, see Warnings.")
    L.append("")
    L.append("| scenario | " + " | ".join(modes) + " |")
    L.append("|---|" + "---|" * len(modes))
    for name, label in SCENARIOS:
        L.append(f"| {label} (`{name}`) | " + " | ".join(cell(data[m][name]) for m in modes) + " |")
    L.append("")
    gh = [m for m in GATEHOUSE if m in modes]
    if gh and "reference" in modes:
        L.append("## Ratios vs the reference (same machine, same run)")
        L.append("")
        L.append("| ratio | " + " | ".join(gh) + " |")
        L.append("|---|" + "---|" * len(gh))
        rows = [
            ("get-session req/s ÷ reference get-session req/s", "get-session-nocache", "get-session-nocache", "rps", False),
            ("cookie-cache get-session req/s ÷ reference cookie-cache req/s", "get-session-cookiecache", "get-session-cookiecache", "rps", False),
            ("cookie-cache get-session req/s ÷ reference get-session (cache off) req/s", "get-session-cookiecache", "get-session-nocache", "rps", False),
            ("sign-in req/s ÷ reference sign-in req/s", "sign-in", "sign-in", "rps", False),
            ("get-session p99: reference ÷ gatehouse (how many times lower)", "get-session-nocache", "get-session-nocache", "p99_ms", True),
            ("mixed get-session p99: reference ÷ gatehouse", "mixed-get-session", "mixed-get-session", "p99_ms", True),
            ("single sign-in p50: reference ÷ gatehouse", "sign-in-c1", "sign-in-c1", "p50_ms", True),
        ]
        for label, mine, theirs, key, inverse in rows:
            cells = []
            for m in gh:
                a, b = g(m, mine, key), g("reference", theirs, key)
                cells.append(fmt_x(ratio(b, a) if inverse else ratio(a, b)))
            L.append(f"| {label} | " + " | ".join(cells) + " |")
        L.append("")
    L.append("## Targets")
    L.append("")
    if gh:
        L.append("| target | " + " | ".join(gh) + " |")
        L.append("|---|" + "---|" * len(gh))
        for label, row in targets:
            L.append(f"| {label} | " + " | ".join(
                f"**{row[m][0]}** {row[m][1]}" if m in row else "not run" for m in gh) + " |")
    else:
        L.append("No Gatehouse mode in this run.")
    L.append("")
    parallel_ms = float(ht["argon2id_parallel_ms"]) if ht.get("argon2id_parallel_ms") else None
    if gh and parallel_ms:
        ceiling = nproc * 1000.0 / parallel_ms
        reached = ", ".join(f"{m} {fmt_x(ratio(g(m, 'sign-in', 'rps'), ceiling))}" for m in gh)
        L.append(
            f"Hashing ceiling (information, not a target): with {nproc} hashes running at once one "
            f"takes {parallel_ms:g} ms (`argon2id_parallel_ms`, vs {argon_ms:g} ms alone), so this machine "
            f"can hash at most {fmt_rps(ceiling)} passwords/s; sign-in reached {reached} of that."
        )
        L.append("")
    L.append("## Memory (RSS, MiB; VmRSS of each process)")
    L.append("")
    L.append("| mode | process | at start (idle) | after setup sign-up/sign-in | peak under load (scenario) |")
    L.append("|---|---|---|---|---|")
    for m in modes:
        for n, p in rss[m]["procs"].items():
            L.append(
                f"| {m} | {n} | {fmt_mib(p['startup'])} | {fmt_mib(p['after_setup'])} | "
                f"{fmt_mib(p['peak'])} ({p['peak_scenario'] or '—'}) |"
            )
    L.append("")
    L.append("## CPU during each scenario (cores; the machine has %d)" % nproc)
    L.append("")
    L.append("| mode/scenario | server processes | bench total (servers + wrk + harness) | other processes (top users) |")
    L.append("|---|---|---|---|")
    names = {("reference", "run-bench"): "whole run-bench.sh"}
    for (m, name), c in cpu.items():  # in the order they ran
        srv = rss.get(m, {}).get("cpu", {}).get(name, {})
        srv_s = ", ".join(f"{p} {v:.2f}" for p, v in srv.items()) or "—"
        L.append(
            f"| {m}/{names.get((m, name), name)} | {srv_s} | {c['ours_cores']:.2f} | "
            f"{c['foreign_cores']:.2f} ({c['foreign_top'] or '—'}) |"
        )
    L.append("")
    L.append("## Warnings")
    L.append("")
    L.extend([f"- {w}" for w in warnings] or ["none"])
    L.append("")
    L.append("Raw outputs: `*.txt` (wrk), `rss.txt`, `*.rss-samples`, server logs and `/metrics` scrapes per mode folder; "
             "`commands.txt` has every wrk command line; `reference/run-bench/` is the reference's own output.")
    md = "\n".join(L) + "\n"
    with open(os.path.join(out, "summary.md"), "w", encoding="utf-8") as f:
        f.write(md)
    summary = {
        "env": env,
        "status": status,
        "argon2id_ms": argon_ms,
        "expected_sign_in_rps": expected_signin,
        "scenarios": data,
        "rss": rss,
        "cpu": {f"{m}/{n}": v for (m, n), v in cpu.items()},
        "targets": [{"target": label, **{m: {"verdict": v[0], "detail": v[1]} for m, v in row.items()}}
                    for label, row in targets],
        "warnings": warnings,
    }
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, default=str)
    print(md)
    if strict:
        bad = [1 for _, row in targets for m, v in row.items() if v[0] != "PASS"]
        if bad or not gh:
            sys.exit(1)


def env_get(env, key):
    return env.get(key, "?")


def env_conns(env):
    return env_get(env, "conns")


if __name__ == "__main__":
    main()
