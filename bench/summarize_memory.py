"""bench/run-memory.sh's summary: resident memory per mode, process and phase, next to the
throughput each load reached; with --ceilings, the footprint gate on standalone.

    python3 summarize_memory.py READINGS THROUGHPUT OUT_DIR HOW [--ceilings FILE --profile P]

READINGS lines: "<mode> <phase> <process> <MiB>"; THROUGHPUT lines: "<mode> <load>=<req/s> …".
Writes OUT_DIR/summary.md and OUT_DIR/summary.json; exits 1 when a ceiling is passed by more
than CEILING_MARGIN.
"""

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

PHASES = ["idle", "get-session", "sign-in", "admin-list"]
# A footprint moves with the allocator and the load's timing by a few MiB: the gate is for a
# regression (a new arena, a cache that keeps everything), not for noise.
CEILING_MARGIN = 1.25


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("readings")
    parser.add_argument("throughput")
    parser.add_argument("out")
    parser.add_argument("how")
    parser.add_argument("--ceilings")
    parser.add_argument("--profile", default="release")
    args = parser.parse_args()

    rss: dict = defaultdict(lambda: defaultdict(dict))
    for line in Path(args.readings).read_text().splitlines():
        mode, phase, process, mib = line.split()
        rss[mode][process][phase] = float(mib)
    rps: dict = {}
    for line in Path(args.throughput).read_text().splitlines():
        mode, *loads = line.split()
        rps[mode] = {k: float(v) for k, v in (load.split("=") for load in loads)}

    lines = [f"# Resident memory (MiB) — {args.how}", ""]
    lines += ["| mode | process | " + " | ".join(PHASES) + " |", "|---|---|" + "---|" * len(PHASES)]
    summary: dict = {"how": args.how, "rss_mib": {}, "requests_per_second": rps}
    for mode, processes in rss.items():
        totals = {p: round(sum(v.get(p, 0) for v in processes.values()), 1) for p in PHASES}
        summary["rss_mib"][mode] = {"total": totals, **{name: dict(v) for name, v in processes.items()}}
        for name in sorted(processes):
            lines.append(f"| {mode} | {name} | " + " | ".join(f"{processes[name].get(p, '—')}" for p in PHASES) + " |")
        if len(processes) > 1:
            lines.append(f"| {mode} | **all** | " + " | ".join(f"**{totals[p]}**" for p in PHASES) + " |")
    lines += ["", "| mode | get-session req/s | sign-in req/s | admin-list req/s |", "|---|---|---|---|"]
    for mode, loads in rps.items():
        lines.append(f"| {mode} | " + " | ".join(f"{loads.get(p, 0):.0f}" for p in PHASES[1:]) + " |")

    failed = []
    if args.ceilings:
        recorded = json.loads(Path(args.ceilings).read_text())
        if args.profile not in recorded:
            print(f"{args.ceilings} records no ceilings for a {args.profile} build", file=sys.stderr)
            return 1
        ceilings = recorded[args.profile]
        measured = summary["rss_mib"].get("standalone", {}).get("total", {})
        lines += ["", f"Ceilings ({args.profile} build, standalone, ×{CEILING_MARGIN} allowed):", ""]
        for phase, ceiling in ceilings.items():
            value = measured.get(phase)
            if value is None:
                failed.append(f"{phase}: not measured")
                continue
            ok = value <= ceiling * CEILING_MARGIN
            lines.append(f"- {phase}: {value} MiB, ceiling {ceiling} MiB → {'ok' if ok else 'OVER'}")
            if not ok:
                failed.append(f"{phase}: {value} MiB > {ceiling} × {CEILING_MARGIN}")

    out = Path(args.out)
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("\n".join(lines))
    if failed:
        print("footprint over its ceiling: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
