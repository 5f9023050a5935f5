#!/usr/bin/env python3
"""peak_maps.py [--top N] PROGRAM ARGS...: run PROGRAM, sample its
/proc/PID/smaps every 50 ms, and print the sample with the highest total RSS:
the total, then its largest mappings by resident size.  Where a detector's
memory is at a program's peak: the program's own heap, the shadow, the
runtime's tables (docs/benchmarks.md, "Observations").  A sample is taken
between two reads of the file, so a mapping that grows while it is read is
counted as it was then."""
import argparse
import re
import subprocess
import sys
import time

MAP_RE = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")
RSS_RE = re.compile(r"^Rss:\s+(\d+) kB", re.M)


def sample(pid):
    try:
        with open(f"/proc/{pid}/smaps") as f:
            return f.read()
    except OSError:
        return None


def mappings(smaps):
    out, cur = [], None
    for line in smaps.splitlines():
        if MAP_RE.match(line):
            cur = line
            continue
        m = RSS_RE.match(line)
        if m and cur:
            out.append((int(m.group(1)), cur))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=15, help="mappings to list (default 15)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if not a.cmd:
        ap.error("no program given")
    try:
        p = subprocess.Popen(a.cmd, stdout=subprocess.DEVNULL)
    except OSError as e:
        sys.exit(f"peak_maps.py: cannot run {a.cmd[0]}: {e.strerror}")
    best, best_maps = 0, []
    while p.poll() is None:
        s = sample(p.pid)
        if s:
            total = sum(int(x) for x in RSS_RE.findall(s))
            if total > best:
                best, best_maps = total, mappings(s)
        time.sleep(0.05)
    print(f"peak RSS {best} kB (exit status {p.returncode})")
    for rss, line in sorted(best_maps, reverse=True)[:a.top]:
        fields = line.split()
        print(f"{rss:>10} kB  {fields[0]}  {fields[1]}  {fields[5] if len(fields) > 5 else ''}")
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
