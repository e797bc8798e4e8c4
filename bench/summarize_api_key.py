#!/usr/bin/env python3
"""Summary of a bench/run-api-key.sh run: summary.json and a few lines of text.

    python3 bench/summarize_api_key.py bench/results/api-key-<stamp> GH_RATE REF_RATE

Targets (issue 30): throughput >= 20x the reference; Gatehouse's p99 <= 10 ms at half its own
maximum; the other user's median under the unknown-key flood <= 1.10x without it.
"""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
gh_rate, ref_rate = (int(v) for v in sys.argv[2:4])
SIDES = ("gh", "ref")
NAMES = {"gh": "gatehouse", "ref": "reference"}


def kv(path):
    """key=value lines of a file (later ones win)."""
    values = {}
    if os.path.exists(path):
        for m in re.finditer(r"^(\w+)=(.*)$", open(path).read(), re.M):
            values[m.group(1)] = m.group(2).strip()
    return values


def rounds(pattern):
    def number(path):
        return int(re.search(r"-(\d+)(?:-\w+)?\.\w+$", path).group(1))
    return sorted(glob.glob(os.path.join(out, pattern)), key=number)


def oha(path):
    d = json.load(open(path))
    p = d["latencyPercentiles"]
    return dict(
        rps=round(d["summary"]["requestsPerSec"], 1),
        p50_ms=round(p["p50"] * 1e3, 3),
        p99_ms=round(p["p99"] * 1e3, 3),
        max_ms=round(d["summary"]["slowest"] * 1e3, 3),
        ok=d["statusCodeDistribution"].get("200", 0),
    )


def foreign(meta):
    """cores other processes used during the measurement (None in runs before it was measured)"""
    return float(meta["foreign_cores"]) if "foreign_cores" in meta else None


def median(values):
    return round(statistics.median(values), 3) if values else None


summary = {"env": kv(os.path.join(out, "env.txt"))}

# 1. throughput
throughput = {}
for side in SIDES:
    rows = []
    for path in rounds(f"throughput-{side}-*.txt"):
        text = open(path).read()
        meta = kv(path)
        socket = re.search(r"Socket errors: (.*)", text)
        rows.append(dict(
            rps=float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
            p50_ms=float(meta["latency_p50_ms"].split()[0]),
            p99_ms=float(re.search(r"latency_p99_ms=([\d.]+)", text).group(1)),
            socket_errors=socket.group(1) if socket else None,
            rss_mib_gatehouse=float(meta["rss_mib_gatehouse"]),
            rss_mib_reference=float(meta["rss_mib_reference"]),
            loadavg_before=meta["loadavg_before"], foreign_cores=foreign(meta),
        ))
    throughput[NAMES[side]] = dict(rounds=rows, rps_median=median([r["rps"] for r in rows]),
                                   p50_ms_median=median([r["p50_ms"] for r in rows]))
ratios = [g["rps"] / r["rps"] for g, r in zip(throughput["gatehouse"]["rounds"], throughput["reference"]["rounds"])]
throughput["ratio_of_medians"] = round(throughput["gatehouse"]["rps_median"] / throughput["reference"]["rps_median"], 2)
throughput["ratio_per_round"] = [round(x, 2) for x in ratios]
throughput["target_20x_met"] = throughput["ratio_of_medians"] >= 20
summary["throughput"] = throughput

# 2. fixed rate
fixed = {}
for side in SIDES:
    rows = []
    for path in rounds(f"fixed-{side}-*.json"):
        row = oha(path)
        meta = kv(path + ".meta")
        row.update(offered_rate=int(meta["offered_rate"]), rss_mib_gatehouse=float(meta["rss_mib_gatehouse"]),
                   rss_mib_reference=float(meta["rss_mib_reference"]), loadavg_before=meta["loadavg_before"],
                   foreign_cores=foreign(meta))
        rows.append(row)
    fixed[NAMES[side]] = dict(offered_rate=gh_rate if side == "gh" else ref_rate, rounds=rows,
                              p50_ms_median=median([r["p50_ms"] for r in rows]),
                              p99_ms_median=median([r["p99_ms"] for r in rows]),
                              p99_ms_worst=max(r["p99_ms"] for r in rows))
