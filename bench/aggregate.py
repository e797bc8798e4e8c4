#!/usr/bin/env python3
"""Median over several bench/run.sh runs, leaving out disturbed measurements.

    python3 bench/aggregate.py [--quiet-max 0.3] bench/results/A bench/results/B ...

Reads each folder's summary.json (written by summarize.py). A scenario's
measurement is "clean" when other processes used at most --quiet-max cores
during it (cpu accounting of cpumon.py); the medians are over the clean
measurements (over all of them, marked "(all)", when none is clean).
Prints a markdown table: one line per mode and scenario, with every run's
req/s so the spread stays visible. Stdlib only.
"""
import json
import os
import statistics
import sys

ORDER = ["get-session-nocache", "get-session-cookiecache", "sign-in", "sign-in-c1",
         "mixed-get-session", "mixed-sign-in"]
CPU_KEY = {"mixed-get-session": "mixed", "mixed-sign-in": "mixed"}


def fmt(v, unit=""):
    if v is None:
        return "—"
    if unit == "rps":
        return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def main():
    args = sys.argv[1:]
    qmax = 0.3
    if args[:1] == ["--quiet-max"]:
        qmax = float(args[1])
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    runs = []
    for d in args:
        p = os.path.join(d, "summary.json")
        try:
            with open(p, encoding="utf-8") as f:
                runs.append((os.path.basename(d.rstrip("/")), json.load(f)))
        except (OSError, ValueError) as e:
            print(f"skipping {d}: {e}", file=sys.stderr)
    rows = {}
    rss = {}
    for name, s in runs:
        for mode, scen in s.get("scenarios", {}).items():
            for sc, r in scen.items():
                if not r or r.get("rps") is None:
                    continue
                cpu = s.get("cpu", {}).get(f"{mode}/{CPU_KEY.get(sc, sc)}")
                foreign = cpu.get("foreign_cores") if cpu else None
                clean = foreign is not None and foreign <= qmax
                rows.setdefault((mode, sc), []).append((name, r, foreign, clean))
        for mode, d in s.get("rss", {}).items():
            for proc, p in d.get("procs", {}).items():
                e = rss.setdefault((mode, proc), {"startup": [], "peak": []})
                if p.get("startup"):
                    e["startup"].append(p["startup"])
                if p.get("peak"):
                    e["peak"].append(p["peak"])
    print(f"Medians over {len(runs)} runs ({', '.join(n for n, _ in runs)}); "
          f"clean = other processes used ≤ {qmax:g} cores during the measurement.\n")
    print("| mode | scenario | clean/runs | req/s | p50 ms | p90 ms | p99 ms | req/s of every run (foreign cores) |")
    print("|---|---|---|---|---|---|---|---|")
    modes = []
    for mode, _ in rows:
        if mode not in modes:
            modes.append(mode)
    for mode in modes:
        for sc in ORDER:
            ms = rows.get((mode, sc))
            if not ms:
                continue
            use = [m for m in ms if m[3]] or ms
            tag = "" if any(m[3] for m in ms) else " (all)"

            def med(key):
                vals = [m[1].get(key) for m in use if m[1].get(key) is not None]
                return statistics.median(vals) if vals else None

            every = ", ".join(
                f"{fmt(m[1]['rps'], 'rps')} ({'?' if m[2] is None else f'{m[2]:.2f}'})" for m in ms)
            print(f"| {mode} | {sc} | {sum(m[3] for m in ms)}/{len(ms)}{tag} | {fmt(med('rps'), 'rps')} | "
                  f"{fmt(med('p50_ms'))} | {fmt(med('p90_ms'))} | {fmt(med('p99_ms'))} | {every} |")
    if rss:
        print("\n| mode | process | RSS at start, MiB (median) | peak RSS under load, MiB (median) |")
        print("|---|---|---|---|")
        for (mode, proc), e in rss.items():
            st = statistics.median(e["startup"]) / 1024 if e["startup"] else None
            pk = statistics.median(e["peak"]) / 1024 if e["peak"] else None
            print(f"| {mode} | {proc} | {fmt(st)} | {fmt(pk)} |")


if __name__ == "__main__":
    main()
