#!/usr/bin/env python3
"""ab.py OLD_BUILD NEW_BUILD: two dacce-race runtimes side by side, with
clang's ThreadSanitizer, on bench/run.py's workloads and builds.

Each workload is built with both builds' dacce-cc (and clang TSan and
native once), then run in rounds, one run of each configuration a round, in
turn, so that a machine whose speed drifts (a shared host) slows all of them
alike.  Every run is checked as run.py checks it: exit 0, the native
output, no race report.  Prints per workload the median wall times and the
ratios new/old and new/clang TSan, and the geometric means; exit 1 if a run
failed.

  python3 bench/ab.py /tmp/old/build build --only sqlite,rwhash,mergesort --runs 3 \\
      --npm-cache /tmp/bench/npm

OLD_BUILD is a build of another commit (git worktree add /tmp/old COMMIT;
cmake -S /tmp/old -B /tmp/old/build; cmake --build /tmp/old/build)."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: workloads, builders, checked runs)


def build(w, builds, work):
    """exes by configuration: old, new (the two runtimes), tsan-clang, native"""
    exes = {}
    for tag, b in builds.items():
        d = os.path.join(work, tag)
        os.makedirs(d, exist_ok=True)
        bl = run.Builder(b, d)
        bl.prepare()
        cfgs = ["dacce"] + (["native", "tsan-clang"] if tag == "new" else [])
        got, _, failures = bl.build_all(w, cfgs)
        if failures:
            raise SystemExit("ab.py: " + "\n".join(failures))
        for cfg, exe in got.items():
            exes[tag if cfg == "dacce" else cfg] = exe
    return exes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", help="build directory of the runtime to compare against")
    ap.add_argument("new", help="build directory of the runtime under test")
    ap.add_argument("--only", default="sqlite,rwhash,mergesort",
                    help="comma-separated workload names (bench/run.py's)")
    ap.add_argument("--runs", type=int, default=3, help="rounds (median of each)")
    ap.add_argument("--workdir", help="where binaries go (default: a new temporary directory)")
    ap.add_argument("--npm-cache", help="where the real programs' npm packages are unpacked")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--small", action="store_true",
                    help="the workloads' reduced sizes (run.py's valgrind sizes): a quick check")
    args = ap.parse_args()
    if args.runs < 1:
        raise SystemExit("ab.py: --runs must be at least 1")
    names = args.only.split(",")
    wls = [w for w in run.WORKLOADS if w.name in names]
    if len(wls) != len(names):
        raise SystemExit(f"ab.py: unknown workload in --only {args.only}")
    builds = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    work = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="dacce-ab-"))
    cfgs = ["old", "new", "tsan-clang"]
    rows, failed = [], False
    for w in wls:
        if w.real:
            why = run.fetch_npm(w.real, os.path.abspath(args.npm_cache or os.path.join(work, "npm")))
            if why:
                raise SystemExit(f"ab.py: {w.name}: {why}")
        exes = build(w, builds, work)
        runner = run.Runner(builds["new"], work, args.timeout)
        size = w.small if args.small else w.size
        expect = runner.run(w, "native", exes, size, None)["out"]
        walls = {c: [] for c in cfgs}
        for i in range(args.runs):
            for c in cfgs:
                m = runner.run(w, c, exes, size, expect)
                walls[c].append(m["wall"])
                run.log(f"  {w.name} round {i + 1}/{args.runs} {c:10s} {m['wall']:7.3f} s")
        failed |= bool(runner.failures)
        med = {c: run.median(walls[c]) for c in cfgs}
        rows.append((w.name, med, walls))
    print(f"\n{'workload':12s} {'old s':>8s} {'new s':>8s} {'TSan s':>8s} {'new/old':>8s} "
          f"{'new/TSan':>9s} {'old/TSan':>9s}")
    for name, med, walls in rows:
        print(f"{name:12s} {med['old']:8.2f} {med['new']:8.2f} {med['tsan-clang']:8.2f} "
              f"{med['new'] / med['old']:7.2f}x {med['new'] / med['tsan-clang']:8.2f}x "
              f"{med['old'] / med['tsan-clang']:8.2f}x   "
              + "  ".join(f"{c} " + " ".join(f"{x:.2f}" for x in walls[c]) for c in cfgs))
    g = {k: run.geomean([r[1][a] / r[1][b] for r in rows])
         for k, (a, b) in {"new/old": ("new", "old"), "new/TSan": ("new", "tsan-clang"),
                           "old/TSan": ("old", "tsan-clang")}.items()}
    print(f"{'geomean':12s} {'':8s} {'':8s} {'':8s} {g['new/old']:7.2f}x {g['new/TSan']:8.2f}x "
          f"{g['old/TSan']:8.2f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