fixed["target_p99_10ms_met"] = fixed["gatehouse"]["p99_ms_median"] <= 10
fixed["target_p99_10ms_met_every_round"] = fixed["gatehouse"]["p99_ms_worst"] <= 10
summary["fixed_rate"] = fixed

# 3. flood: the other user's streams without a flood, and under each flood (kind, rate)
QUIET_MAX = float(os.environ.get("QUIET_MAX", "0.3"))


def flood_rows(pattern, flooded):
    rows = []
    for path in rounds(pattern):
        base = path[: -len(".meta")]
        meta = kv(path)
        row = dict(round=int(re.search(r"-(\d+)\.meta$", path).group(1)),
                   cookie=oha(base + "-cookie.json"), key=oha(base + "-key.json"),
                   rss_mib_gatehouse=float(meta["rss_mib_gatehouse"]),
                   rss_mib_reference=float(meta["rss_mib_reference"]), loadavg_before=meta["loadavg_before"],
                   foreign_cores=foreign(meta))
        if flooded:
            text = open(base + "-flood.txt").read()
            row["flood_rps"] = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
            row["flood_p50_ms"] = float(re.search(r"latency_p50_ms=([\d.]+)", text).group(1))
        rows.append(row)
    return rows


def flood_stats(rows, none=None, only=None):
    """medians over the rounds in `only` (all when None); ratios to `none`'s same medians"""
    rows = [r for r in rows if only is None or r["round"] in only]
    stats = dict(rounds_used=[r["round"] for r in rows], rows=rows)
    for stream in ("cookie", "key"):
        stats[f"{stream}_p50_ms_median"] = median([r[stream]["p50_ms"] for r in rows])
        stats[f"{stream}_p99_ms_median"] = median([r[stream]["p99_ms"] for r in rows])
        if none:
            stats[f"{stream}_p50_vs_none"] = round(stats[f"{stream}_p50_ms_median"] / none[f"{stream}_p50_ms_median"], 3)
    if none:
        # the same, round by round (each flood beside the baseline of its own round)
        base = {r["round"]: r for r in none["rows"]}
        for stream in ("cookie", "key"):
            stats[f"{stream}_p50_vs_none_paired"] = median(
                [r[stream]["p50_ms"] / base[r["round"]][stream]["p50_ms"] for r in rows if r["round"] in base])
        stats["flood_rps_median"] = median([r["flood_rps"] for r in rows])
        stats["flood_p50_ms_median"] = median([r["flood_p50_ms"] for r in rows])
    return stats


flood = {}
for side in SIDES:
    none_rows = flood_rows(f"flood-{side}-none-*.meta", False)
    found = sorted({(m.group(1), int(m.group(2))) for m in (
        re.search(r"flood-\w+-(unknown|known)-r(\d+)-\d+\.meta$", p)
        for p in glob.glob(os.path.join(out, f"flood-{side}-*-r*-*.meta"))) if m}, key=lambda x: (x[1], x[0]))
    flooded = {(kind, rate): flood_rows(f"flood-{side}-{kind}-r{rate}-*.meta", True) for kind, rate in found}
    # a round is quiet when no measurement of this side in it had other processes above QUIET_MAX
    every_rows = none_rows + [r for rows in flooded.values() for r in rows]
    all_rounds = sorted({r["round"] for r in none_rows})
    quiet = [n for n in all_rounds if all(r["foreign_cores"] is None or r["foreign_cores"] <= QUIET_MAX
                                          for r in every_rows if r["round"] == n)]
    judged_on = quiet if len(quiet) >= 2 else None
    none_all, none_j = flood_stats(none_rows), flood_stats(none_rows, only=judged_on)
    floods = []
    for (kind, rate), rows in flooded.items():
        stats = flood_stats(rows, none_j, only=judged_on)
        stats.update(kind=kind, rate_target=rate, all_rounds=flood_stats(rows, none_all))
        stats["all_rounds"].pop("rows")
        if kind == "unknown":
            stats["target_10pct_met"] = stats["cookie_p50_vs_none"] <= 1.10 and stats["key_p50_vs_none"] <= 1.10
        floods.append(stats)
    flood[NAMES[side]] = dict(all_rows=every_rows, quiet_rounds=quiet, judged_on=("quiet rounds" if judged_on else "all rounds (fewer than 2 quiet)"),
                              none=dict(none_j, all_rounds={k: v for k, v in none_all.items() if k != "rows"}), floods=floods)
