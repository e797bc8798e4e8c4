#!/usr/bin/env python3
"""CPU monitor for bench/run.sh: how much of the machine did the benchmark get?

    python3 bench/cpumon.py ROOT_PID OUTFILE [INTERVAL_S] [MAX_S]

Every INTERVAL_S (default 0.5) appends one line to OUTFILE:

    t=<unix time> busy=<ticks> ours=<ticks> ncpu=<n> top=<comm>:<ticks>,...

busy  = cumulative busy CPU ticks of the whole machine (/proc/stat)
ours  = cumulative CPU ticks (utime+stime) of ROOT_PID and all its
        descendants (the harness, the servers, wrk), exited ones included at
        their last seen value
top   = the three biggest *foreign* CPU users since the previous line

summarize.py turns two lines into "foreign CPU (cores)" for a scenario's
interval: other work on the machine (a cargo build, a test suite) steals CPU
from the servers under test and makes numbers incomparable. Stops when
ROOT_PID is gone, after MAX_S (default 3600), or on SIGTERM. Linux only,
stdlib only.
"""
import os
import signal
import sys
import time


def read_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)


def read_procs():
    """pid -> (ppid, comm, utime+stime)"""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                s = f.read()
        except OSError:
            continue
        r = s.rfind(")")
        comm = s[s.find("(") + 1 : r]
        rest = s[r + 2 :].split()
        # rest[0]=state rest[1]=ppid ... rest[11]=utime rest[12]=stime
        try:
            out[int(name)] = (int(rest[1]), comm, int(rest[11]) + int(rest[12]))
        except (IndexError, ValueError):
            continue
    return out


def main():
    root = int(sys.argv[1])
    outfile = sys.argv[2]
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    max_s = float(sys.argv[4]) if len(sys.argv) > 4 else 3600.0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    ncpu = os.cpu_count() or 1
    ours_last = {}  # pid -> last seen cumulative ticks (descendants of root)
    prev_all = {}  # pid -> cumulative ticks, every process
    start = time.time()
    with open(outfile, "a", buffering=1) as out:
        while time.time() - start < max_s:
            if not os.path.exists(f"/proc/{root}"):
                break
            busy = read_busy()
            procs = read_procs()
            children = {}
            for pid, (ppid, _, _) in procs.items():
                children.setdefault(ppid, []).append(pid)
            mine, stack = set(), [root]
            while stack:
                p = stack.pop()
                if p in mine:
                    continue
                mine.add(p)
                stack.extend(children.get(p, ()))
            for p in mine:
                if p in procs:
                    ours_last[p] = procs[p][2]
            foreign = []
            for pid, (_, comm, ticks) in procs.items():
                if pid in mine:
                    continue
                # a process born since the last line counts whole; on the first line nothing does
                d = ticks - prev_all.get(pid, 0 if prev_all else ticks)
                if d > 0:
                    foreign.append((d, comm.replace(" ", "_").replace(",", "_")))
            prev_all = {pid: v[2] for pid, v in procs.items()}
            foreign.sort(reverse=True)
            top = ",".join(f"{c}:{d}" for d, c in foreign[:3])
            out.write(
                f"t={time.time():.3f} busy={busy} ours={sum(ours_last.values())} "
                f"ncpu={ncpu} top={top or '-'}\n"
            )
            time.sleep(interval)


if __name__ == "__main__":
    main()