summary["flood"] = flood

# resident memory after each phase (the last measurement of each)
summary["rss_mib_after"] = {
    phase: {"gatehouse": rows[-1]["rss_mib_gatehouse"], "reference": rows[-1]["rss_mib_reference"]}
    for phase, rows in (("throughput", throughput["gatehouse"]["rounds"] + throughput["reference"]["rounds"]),
                        ("fixed_rate", fixed["gatehouse"]["rounds"] + fixed["reference"]["rounds"]),
                        ("flood", sorted(flood["reference"]["all_rows"], key=lambda r: (r["round"], "foreign_cores" in r and "flood_rps" in r))))
}
every = (throughput["gatehouse"]["rounds"] + throughput["reference"]["rounds"] + fixed["gatehouse"]["rounds"]
         + fixed["reference"]["rounds"] + [r for side in flood.values() for r in side["all_rows"]])
summary["quiet_max_cores"] = QUIET_MAX
summary["foreign_cores_max"] = max((r["foreign_cores"] for r in every if r["foreign_cores"] is not None), default=None)
summary["rss_mib_peak_seen"] = {name: max(r[f"rss_mib_{name}"] for r in every) for name in ("gatehouse", "reference")}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)

yes = lambda b: "MET" if b else "NOT MET"
t = throughput
print(f"throughput (closed loop): gatehouse {t['gatehouse']['rps_median']:.0f} req/s (p50 {t['gatehouse']['p50_ms_median']} ms), "
      f"reference {t['reference']['rps_median']:.0f} req/s (p50 {t['reference']['p50_ms_median']} ms): "
      f"{t['ratio_of_medians']}x (rounds {t['ratio_per_round']}) -> >= 20x {yes(t['target_20x_met'])}")
for name in ("gatehouse", "reference"):
    f = fixed[name]
    print(f"fixed rate {f['offered_rate']}/s (half its max), {name}: p50 {f['p50_ms_median']} ms, p99 {f['p99_ms_median']} ms "
          f"(worst round {f['p99_ms_worst']} ms), achieved {[r['rps'] for r in f['rounds']]} req/s")
print(f"  gatehouse p99 <= 10 ms: {yes(fixed['target_p99_10ms_met'])} (median of rounds), every round: {yes(fixed['target_p99_10ms_met_every_round'])}")
for name in ("gatehouse", "reference"):
    fl = flood[name]
    n = fl["none"]
    print(f"flood, {name}: judged on {fl['judged_on']} {n['rounds_used']} (quiet: {fl['quiet_rounds']}); "
          f"the other user's p50 cookie / key without a flood {n['cookie_p50_ms_median']} / {n['key_p50_ms_median']} ms")
    for f in fl["floods"]:
        a = f["all_rounds"]
        verdict = f" -> <= 1.10x {yes(f['target_10pct_met'])}" if "target_10pct_met" in f and name == "gatehouse" else ""
        print(f"  {f['kind']}-key flood, target {f['rate_target']}/s, achieved {f['flood_rps_median']:.0f}/s: "
              f"{f['cookie_p50_ms_median']} / {f['key_p50_ms_median']} ms ({f['cookie_p50_vs_none']}x / {f['key_p50_vs_none']}x){verdict}"
              f"; round by round {f['cookie_p50_vs_none_paired']}x / {f['key_p50_vs_none_paired']}x"
              f"  [all rounds: {a['cookie_p50_vs_none']}x / {a['key_p50_vs_none']}x]")
print("RSS after each phase (MiB): " + ", ".join(
    f"{phase} gatehouse {v['gatehouse']} / reference {v['reference']}" for phase, v in summary["rss_mib_after"].items()))
print(f"  highest seen: gatehouse {summary['rss_mib_peak_seen']['gatehouse']} / reference {summary['rss_mib_peak_seen']['reference']}")
def most(rows):
    return max((r["foreign_cores"] for r in rows if r["foreign_cores"] is not None), default=None)


print(f"other processes' CPU (cores, the most in one measurement): throughput {most(throughput['gatehouse']['rounds'] + throughput['reference']['rounds'])}, "
      f"fixed rate {most(fixed['gatehouse']['rounds'] + fixed['reference']['rounds'])}, "
      f"flood {most(flood['gatehouse']['all_rows'] + flood['reference']['all_rows'])} (each measurement's in summary.json)")
