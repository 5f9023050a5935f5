#!/usr/bin/env python3
"""bench/run.py: dacce-race against ThreadSanitizer, Helgrind and DRD.

Full benchmark (from the repository root, on a quiet machine; about 45 min):

    python3 bench/run.py --build build --out docs/benchmarks.md --runs 5

Smoke test (ctest -L bench; one tiny workload under every configuration, once,
no timing claims; exit 77 when a compiler is missing):

    python3 bench/run.py --smoke --build build

For every workload (bench/kernels/*, the race-free samples, and the real
programs of bench/real/: their drivers with the libraries' own sources) it builds

  native      clang -O2 -g
  tsan-clang  clang -O2 -g -fsanitize=thread           (static runtime)
  tsan-gcc    gcc   -O2 -g -fsanitize=thread           (shared libtsan)
  dacce       BUILD/bin/dacce-cc -O2 -g, DACCE_CC=clang (static dacce_rt.o)
  cyg-empty   clang -O2 -g -finstrument-functions-after-inlining + bench/empty_hooks.c
  cyg-dacce   clang -O2 -g -finstrument-functions-after-inlining + BUILD/lib/dacce/dacce_rt.o
              (after inlining: the calls ThreadSanitizer's __tsan_func_entry sees)
  rt-only     clang -O2 -g + BUILD/lib/dacce/dacce_rt.o (interceptors, no events)
              (cyg-dacce and rt-only run with DACCE_OPTIONS=report_bugs=0: they do
              not see the program's atomics, UNCHECKED)

(-g is -g -gdwarf-4 everywhere: valgrind 3.19 cannot read clang 14's default
DWARF 5 for the SQLite amalgamation and gives up; the code is the same.)
  dacce-fp    as dacce, with -fno-omit-frame-pointer (context capture ablation:
              also run with DACCE_OPTIONS=capture=stackwalk, and the dacce
              build with capture=cct; --no-ablation skips them)
(C++: clang++/g++ -std=c++17, dacce-c++ with DACCE_CXX=clang++), and runs
them round-robin --runs times, taking the median wall time and the median
peak RSS (ru_maxrss of the child from wait4) of each; Helgrind and DRD run
the native build at a reduced size next to native, clang TSan and dacce
(--vg-runs times).  The encoder statistics come from one extra run of the
dacce build with DACCE_OPTIONS=stats=1.

Every run is checked: exit status 0, standard output identical to the native
build's, and no report (ThreadSanitizer's or ours) on standard error; the
workloads are race-free, so a report is a failure.  Failures are listed in
the report and make the exit status 1.  Helgrind and DRD "errors" are
counted, not treated as failures (they do not model C11 atomics).

Real programs: their library sources are fetched at run time with `npm pack`
(pinned versions, into WORKDIR/npm or --npm-cache DIR, once) and never
committed; without npm, or when the fetch fails, they are skipped with a note.

  zstd    bench/real/zstd_driver.c + zstd's lib/ (npm zstd-napi): compression with 4 workers
  sqlite  bench/real/sqlite_driver.c + SQLite (npm better-sqlite3): 4 connections, one database
  argon2  bench/real/argon2_driver.c + Argon2 (npm argon2): 4 lanes filled by 4 threads
  leveldb bench/real/leveldb_driver.cc + LevelDB 1.20 (npm leveldown), C++: 4 writers and
          LevelDB's compaction thread, then 4 readers

Before measuring it waits (up to --quiet-wait seconds) for the 1-minute load
average to drop below --max-load, and records what it saw.  Results are
saved as JSON (--json, default WORKDIR/results.json); --from-json FILE
re-renders the markdown and the plot without measuring.
"""
import argparse
import concurrent.futures
import datetime
import glob
import hashlib
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Workload:
    def __init__(self, name, src, size, small, what, kernel=True, real=None):
        self.name, self.src, self.size, self.small, self.what = name, src, size, small, what
        self.kernel = kernel
        self.real = real  # RealLib: src is the driver, built with the library's sources
        self.cxx = src.endswith((".cc", ".cpp"))

    def args(self, size):
        return [] if size is None else [str(size)]


class RealLib:
    """The library a real program is built with: sources from an npm package,
    fetched at run time (fetch_npm) and never committed to the repository."""

    def __init__(self, lib, package, version, root, sources, cflags, libs=(), includes=("",)):
        self.lib, self.package, self.version = lib, package, version
        self.root = root        # the library's directory inside the package
        self.sources = sources  # globs under root
        self.cflags, self.libs = list(cflags), list(libs)
        self.includes = list(includes)  # -I directories under root
        self.dir = None         # root on disk, once fetched
        self.meta = None        # what the fetch recorded (fetch.json)

    def spec(self):
        return f"{self.package}@{self.version}"

    def files(self):
        return sorted({f for g in self.sources for f in glob.glob(os.path.join(self.dir, g))})


# zstd's lib/ with its pthread pool; no assembly (huf_decompress_amd64.S),
# so that every access of the library is compiled C, instrumented like the rest
ZSTD = RealLib("zstd", "zstd-napi", "0.0.13", "deps/zstd/lib",
               ["common/*.c", "compress/*.c", "decompress/*.c"],
               ["-pthread", "-DZSTD_MULTITHREAD", "-DZSTD_DISABLE_ASM"])
SQLITE = RealLib("SQLite", "better-sqlite3", "12.11.1", "deps/sqlite3", ["sqlite3.c"],
                 ["-pthread", "-DSQLITE_THREADSAFE=1", "-DSQLITE_OMIT_LOAD_EXTENSION"], ["-lm"])

# the reference implementation's SSE2 code, as the package's binding.gyp
# builds it on x86-64 (opt.c, not ref.c)
ARGON2 = RealLib("Argon2", "argon2", "0.31.2", "argon2",
                 ["src/argon2.c", "src/core.c", "src/encoding.c", "src/thread.c",
                  "src/blake2/blake2b.c", "src/opt.c"], ["-pthread"],
                 includes=["include", "src"])

# LevelDB 1.20 as the package's leveldb.gyp builds it on Linux (its sources
# list, no Snappy), with its x86 AtomicPointer replaced by the std::atomic
# one (bench/real/leveldb_atomic_pointer.h, force-included: the library's
# own is a plain field behind a compiler barrier, a race every detector
# reports)
LEVELDB = RealLib("LevelDB", "leveldown", "6.1.1", "deps/leveldb/leveldb-1.20",
                  ["port/port_posix.cc", "port/port_posix_sse.cc", "util/env_posix.cc",
                   "db/builder.cc", "db/db_impl.cc", "db/db_iter.cc", "db/filename.cc",
                   "db/dbformat.cc", "db/log_reader.cc", "db/log_writer.cc", "db/memtable.cc",
                   "db/repair.cc", "db/table_cache.cc", "db/version_edit.cc",
                   "db/version_set.cc", "db/write_batch.cc", "helpers/memenv/memenv.cc",
                   "table/block.cc", "table/block_builder.cc", "table/filter_block.cc",
                   "table/format.cc", "table/iterator.cc", "table/merger.cc", "table/table.cc",
                   "table/table_builder.cc", "table/two_level_iterator.cc", "util/arena.cc",
                   "util/bloom.cc", "util/cache.cc", "util/coding.cc", "util/comparator.cc",
                   "util/crc32c.cc", "util/env.cc",
                   "util/filter_policy.cc", "util/hash.cc", "util/logging.cc",
                   "util/options.cc", "util/status.cc"],
                  ["-pthread", "-DLEVELDB_PLATFORM_POSIX=1", "-DOS_LINUX=1",
                   "-fno-builtin-memcmp", "-Wno-sign-compare", "-include",
                   os.path.join(REPO, "bench/real/leveldb_atomic_pointer.h")],
                  includes=["", "include"])


WORKLOADS = [
    Workload("calltree", "bench/kernels/calltree.c", 400000, 20000,
             "recursive expression-tree evaluation, one small function per operator, 2 threads"),
    Workload("threadpool", "bench/kernels/threadpool.c", 1000000, 50000,
             "4-worker pool, mutex/condvar FIFO of heap-allocated tasks, batches of 512"),
    Workload("prodcons", "bench/kernels/prodcons.c", 400000, 20000,
             "2 producers, 2 consumers, 64-slot bounded buffer (mutex + 2 condvars)"),
    Workload("mergesort", "bench/kernels/mergesort.c", 16000000, 800000,
             "merge sort of 32-bit keys, threads at the top 2 levels (4 leaves)"),
    Workload("rwhash", "bench/kernels/rwhash.c", 3000000, 50000,
             "chained hash table, 64 striped rwlocks, 4 threads, 90% lookups / 10% writes"),
    Workload("atomics", "bench/kernels/atomics.c", 200000, 8192,
             "4 threads, 8 rounds: blocks of 512 atomic words made (release stores), "
             "read (acquire loads, any thread's), freed; size: live words per thread"),
    Workload("interp", "bench/kernels/interp.c", 600000, 30000,
             "register-machine bytecode interpreter, one function pointer call per instruction, 2 threads"),
    Workload("vcalls", "bench/kernels/vcalls.cc", 500000, 25000,
             "C++ AST interpreter, one virtual call per node evaluation, 2 threads"),
    Workload("lazy_init_right", "samples/lazy_init_right.c", None, None,
             "sample: double-checked init with acquire/release and pthread_once, 4 threads",
             kernel=False),
    Workload("refcount_acqrel", "samples/refcount_acqrel.c", None, None,
             "sample: acq_rel reference count, 4 threads", kernel=False),
    Workload("zstd", "bench/real/zstd_driver.c", 20000000, 1000000,
             "real program: zstd's multithreaded streaming compressor (ZSTD_c_nbWorkers 4, "
             "512 KiB jobs) at levels 1, 3, 5, then decompression and comparison; size: input "
             "bytes (generated text)", kernel=False, real=ZSTD),
    Workload("sqlite", "bench/real/sqlite_driver.c", 8000, 500,
             "real program: SQLite, 4 threads with a connection each (serialized mode) to one "
             "on-disk database (rollback journal): insert transactions, indexed range queries, updates; size: "
             "rows per thread", kernel=False, real=SQLITE),
    Workload("argon2", "bench/real/argon2_driver.c", 65536, 4096,
             "real program: the Argon2id password hash (reference SSE2 code), 3 passes, "
             "4 lanes filled by 4 threads per slice, then encode and verify; size: memory "
             "in KiB", kernel=False, real=ARGON2),
    Workload("leveldb", "bench/real/leveldb_driver.cc", 25000, 2000,
             "real program (C++): LevelDB, 4 threads writing batches into one database "
             "(small memtables: its background thread flushes and compacts meanwhile), then "
             "4 threads of lookups and scans, then deletes and a full compaction; size: keys "
             "per thread", kernel=False, real=LEVELDB),
]
SMOKE = Workload("calltree", "bench/kernels/calltree.c", 3000, 3000, "smoke")

# The runtime linked into programs built without -fsanitize=thread (the
# encoder-only overhead table: the cost of its pieces) sees the
# interceptors' accesses (memcpy, memcmp, free) but not the program's
# atomics, so a program that orders them by atomics alone (LevelDB's
# skiplist: a key copied into a node, then compared by a reader) looks
# racy there.  They run with reports off; the dacce build is the one whose
# reports count.
UNCHECKED = ("cyg-dacce", "rt-only")
BUILD_CONFIGS = ["native", "tsan-clang", "tsan-gcc", "dacce", "cyg-empty", "cyg-dacce", "rt-only"]
VG_CONFIGS = ["native", "tsan-clang", "dacce", "helgrind", "drd"]
LABEL = {"native": "native", "tsan-clang": "clang TSan", "tsan-gcc": "gcc TSan",
         "dacce": "dacce-race", "cyg-empty": "empty hooks", "cyg-dacce": "dacce encoder",
         "rt-only": "runtime, no events",
         "helgrind": "Helgrind", "drd": "DRD"}
REPORT_RE = re.compile(r"WARNING: (ThreadSanitizer|dacce-race)|==dacce== reported")
STATS_RE = {
    "nodes": r"nodes (\d+)\s+edges",
    "edges": r"edges (\d+) \(",
    "encoded": r"encoded (\d+),",
    "back": r"back (\d+),",
    "overflow": r"overflow (\d+)\)",
    "maxid": r"maxID (\d+)",
    "reencodings": r"re-encodings (\d+)",
    "calls": r"calls (\d+)",
    "pushes": r"ccStack pushes (\d+)",
    "pushes_per_s": r"ccStack pushes \d+ \(([\d.]+)/s\)",
    "avg_depth": r"avg ccStack depth ([\d.]+)",
    "cc_nodes": r"ccStack nodes (\d+)",
}


# ---------------------------------------------------------------- helpers
def log(msg):
    print(msg, file=sys.stderr, flush=True)


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return "not available"


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DACCE_OPTIONS", "TSAN_OPTIONS", "DACCE_RACE_OPTIONS", "DACCE_RUNTIME",
                        "DACCE_CC", "DACCE_CXX", "DACCE_CC_VERBOSE")}
    env.update(extra or {})
    return env


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run_measured(cmd, env, timeout, cwd=None):
    """Run cmd; return dict(rc, wall, cpu, rss_kb, out, err, timed_out).

    Peak RSS and CPU time come from GNU time (/usr/bin/time -f "%M %U %S"):
    ru_maxrss of a child forked from Python would include the Python image
    (Linux keeps the pre-exec high-water mark), time's own image is ~2 MB.
    Without /usr/bin/time they come from wait4 and rss_kb is None.  Wall
    time is measured here (perf_counter) around the whole run."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r", suffix=".time") as tf:
        killed = []
        full = [TIME, "-f", "%M %U %S", "-o", tf.name] + cmd if TIME else cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                             cwd=cwd, start_new_session=True)

        def kill():
            killed.append(1)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        rss, cpu = None, ru.ru_utime + ru.ru_stime
        if TIME:
            lines = [l for l in tf.read().splitlines() if l.strip()]
            try:
                kb, user, sys_ = lines[-1].split()
                rss, cpu = int(kb), float(user) + float(sys_)
            except (IndexError, ValueError):
                rss = None
        out.seek(0)
        err.seek(0)
        return {"rc": p.returncode, "wall": wall, "cpu": cpu, "rss_kb": rss,
                "out": out.read().decode(errors="replace"),
                "err": err.read().decode(errors="replace"), "timed_out": bool(killed)}


def median(xs):
    return statistics.median(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def ratio(a, b):
    return a / b if a is not None and b else None


# ---------------------------------------------------------------- building
# the encoder-only builds' hooks: the functions left after inlining, which are
# the ones ThreadSanitizer's pass (run after inlining) gives __tsan_func_entry
CYG = "-finstrument-functions-after-inlining"

class Builder:
    def __init__(self, build, workdir):
        self.build, self.workdir = build, workdir
        self.rt = os.path.join(build, "lib", "dacce", "dacce_rt.o")
        self.empty = os.path.join(workdir, "empty_hooks.o")

    def prepare(self):
        for f in (os.path.join(self.build, "bin", "dacce-cc"), self.rt):
            if not os.path.exists(f):
                raise SystemExit(f"{f} missing: build the project first (cmake --build BUILD)")
        r = subprocess.run(["clang", "-O2", "-c", os.path.join(REPO, "bench", "empty_hooks.c"),
                            "-o", self.empty], capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("cannot compile bench/empty_hooks.c:\n" + r.stderr)

    def command(self, w, cfg, exe):
        src = os.path.join(REPO, w.src)
        flags = ["-O2", "-g", "-gdwarf-4"] + (["-std=c++17"] if w.cxx else [])
        clang, gcc = ("clang++", "g++") if w.cxx else ("clang", "gcc")
        env = {}
        if cfg == "native":
            cmd = [clang] + flags + [src, "-o", exe, "-pthread"]
        elif cfg == "tsan-clang":
            cmd = [clang] + flags + ["-fsanitize=thread", src, "-o", exe]
        elif cfg == "tsan-gcc":
            cmd = [gcc] + flags + ["-fsanitize=thread", src, "-o", exe]
        elif cfg == "dacce":
            wrapper = os.path.join(self.build, "bin", "dacce-c++" if w.cxx else "dacce-cc")
            env = {"DACCE_CXX": "clang++"} if w.cxx else {"DACCE_CC": "clang"}
            cmd = [wrapper] + flags + [src, "-o", exe]
        elif cfg == "cyg-empty":
            cmd = [clang] + flags + [CYG, src, self.empty, "-o", exe, "-pthread"]
        elif cfg == "cyg-dacce":
            cmd = [clang] + flags + [CYG, src, self.rt, "-o", exe,
                                     "-lpthread", "-ldl"]
        elif cfg == "rt-only":
            cmd = [clang] + flags + [src, self.rt, "-o", exe, "-lpthread", "-ldl"]
        elif cfg == "dacce-fp":  # context capture ablation (measure_ablation)
            wrapper = os.path.join(self.build, "bin", "dacce-c++" if w.cxx else "dacce-cc")
            env = {"DACCE_CXX": "clang++"} if w.cxx else {"DACCE_CC": "clang"}
            cmd = [wrapper] + flags + ["-fno-omit-frame-pointer", src, "-o", exe]
        else:
            raise ValueError(cfg)
        return cmd, env

    def build_all(self, w, configs):
        if w.real:
            return self.build_real_all(w, configs)
        exes, cmds, failures = {}, {}, []
        for cfg in configs:
            exe = os.path.join(self.workdir, f"{w.name}.{cfg}")
            cmd, env = self.command(w, cfg, exe)
            cmds[cfg] = " ".join(f"{k}={v}" for k, v in env.items()) + (" " if env else "") + \
                shlex.join([os.path.basename(cmd[0]) if cfg in ("dacce", "dacce-fp") else cmd[0]] +
                           [os.path.relpath(a, REPO) if a.startswith(REPO) else
                            (os.path.basename(a) if a.startswith(self.workdir) else a)
                            for a in cmd[1:]])
            r = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(env))
            if r.returncode:
                failures.append(f"{w.name}/{cfg}: build failed:\n{r.stderr.strip()[-2000:]}")
            else:
                exes[cfg] = exe
        return exes, cmds, failures

    # real programs: every library source and the driver compiled on its own
    # (-c) with the configuration's compiler and flags, as command() has them
    # for a single source, then linked as command() links
    jobs = 2

    def show(self, w, cmd, env):
        pkg = os.path.dirname(w.real.dir)
        return " ".join(f"{k}={v}" for k, v in env.items()) + (" " if env else "") + shlex.join(
            [os.path.basename(cmd[0]) if cmd[0].startswith(self.build) else cmd[0]] +
            [os.path.relpath(a, REPO) if a.startswith(REPO) else
             w.real.package + "/" + os.path.relpath(a, pkg) if a.startswith(pkg) else
             (os.path.basename(a) if a.startswith(self.workdir) else a) for a in cmd[1:]])

    def compile_one(self, cmd, env, obj, src):
        """compile unless obj is there and newer than its source; None or the error"""
        if os.path.exists(obj) and os.path.getmtime(obj) >= os.path.getmtime(src):
            return None
        r = subprocess.run(cmd + ["-o", obj + ".tmp"], capture_output=True, text=True,
                           env=clean_env(env))
        if r.returncode:
            return f"{shlex.join(cmd)}:\n{r.stderr.strip()[-2000:]}"
        os.replace(obj + ".tmp", obj)
        return None

    def build_real_all(self, w, configs):
        exes, cmds, failures = {}, {}, []
        lib, driver = w.real, os.path.join(REPO, w.src)
        files = lib.files()
        for cfg in configs:
            exe = os.path.join(self.workdir, f"{w.name}.{cfg}")
            cmd, env = self.command(w, cfg, exe)
            i = cmd.index(driver)
            cc, tail = cmd[:i], cmd[i + 1:]  # compiler and flags; objects, -o exe, libraries
            ccmd = cc + lib.cflags + [f for d in lib.includes
                                      for f in ("-I", os.path.normpath(os.path.join(lib.dir, d)))]
            tool = shutil.which(cc[0]) or cc[0]
            key = hashlib.sha1(json.dumps([ccmd, env, os.path.getmtime(tool)
                                           if os.path.exists(tool) else 0]).encode()).hexdigest()
            odir = os.path.join(self.workdir, "obj", w.name, key[:12])
            os.makedirs(odir, exist_ok=True)
            todo = [(ccmd + ["-c", s], os.path.join(
                odir, os.path.splitext(os.path.relpath(s, lib.dir))[0].replace("/", "_") + ".o"), s)
                for s in files] + [(ccmd + ["-c", driver], os.path.join(odir, "driver.o"), driver)]
            with concurrent.futures.ThreadPoolExecutor(max(1, self.jobs)) as pool:
                errs = [e for e in pool.map(lambda t: self.compile_one(t[0], env, t[1], t[2]), todo)
                        if e]
            lcmd = cc + [o for _, o, _ in todo] + tail + lib.libs
            cmds[cfg] = (self.show(w, ccmd + ["-c", "FILE.c"], env) +
                         f"  (each of the {len(files)} {lib.lib} sources and "
                         f"{os.path.relpath(driver, REPO)}); " +
                         self.show(w, cc + ["*.o"] + tail + lib.libs, env))
            if not errs:
                r = subprocess.run(lcmd, capture_output=True, text=True, env=clean_env(env))
                if r.returncode:
                    errs.append(f"{shlex.join(lcmd)}:\n{r.stderr.strip()[-2000:]}")
            if errs:
                failures.append(f"{w.name}/{cfg}: build failed:\n" + errs[0][-2500:])
            else:
                exes[cfg] = exe
        return exes, cmds, failures


def fetch_npm(lib, cache):
    """Unpack lib's npm package under cache (once; npm pack checks the
    registry's integrity hash) and point lib at it.  None, or why not."""
    dest = os.path.join(cache, f"{lib.package}-{lib.version}")
    meta = os.path.join(dest, "fetch.json")
    if not os.path.exists(meta):
        npm = shutil.which("npm")
        if not npm:
            return "npm not found"
        os.makedirs(cache, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".fetch-", dir=cache)
        try:
            log(f"npm pack {lib.spec()} (into {cache})")
            try:
                r = subprocess.run([npm, "pack", lib.spec(), "--json", "--pack-destination", tmp],
                                   cwd=tmp, capture_output=True, text=True, timeout=600,
                                   stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return f"npm pack {lib.spec()} timed out"
            if r.returncode:
                err = [l for l in r.stderr.splitlines() if "ERR" in l] or r.stderr.splitlines() or [""]
                return f"npm pack {lib.spec()} failed (exit {r.returncode}): {err[-1].strip()}"
            try:
                info = json.loads(r.stdout)[0]
                tgz = os.path.join(tmp, info["filename"])
                with open(tgz, "rb") as f:
                    sha = hashlib.sha256(f.read()).hexdigest()
                with tarfile.open(tgz) as t:
                    if hasattr(tarfile, "data_filter"):
                        t.extractall(os.path.join(tmp, "x"), filter="data")
                    else:
                        t.extractall(os.path.join(tmp, "x"))
            except (ValueError, KeyError, IndexError, OSError, tarfile.TarError) as e:
                return f"npm pack {lib.spec()}: cannot unpack: {e}"
            if info.get("version") != lib.version:
                return f"npm pack {lib.spec()} gave version {info.get('version')}"
            with open(os.path.join(tmp, "x", "fetch.json"), "w") as f:
                json.dump({"package": info.get("name"), "version": info.get("version"),
                           "integrity": info.get("integrity"), "sha256": sha,
                           "tarball": info["filename"]}, f, indent=1)
            shutil.rmtree(dest, ignore_errors=True)
            os.rename(os.path.join(tmp, "x"), dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    with open(meta) as f:
        lib.meta = json.load(f)
    lib.dir = os.path.join(dest, "package", lib.root)
    if not lib.files():
        return f"{lib.spec()}: no {lib.lib} sources under package/{lib.root} (layout changed?)"
    return None


def real_info(w, exes):
    """versions of a real program's library for the results: the package's,
    and the library's own, from the native build's --version"""
    ver = "unknown"
    if "native" in exes:
        try:
            r = subprocess.run([exes["native"], "--version"], capture_output=True, text=True,
                               timeout=60, env=clean_env())
            if r.returncode == 0 and r.stdout.strip():
                ver = r.stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError):
            pass
    lib, m = w.real, w.real.meta or {}
    return {"library": lib.lib, "library_version": ver, "package": m.get("package", lib.package),
            "package_version": m.get("version", lib.version), "integrity": m.get("integrity"),
            "sha256": m.get("sha256"), "root": lib.root, "sources": len(lib.files()),
            "cflags": [os.path.relpath(f, REPO) if f.startswith(REPO + os.sep) else f
                       for f in lib.cflags], "libs": lib.libs}


# ---------------------------------------------------------------- running
class Runner:
    def __init__(self, build, workdir, timeout):
        self.build, self.workdir, self.timeout = build, workdir, timeout
        self.failures = []
        self.ablation = True  # measure_ablation; --no-ablation turns it off

    def command(self, w, cfg, exes, size):
        args = w.args(size)
        if cfg in ("helgrind", "drd"):
            logf = os.path.join(self.workdir, f"{w.name}.{cfg}.vglog")
            return ["valgrind", f"--tool={cfg}", f"--log-file={logf}", exes["native"]] + args, logf
        return [exes[cfg]] + args, None

    def run(self, w, cfg, exes, size, expect_out, extra_env=None):
        """One checked run; returns the measurement dict (with 'ok')."""
        if cfg not in exes and cfg not in ("helgrind", "drd"):
            return None
        cmd, vglog = self.command(w, cfg, exes, size)
        if cfg in UNCHECKED:
            extra_env = dict(extra_env or {})
            extra_env["DACCE_OPTIONS"] = " ".join(
                o for o in (extra_env.get("DACCE_OPTIONS"), "report_bugs=0") if o)
        m = run_measured(cmd, clean_env(extra_env), self.timeout)
        why = []
        if m["timed_out"]:
            why.append(f"timed out after {self.timeout} s")
        elif m["rc"] != 0:
            why.append(f"exit status {m['rc']}")
        if REPORT_RE.search(m["err"]):
            why.append("reported a race")
        if expect_out is not None and m["out"] != expect_out:
            why.append("output differs from the native build's: " + m["out"].strip()[:200])
        if vglog:
            try:
                with open(vglog) as f:
                    text = f.read()
                found = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
                m["vg_errors"] = int(found[-1]) if found else None
            except OSError:
                m["vg_errors"] = None
        m["ok"] = not why
        if why:
            msg = f"{w.name}/{cfg} (size {size}): " + "; ".join(why)
            tail = m["err"].strip()[-1500:]
            self.failures.append(msg + ("\n" + tail if tail else ""))
            log("  FAIL " + msg)
        return m

    def launcher_check(self, w, exes, size, expect_out):
        """Run the dacce build once under the dacce-race launcher: no report."""
        if "dacce" not in exes:
            return
        jl = os.path.join(self.workdir, f"{w.name}.reports.jsonl")
        if os.path.exists(jl):
            os.remove(jl)
        cmd = [os.path.join(self.build, "bin", "dacce-race"), f"--json={jl}", "--",
               exes["dacce"]] + w.args(size)
        m = run_measured(cmd, clean_env(), self.timeout)
        n = 0
        if os.path.exists(jl):
            with open(jl) as f:
                n = sum(1 for line in f if line.strip())
        if m["rc"] != 0 or n or m["out"] != expect_out:
            self.failures.append(f"{w.name}/dacce-race launcher: exit {m['rc']}, {n} reports\n"
                                 + m["err"].strip()[-1500:])
            log(f"  FAIL {w.name}: dacce-race launcher exit {m['rc']}, {n} reports")


def parse_stats(err):
    if "encoder statistics" not in err:
        return None
    s = {}
    for k, rx in STATS_RE.items():
        mm = re.search(rx, err)
        s[k] = (float(mm.group(1)) if "." in mm.group(1) else int(mm.group(1))) if mm else None
    return s


def summarize(ms):
    ok = [m for m in ms if m and m["ok"]]
    if not ok or len(ok) < len([m for m in ms if m]):
        return None
    walls = [m["wall"] for m in ok]
    return {"wall": median(walls), "wall_min": min(walls), "wall_max": max(walls),
            "cpu": median([m["cpu"] for m in ok]),
            "rss_kb": None if any(m["rss_kb"] is None for m in ok) else median([m["rss_kb"] for m in ok]),
            "runs": len(ok), "vg_errors": max((m.get("vg_errors") or 0) for m in ok)
            if any("vg_errors" in m for m in ok) else None}


def measure_workload(w, builder, runner, runs, vg_runs, do_valgrind):
    log(f"== {w.name}")
    res = {"name": w.name, "src": w.src, "size": w.size, "small": w.small, "what": w.what,
           "kernel": w.kernel}
    exes, cmds, bfail = builder.build_all(w, BUILD_CONFIGS)
    runner.failures += bfail
    for f in bfail:
        log("  FAIL " + f.splitlines()[0])
    res["commands"] = cmds
    if w.real:
        res["real"] = real_info(w, exes)
        log(f"  {w.real.lib} {res['real']['library_version']} from npm {w.real.spec()}")
    if "native" not in exes:
        return res
    ref = run_measured([exes["native"]] + w.args(w.size), clean_env(), runner.timeout)
    if ref["rc"] != 0:
        runner.failures.append(f"{w.name}/native: exit status {ref['rc']}\n{ref['err'][-1500:]}")
        return res
    expect = ref["out"]
    res["output"] = expect.strip()
    # verification pass (also the warm-up): every configuration once, and the
    # dacce build under the launcher
    for cfg in BUILD_CONFIGS:
        runner.run(w, cfg, exes, w.size, expect)
    runner.launcher_check(w, exes, w.size, expect)
    # timed runs, round-robin so that drift hits every configuration alike
    ms = {cfg: [] for cfg in BUILD_CONFIGS}
    for r in range(runs):
        for cfg in BUILD_CONFIGS:
            m = runner.run(w, cfg, exes, w.size, expect)
            ms[cfg].append(m)
            if m:
                log(f"  run {r + 1}/{runs} {cfg:10s} {m['wall']:8.3f} s {(m['rss_kb'] or 0) / 1024:8.1f} MB"
                    + ("" if m["ok"] else "  FAILED"))
    res["main"] = {cfg: summarize(v) for cfg, v in ms.items()}
    # encoder statistics
    st = runner.run(w, "dacce", exes, w.size, expect, {"DACCE_OPTIONS": "stats=1"})
    res["stats"] = parse_stats(st["err"]) if st else None
    st = runner.run(w, "cyg-dacce", exes, w.size, expect, {"DACCE_OPTIONS": "stats=1"})
    res["cyg_stats"] = parse_stats(st["err"]) if st else None
    if runner.ablation:
        res["ablation"] = measure_ablation(w, builder, runner, runs, exes, expect)
    # Helgrind and DRD at the reduced size, next to native, clang TSan, dacce
    if do_valgrind and shutil.which("valgrind"):
        small = w.small
        sref = run_measured([exes["native"]] + w.args(small), clean_env(), runner.timeout)
        vms = {cfg: [] for cfg in VG_CONFIGS}
        for r in range(vg_runs):
            for cfg in VG_CONFIGS:
                m = runner.run(w, cfg, exes, small, sref["out"])
                vms[cfg].append(m)
                if m:
                    log(f"  small run {r + 1}/{vg_runs} {cfg:10s} {m['wall']:8.3f} s "
                        f"{(m['rss_kb'] or 0) / 1024:8.1f} MB" + ("" if m["ok"] else "  FAILED"))
        res["valgrind"] = {cfg: summarize(v) for cfg, v in vms.items()}
    return res


# ---------------------------------------------------------------- context capture ablation
# The same detector with the runtime option capture (racedet/capture.c): the
# DACCE encoding (default), a frame-pointer walk at every recorded access
# (stackwalk), or a calling context tree (cct).  stackwalk needs frame
# pointers, so it runs a second dacce build with -fno-omit-frame-pointer,
# which also runs with the default capture (dacce-fp): frame pointers cost
# the program itself something, and stackwalk / dacce-fp is the walks' own
# cost.  Round-robin with the plain dacce build, so every ratio is taken
# under the same conditions.
ABLATION_CONFIGS = ["dacce", "dacce-fp", "dacce-stackwalk", "dacce-cct"]
ABLATION_RUN = {"dacce": ("dacce", None), "dacce-fp": ("dacce-fp", None),  # binary, DACCE_OPTIONS
                "dacce-stackwalk": ("dacce-fp", "capture=stackwalk"),
                "dacce-cct": ("dacce", "capture=cct")}


def measure_ablation(w, builder, runner, runs, exes, expect):
    if "dacce" not in exes:
        return None
    fp, cmds, bfail = builder.build_all(w, ["dacce-fp"])
    runner.failures += bfail
    built = dict(exes, **fp)
    ex = {cfg: built[b] for cfg, (b, _) in ABLATION_RUN.items() if b in built}
    env = {cfg: {"DACCE_OPTIONS": o} if o else None for cfg, (_, o) in ABLATION_RUN.items()}
    ms = {cfg: [] for cfg in ABLATION_CONFIGS}
    for r in range(runs + 1):  # the first round verifies and warms up
        for cfg in ABLATION_CONFIGS:
            m = runner.run(w, cfg, ex, w.size, expect, env[cfg])
            if r and m:
                ms[cfg].append(m)
                log(f"  ablation run {r}/{runs} {cfg:15s} {m['wall']:8.3f} s "
                    f"{(m['rss_kb'] or 0) / 1024:8.1f} MB" + ("" if m["ok"] else "  FAILED"))
    return {"main": {cfg: summarize(v) for cfg, v in ms.items()}, "command": cmds.get("dacce-fp")}


def render_ablation(data):
    res = [r for r in data["results"] if r.get("ablation")]
    if not res:
        return []
    L = ["## Context capture ablation\n",
         "What the DACCE encoding buys: the same detector with the runtime option `capture` "
         "([racedet/capture.c](../racedet/capture.c)).  *dacce*: the encoding (default, the build "
         "above).  *stackwalk*: nothing at calls and returns, a frame-pointer walk (at most 64 "
         "frames) interned in a stack table at every access the detector records; it needs "
         "frame pointers, so it runs a second build with `-fno-omit-frame-pointer`"
         + (f" (`{res[0]['ablation']['command']}`)" if res[0]["ablation"].get("command") else "")
         + ", also run with the default capture (*dacce, fp*): *stackwalk / dacce-fp* is the cost "
         "of the walks alone, *fp / dacce* what frame pointers cost the program.  *cct*: a calling "
         "context tree, one hash-consed child lookup (behind a per-thread cache) per call, on the "
         "plain dacce build.  All four run round-robin, "
         f"{data['runs']} time(s) each (median); both ablation modes also pay a function call per "
         "hook, since they go through the hooks' slow paths (the default fast paths have no check "
         "for them).\n"]

    def a(r, cfg, key):
        return get(r["ablation"], "main", cfg, key)

    for key, unit, title in (("wall", "s", "Wall time"), ("rss_kb", "MB", "Peak RSS")):
        def val(r, cfg):
            v = a(r, cfg, key)
            return fsec(v) if key == "wall" else ("FAIL" if v is None else fmt(v / 1024, 1))

        cols = [lambda r, k=key: ratio(a(r, "dacce-fp", k), a(r, "dacce", k)),
                lambda r, k=key: ratio(a(r, "dacce-stackwalk", k), a(r, "dacce", k)),
                lambda r, k=key: ratio(a(r, "dacce-stackwalk", k), a(r, "dacce-fp", k)),
                lambda r, k=key: ratio(a(r, "dacce-cct", k), a(r, "dacce", k))]
        head = ["workload", f"dacce {unit}", f"dacce, fp {unit}", f"stackwalk {unit}", f"cct {unit}",
                "fp / dacce", "**stackwalk / dacce**", "stackwalk / dacce-fp", "**cct / dacce**"]
        rows = [[r["name"]] + [val(r, c) for c in ABLATION_CONFIGS] + [fx(c(r)) for c in cols]
                for r in res]
        rows += [[g[0], "", "", "", ""] + g[1:] for g in geo_rows(res, cols)]
        L.append(f"{title}:\n")
        L.append(table(head, rows))
        L.append("")
    return L


# ---------------------------------------------------------------- machine
def machine_facts(build):
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
            mem = f"{kb / 1048576:.1f} GiB"
    except (OSError, AttributeError):
        pass
    git = first_line(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    btype = ""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            mm = re.search(r"CMAKE_BUILD_TYPE:STRING=(.*)", f.read())
            btype = mm.group(1) if mm else ""
    except OSError:
        pass
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(), "memory": mem,
        "clang": first_line(["clang", "--version"]), "gcc": first_line(["gcc", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "python": platform.python_version(),
        "commit": git + (" (with uncommitted changes)" if dirty else ""),
        "build_type": btype,
    }


def cpu_snapshot():
    """(wall, busy CPU-seconds of the whole machine, CPU-seconds of this
    process and its waited-for descendants)"""
    import resource
    busy = 0.0
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        # user nice system idle iowait irq softirq steal ...
        busy = (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        pass
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.time(), busy, me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime)


def foreign_cpu(a, b):
    """CPU-seconds other processes used between two snapshots, and the wall time"""
    return {"wall": b[0] - a[0], "foreign_cpu": max(0.0, (b[1] - a[1]) - (b[2] - a[2]))}


def wait_quiet(max_load, max_wait):
    start = time.time()
    first = os.getloadavg()
    while True:
        la = os.getloadavg()
        if la[0] < max_load:
            return {"initial": first, "at_start": la, "waited_s": round(time.time() - start),
                    "quiet": True}
        if time.time() - start >= max_wait:
            log(f"load average still {la[0]:.2f} after {max_wait} s: measuring anyway")
            return {"initial": first, "at_start": la, "waited_s": round(time.time() - start),
                    "quiet": False}
        log(f"load average {la[0]:.2f} >= {max_load}: waiting")
        time.sleep(20)


# ---------------------------------------------------------------- rendering
def fmt(x, digits=2):
    if x is None:
        return "FAIL"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}f}"


def fsec(x):
    if x is None:
        return "FAIL"
    return f"{x * 1000:.0f} ms" if x < 0.1 else f"{x:.2f}"


def fx(x):
    return "–" if x is None else (f"{x:.1f}x" if x >= 10 else f"{x:.2f}x")


def get(res, table, cfg, key):
    s = (res.get(table) or {}).get(cfg)
    return s.get(key) if s else None


def geo_rows(results, cols):
    """cols: list of functions res -> value; rows for kernels and for all"""
    rows = []
    groups = [("geomean, kernels", lambda r: r["kernel"])]
    if any(r.get("real") for r in results):
        groups.append(("geomean, real programs", lambda r: bool(r.get("real"))))
    for label, sel in groups + [("geomean, all", lambda r: True)]:
        sub = [r for r in results if sel(r)]
        rows.append([f"**{label}**"] + [fx(geomean([c(r) for r in sub])) for c in cols])
    return rows


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def interference(i, short=False):
    share = i["foreign_cpu"] / i["wall"] * 100 if i["wall"] else 0
    if short:
        return f"{share:.0f}%"
    span = f"{i['wall'] / 60:.0f} min" if i["wall"] >= 120 else f"{i['wall']:.0f} s"
    return (f"{i['foreign_cpu']:.0f} CPU-seconds used by other processes during the "
            f"{span} of measuring ({share:.0f}% of one CPU; from /proc/stat "
            f"minus this benchmark's own CPU time)")


def render(data, plot_name):
    res, mf, q = data["results"], data["machine"], data["load"]
    L = []
    L.append("# Benchmarks: dacce-race against ThreadSanitizer, Helgrind and DRD\n")
    L.append("Generated by `bench/run.py`; numbers are medians of "
             f"{data['runs']} runs (Helgrind/DRD table: {data['vg_runs']}).  Regenerate from the "
             "repository root with\n\n```sh\n" + data["command"] + "\n```\n")
    L.append("## Machine\n")
    la = q["at_start"]
    L.append(table(["", ""], [
        ["date", mf["date"]], ["CPU", f"{mf['cpu']}, {mf['nproc']} CPUs (nproc)"],
        ["memory", mf["memory"]], ["kernel", mf["kernel"]], ["clang", mf["clang"]],
        ["gcc", mf["gcc"]], ["valgrind", mf["valgrind"]], ["python", mf["python"]],
        ["dacce-race", f"commit {mf['commit']}, runtime built {mf['build_type'] or '(default)'}"],
        ["load average (1/5/15 min)",
         f"{la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} when measuring started"
         + (f" (after waiting {q['waited_s']} s)" if q["waited_s"] else "")
         + ("" if q["quiet"] else f"; **not quiet**: still >= {data['max_load']} after "
            f"{q['waited_s']} s, measured anyway")
         + f"; {q['at_end'][0]:.2f} / {q['at_end'][1]:.2f} / {q['at_end'][2]:.2f} at the end"],
    ] + ([["other processes", interference(q["interference"])
           + "; per workload: " + ", ".join(f"{r['name']} {interference(r['interference'], short=True)}"
                                             for r in res if r.get("interference"))]]
         if q.get("interference") else [])))
    L.append("")
    L.append("## Workloads\n")
    reals = [r for r in res if r.get("real")]

    def library(r):
        x = r.get("real")
        return "–" if not x else (f"{x['library']} {x['library_version']} "
                                  f"(npm `{x['package']}@{x['package_version']}`)")

    L.append(table(["workload", "size", "what it does"] + (["library"] if reals else []) + ["output"], [
        [f"`{r['name']}` ([{os.path.basename(r['src'])}](../{r['src']}))",
         r["size"] if r["size"] is not None else "–", r["what"]]
        + ([library(r)] if reals else []) + [f"`{r.get('output', '')}`"]
        for r in res]))
    L.append("\nEach kernel takes its size as its only argument, checks its own result and exits "
             "1 when it is wrong.  Every run of every configuration was checked: exit status 0, "
             "output identical to the native build's, and no race report (all the workloads are "
             "race-free; both ThreadSanitizers and dacce-race agree, and the dacce build was also "
             "run once under the `dacce-race` launcher with `--json`: zero reports).\n")
    if reals:
        L.append("The real programs are our drivers ([bench/real/](../bench/real/)) built with a "
                 "library's own, unmodified sources, which the harness fetches from the npm registry "
                 "at run time (`npm pack PACKAGE@VERSION`, which checks the registry's integrity "
                 "hash, unpacked into its work directory; not part of this repository).  Every "
                 "library source and the driver are compiled on their own (`-c`) with the "
                 "configuration's compiler and flags (table below) plus the flags here, then "
                 "linked as in the table.  The library version is what the native build's "
                 "`--version` prints (`ZSTD_versionString()`, `sqlite3_libversion()`, Argon2's "
                 "`ARGON2_VERSION_NUMBER`, LevelDB's `kMajorVersion.kMinorVersion`).  LevelDB is "
                 "compiled with one header of ours force-included in place of one of its own "
                 "([bench/real/leveldb_atomic_pointer.h](../bench/real/leveldb_atomic_pointer.h): "
                 "its x86 `AtomicPointer` is a plain field behind a compiler barrier, a data race "
                 "that every detector reports; ours is the `std::atomic` one the same header "
                 "has for other platforms).\n")
        L.append(table(["workload", "library", "npm package", "tarball", "sources", "extra flags"], [
            [r["name"], f"{x['library']} {x['library_version']}",
             f"`{x['package']}@{x['package_version']}`",
             f"`{x['integrity']}`" if x.get("integrity") else f"sha256 `{x.get('sha256')}`",
             f"{x['sources']} files under `{x['root']}`",
             f"`{' '.join(x['cflags'])}`" + (f", link `{' '.join(x['libs'])}`" if x["libs"] else "")]
            for r in reals for x in [r["real"]]]))
        L.append("")
    for s in data.get("skipped") or []:
        L.append(f"**Skipped** `{s['name']}`: {s['why']}.\n")
    L.append("Builds (all `-O2 -g -gdwarf-4`: valgrind 3.19 gives up on clang 14's DWARF 5 "
             "for the SQLite amalgamation; C++ with `-std=c++17` and clang++/g++/dacce-c++):\n")
    shown = next((r for r in res if not r.get("real")), res[0] if res else None)
    cmds = shown.get("commands", {}) if shown else {}
    L.append(table(["configuration", f"command ({shown['name'] if shown else '–'})"],
                   [[LABEL[c], f"`{cmds.get(c, '')}`"] for c in BUILD_CONFIGS]))
    L.append("\nHelgrind and DRD run the native build: `valgrind --tool=helgrind|drd ./native`.\n")
    if plot_name:
        L.append(f"![slowdown and memory against native]({plot_name})\n")

    # wall time
    L.append("## Wall time\n")
    L.append("Seconds (median), and ratios.  2 threads or more per kernel on "
             f"{mf['nproc']} CPUs.\n")
    head = ["workload", "native s", "clang TSan s", "gcc TSan s", "dacce-race s",
            "clang TSan / native", "gcc TSan / native", "dacce-race / native",
            "**dacce-race / clang TSan**", "gcc TSan / clang TSan"]
    cols = [
        lambda r: ratio(get(r, "main", "tsan-clang", "wall"), get(r, "main", "native", "wall")),
        lambda r: ratio(get(r, "main", "tsan-gcc", "wall"), get(r, "main", "native", "wall")),
        lambda r: ratio(get(r, "main", "dacce", "wall"), get(r, "main", "native", "wall")),
        lambda r: ratio(get(r, "main", "dacce", "wall"), get(r, "main", "tsan-clang", "wall")),
        lambda r: ratio(get(r, "main", "tsan-gcc", "wall"), get(r, "main", "tsan-clang", "wall")),
    ]
    rows = [[r["name"]] + [fsec(get(r, "main", c, "wall"))
                           for c in ("native", "tsan-clang", "tsan-gcc", "dacce")]
            + [fx(c(r)) for c in cols] for r in res]
    rows += [[g[0], "", "", "", ""] + g[1:] for g in geo_rows(res, cols)]
    L.append(table(head, rows))
    spreads = [(get(r, "main", c, "wall_max") - get(r, "main", c, "wall_min")) / get(r, "main", c, "wall")
               for r in res if r["kernel"] for c in BUILD_CONFIGS if get(r, "main", c, "wall")]
    if spreads:
        L.append(f"\nNoise: over the kernels, (max − min) / median of a configuration's "
                 f"{data['runs']} runs is at most {max(spreads) * 100:.0f}% "
                 f"(median {statistics.median(spreads) * 100:.0f}%).\n")

    # memory
    L.append("## Peak memory\n")
    L.append("Peak resident set size (ru_maxrss, MB, median), and ratios.\n")
    head = ["workload", "native MB", "clang TSan MB", "gcc TSan MB", "dacce-race MB",
            "clang TSan / native", "gcc TSan / native", "dacce-race / native",
            "**dacce-race / clang TSan**", "gcc TSan / clang TSan"]
    cols = [
        lambda r: ratio(get(r, "main", "tsan-clang", "rss_kb"), get(r, "main", "native", "rss_kb")),
        lambda r: ratio(get(r, "main", "tsan-gcc", "rss_kb"), get(r, "main", "native", "rss_kb")),
        lambda r: ratio(get(r, "main", "dacce", "rss_kb"), get(r, "main", "native", "rss_kb")),
        lambda r: ratio(get(r, "main", "dacce", "rss_kb"), get(r, "main", "tsan-clang", "rss_kb")),
        lambda r: ratio(get(r, "main", "tsan-gcc", "rss_kb"), get(r, "main", "tsan-clang", "rss_kb")),
    ]

    def mb(r, c):
        v = get(r, "main", c, "rss_kb")
        if v is None:
            return "n/a" if get(r, "main", c, "wall") is not None else "FAIL"
        return fmt(v / 1024, 1)

    rows = [[r["name"]] + [mb(r, c) for c in ("native", "tsan-clang", "tsan-gcc", "dacce")]
            + [fx(c(r)) for c in cols] for r in res]
    rows += [[g[0], "", "", "", ""] + g[1:] for g in geo_rows(res, cols)]
    L.append(table(head, rows))
    L.append("")

    # valgrind
    vres = [r for r in res if r.get("valgrind")]
    if vres:
        L.append("## Helgrind and DRD (reduced sizes)\n")
        L.append("Valgrind runs the threads one at a time and is far slower, so this table uses a "
                 "smaller size per kernel (column *size*; the samples as they are), with native, "
                 "clang TSan and dacce-race re-measured at that size.  Time: seconds (median) and "
                 "the ratio to native.  *Errors* are what Helgrind and DRD report (ERROR SUMMARY) "
                 "on these race-free programs: false positives, mostly on C11 atomics, which "
                 "neither tool models.\n")
        head = ["workload", "size", "native s", "clang TSan", "dacce-race", "Helgrind", "DRD",
                "Helgrind MB", "DRD MB", "dacce-race MB", "Helgrind errors", "DRD errors"]

        def cell(r, c):
            t = get(r, "valgrind", c, "wall")
            n = get(r, "valgrind", "native", "wall")
            return "FAIL" if t is None else f"{fsec(t)} ({fx(ratio(t, n))})"

        def vmb(r, c):
            v = get(r, "valgrind", c, "rss_kb")
            return "FAIL" if v is None else fmt(v / 1024, 1)

        rows = [[r["name"], r["small"] if r["small"] is not None else "–",
                 fsec(get(r, "valgrind", "native", "wall"))]
                + [cell(r, c) for c in ("tsan-clang", "dacce", "helgrind", "drd")]
                + [vmb(r, c) for c in ("helgrind", "drd", "dacce")]
                + [get(r, "valgrind", "helgrind", "vg_errors"), get(r, "valgrind", "drd", "vg_errors")]
                for r in vres]
        vcols = [lambda r, c=c: ratio(get(r, "valgrind", c, "wall"), get(r, "valgrind", "native", "wall"))
                 for c in ("tsan-clang", "dacce", "helgrind", "drd")]
        rows += [[g[0], "", ""] + g[1:] + [""] * 5 for g in geo_rows(vres, vcols)]
        L.append(table(head, rows))
        L.append("\nRatios in parentheses are to native at the same size.  "
                 "Helgrind / dacce-race wall time, geometric mean over the kernels: "
                 f"{fx(geomean([ratio(get(r, 'valgrind', 'helgrind', 'wall'), get(r, 'valgrind', 'dacce', 'wall')) for r in vres if r['kernel']]))}; "
                 "DRD / dacce-race: "
                 f"{fx(geomean([ratio(get(r, 'valgrind', 'drd', 'wall'), get(r, 'valgrind', 'dacce', 'wall')) for r in vres if r['kernel']]))}.\n")

    # encoder only
    L.append(f"## Encoder-only overhead (`{CYG}`, no ThreadSanitizer)\n")
    L.append("Context capture cannot be switched off inside the detector without runtime changes, "
             "so the encoder is measured on its own: each workload built with "
             f"`{CYG}` (hooks in the functions left after inlining: the calls "
             "ThreadSanitizer's pass instruments, as it runs after inlining too) and no "
             "`-fsanitize=thread`, linked either with "
             "[bench/empty_hooks.c](../bench/empty_hooks.c) (*empty hooks*: "
             "`__cyg_profile_func_enter/exit` do nothing) or with `BUILD/lib/dacce/dacce_rt.o` "
             "(*dacce encoder*: they feed the DACCE encoder, as in "
             "`tests/encoder/cyg_test.sh`).  *encoder / empty* is the encoder's cost over empty "
             "callbacks.  `dacce_rt.o` is the whole runtime, so its interceptors (pthread "
             "synchronisation with vector clocks, malloc/free with heap bookkeeping, mem*/str*) "
             "run in that build too; the *runtime, no events* build (no "
             "hooks, linked with `dacce_rt.o`) measures them alone.  "
             "*net ns / call* is the encoder's own CPU cost per call over an empty callback: "
             "(encoder − runtime-no-events − empty hooks + native) CPU time (user + system, all "
             "threads) / calls; it is left out (–) where the CPU times are too short to "
             "subtract.\n")
    head = ["workload", "native s", "empty hooks s", "dacce encoder s", "runtime, no events s",
            "empty / native", "encoder / native", "**encoder / empty**",
            "runtime no events / native", "calls", "ccStack pushes", "net ns / call",
            "native MB", "encoder MB"]
    ecols = [
        lambda r: ratio(get(r, "main", "cyg-empty", "wall"), get(r, "main", "native", "wall")),
        lambda r: ratio(get(r, "main", "cyg-dacce", "wall"), get(r, "main", "native", "wall")),
        lambda r: ratio(get(r, "main", "cyg-dacce", "wall"), get(r, "main", "cyg-empty", "wall")),
        lambda r: ratio(get(r, "main", "rt-only", "wall"), get(r, "main", "native", "wall")),
    ]

    def per_call(r):
        c = {k: get(r, "main", k, "cpu") for k in ("cyg-dacce", "rt-only", "cyg-empty", "native")}
        calls = (r.get("cyg_stats") or {}).get("calls")
        if any(v is None for v in c.values()) or not calls or c["cyg-dacce"] < 0.2:
            return "–"
        net = c["cyg-dacce"] - c["rt-only"] - c["cyg-empty"] + c["native"]
        return f"{net / calls * 1e9:.1f}"

    def n(x):
        return "–" if x is None else f"{x:,}"

    rows = []
    for r in res:
        cs = r.get("cyg_stats") or {}
        emb = get(r, "main", "cyg-dacce", "rss_kb")
        nmb = get(r, "main", "native", "rss_kb")
        rows.append([r["name"]] + [fsec(get(r, "main", c, "wall"))
                                   for c in ("native", "cyg-empty", "cyg-dacce", "rt-only")]
                    + [fx(c(r)) for c in ecols]
                    + [n(cs.get("calls")), n(cs.get("pushes")), per_call(r),
                       "–" if nmb is None else fmt(nmb / 1024, 1), "–" if emb is None else fmt(emb / 1024, 1)])
    rows += [[g[0], "", "", "", ""] + g[1:] + [""] * 5 for g in geo_rows(res, ecols)]
    L.append(table(head, rows))
    L.append("")

    # statistics
    L.append("## Encoder statistics (DACCE paper, Table 1)\n")
    L.append("From one run of each dacce-race build (`-fsanitize=thread`, events from "
             "`__tsan_func_entry/exit`) with `DACCE_OPTIONS=stats=1`, in the shape of Table 1 "
             "of the DACCE paper (Li et al., CGO 2014).  *edges* splits into encoded / back / "
             "overflow edges of the final dictionary; *pushes/s* is over the process's whole "
             "run; *avg depth* is the ccStack depth sampled every 256th call.\n")
    head = ["workload", "nodes", "edges (enc/back/ovf)", "maxID", "re-encodings", "calls",
            "ccStack pushes", "pushes / call", "ccStack pushes/s", "avg ccStack depth",
            "ccStack nodes"]
    rows = []
    for r in res:
        s = r.get("stats")
        if not s:
            rows.append([r["name"]] + ["–"] * (len(head) - 1))
            continue
        rows.append([r["name"], n(s["nodes"]),
                     f"{n(s['edges'])} ({s['encoded']}/{s['back']}/{s['overflow']})", n(s["maxid"]),
                     s["reencodings"], n(s["calls"]), n(s["pushes"]),
                     f"{s['pushes'] / s['calls']:.3f}" if s["calls"] else "–",
                     n(int(s["pushes_per_s"])), f"{s['avg_depth']:.2f}", n(s["cc_nodes"])])
    L.append(table(head, rows))
    L.append("")

    L += render_ablation(data)
    if data.get("failures"):
        L.append("## Failures\n")
        L.append("These runs failed (and their medians are shown as FAIL):\n")
        for f in data["failures"]:
            L.append("```\n" + f + "\n```")
        L.append("")
    if data.get("notes"):
        L.append("## Observations\n")
        L.append(data["notes"].strip() + "\n")
    return "\n".join(L) + "\n"


def plot(data, png, workdir):
    if not shutil.which("gnuplot"):
        log("gnuplot not found: no plot (apt-get install -y gnuplot-nox)")
        return False
    res = data["results"]
    dat = os.path.join(workdir, "bench.dat")

    def v(x):
        return "NaN" if x is None else f"{x:.4f}"

    with open(dat, "w") as f:
        f.write("# name tsan-clang tsan-gcc dacce (wall/native) tsan-clang tsan-gcc dacce (rss/native) "
                "empty encoder rt-only (wall/native)\n")
        for r in res:
            nw, nm = get(r, "main", "native", "wall"), get(r, "main", "native", "rss_kb")
            vals = [ratio(get(r, "main", c, "wall"), nw) for c in ("tsan-clang", "tsan-gcc", "dacce")]
            vals += [ratio(get(r, "main", c, "rss_kb"), nm) for c in ("tsan-clang", "tsan-gcc", "dacce")]
            vals += [ratio(get(r, "main", c, "wall"), nw) for c in ("cyg-empty", "cyg-dacce", "rt-only")]
            f.write(r["name"].replace("_", "\\\\_") + " " + " ".join(v(x) for x in vals) + "\n")
    script = f"""
set terminal pngcairo size 1100,1150 font "sans,10"
set output '{png}'
set multiplot layout 3,1 title "dacce-race benchmarks ({data['machine']['date']}, {data['machine']['nproc']} CPUs, median of {data['runs']} runs)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 2
set grid ytics
set key top left
set datafile missing "NaN"
set xtics nomirror
set ylabel "wall time / native"
set title "Slowdown"
plot '{dat}' using 2:xtic(1) title 'clang TSan' lc rgb '#4477aa', '' using 3 title 'gcc TSan' lc rgb '#66ccee', '' using 4 title 'dacce-race' lc rgb '#ee6677'
set ylabel "peak RSS / native"
set title "Memory"
plot '{dat}' using 5:xtic(1) title 'clang TSan' lc rgb '#4477aa', '' using 6 title 'gcc TSan' lc rgb '#66ccee', '' using 7 title 'dacce-race' lc rgb '#ee6677'
set ylabel "wall time / native"
set title "Encoder only (-finstrument-functions-after-inlining, no TSan)"
set yrange [0.25:*]
plot '{dat}' using 8:xtic(1) title 'empty hooks' lc rgb '#bbbbbb', '' using 10 title 'runtime, no events' lc rgb '#ccbb44', '' using 9 title 'dacce encoder' lc rgb '#ee6677'
unset multiplot
"""
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if r.returncode:
        log("gnuplot failed:\n" + r.stderr)
        return False
    return True


# ---------------------------------------------------------------- modes
def smoke(args):
    for tool in ("clang", "gcc"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} not found")
            return 77
    build = os.path.abspath(args.build)
    workdir = tempfile.mkdtemp(prefix="dacce-bench-smoke-")
    t0 = time.time()
    try:
        builder = Builder(build, workdir)
        builder.prepare()
        runner = Runner(build, workdir, 60)
        w = SMOKE
        exes, cmds, bfail = builder.build_all(w, BUILD_CONFIGS)
        runner.failures += bfail
        if "native" not in exes:
            print("\n".join(runner.failures))
            return 1
        ref = run_measured([exes["native"]] + w.args(w.size), clean_env(), 60)
        outs = {}
        res = {"name": w.name, "src": w.src, "size": w.size, "small": w.small, "what": w.what,
               "kernel": True, "commands": cmds, "output": ref["out"].strip(), "main": {}}
        for cfg in BUILD_CONFIGS:
            m = runner.run(w, cfg, exes, w.size, ref["out"])
            if m:
                outs[cfg] = m["out"].strip()
                res["main"][cfg] = summarize([m])
        runner.launcher_check(w, exes, w.size, ref["out"])
        st = runner.run(w, "dacce", exes, w.size, ref["out"], {"DACCE_OPTIONS": "stats=1"})
        res["stats"] = parse_stats(st["err"]) if st else None
        st = runner.run(w, "cyg-dacce", exes, w.size, ref["out"], {"DACCE_OPTIONS": "stats=1"})
        res["cyg_stats"] = parse_stats(st["err"]) if st else None
        res["ablation"] = measure_ablation(w, builder, runner, 1, exes, ref["out"])
        for key in ("stats", "cyg_stats"):
            s = res[key]
            if not s or any(v is None for v in s.values()) or not s["calls"] or not s["nodes"]:
                runner.failures.append(f"{key}: encoder statistics missing or incomplete: {s}")
        data = {"results": [res], "machine": machine_facts(build), "runs": 1, "vg_runs": 0,
                "load": {"initial": os.getloadavg(), "at_start": os.getloadavg(), "waited_s": 0,
                         "quiet": True, "at_end": os.getloadavg()},
                "max_load": 1.0, "command": "python3 bench/run.py --smoke", "failures": runner.failures}
        md = render(data, None)  # the renderer must not rot either
        with open(os.path.join(workdir, "smoke.md"), "w") as f:
            f.write(md)
        for cfg in BUILD_CONFIGS:
            print(f"{cfg:11s} {'ok ' if cfg in outs and res['main'].get(cfg) else 'FAIL'} "
                  f"{outs.get(cfg, '')}")
        if runner.failures:
            print("FAILURES:\n" + "\n".join(runner.failures))
            return 1
        print(f"bench smoke: {len(BUILD_CONFIGS)} configurations agree "
              f"({time.time() - t0:.1f} s)")
        return 0
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def full(args):
    build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    png = os.path.abspath(args.plot) if args.plot else os.path.splitext(out)[0] + ".png"
    workdir = os.path.abspath(args.workdir) if args.workdir else tempfile.mkdtemp(prefix="dacce-bench-")
    os.makedirs(workdir, exist_ok=True)
    jpath = args.json or os.path.join(workdir, "results.json")
    if args.from_json:
        with open(args.from_json) as f:
            data = json.load(f)
    else:
        wls = WORKLOADS
        if args.only:
            names = args.only.split(",")
            wls = [w for w in WORKLOADS if w.name in names]
            if len(wls) != len(names):
                raise SystemExit(f"unknown workload in --only {args.only}")
        builder = Builder(build, workdir)
        builder.prepare()
        builder.jobs = args.jobs
        skipped = []
        for w in [w for w in wls if w.real]:  # sources of the real programs, before measuring
            why = fetch_npm(w.real, os.path.abspath(args.npm_cache or os.path.join(workdir, "npm")))
            if why:
                skipped.append({"name": w.name, "why": why})
                log(f"SKIPPING {w.name}: {why}")
        wls = [w for w in wls if w.name not in {s["name"] for s in skipped}]
        runner = Runner(build, workdir, args.timeout)
        runner.ablation = not args.no_ablation
        machine = machine_facts(build)
        load = wait_quiet(args.max_load, args.quiet_wait)
        log(f"load average at start: {load['at_start']}; work directory {workdir}")
        results = []
        s0 = cpu_snapshot()
        for w in wls:
            a = cpu_snapshot()
            results.append(measure_workload(w, builder, runner, args.runs, args.vg_runs,
                                            not args.no_valgrind))
            results[-1]["interference"] = foreign_cpu(a, cpu_snapshot())
        load["at_end"] = os.getloadavg()
        load["interference"] = foreign_cpu(s0, cpu_snapshot())
        cmd = "python3 bench/run.py " + shlex.join(args.argv)
        data = {"results": results, "machine": machine, "load": load, "runs": args.runs,
                "vg_runs": args.vg_runs, "max_load": args.max_load, "command": cmd,
                "failures": runner.failures, "skipped": skipped}
        with open(jpath, "w") as f:
            json.dump(data, f, indent=1)
        log(f"results saved to {jpath}")
    if args.notes:
        with open(args.notes) as f:
            data["notes"] = f.read()
    plot_name = None
    if not args.no_plot and plot(data, png, workdir):
        plot_name = os.path.relpath(png, os.path.dirname(out))
    with open(out, "w") as f:
        f.write(render(data, plot_name))
    log(f"wrote {out}" + (f" and {png}" if plot_name else ""))
    for s in data.get("skipped") or []:
        log(f"note: {s['name']} skipped: {s['why']}")
    if data["failures"]:
        log(f"{len(data['failures'])} failures:\n" + "\n".join(data["failures"]))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--build", default=os.path.join(REPO, "build"),
                    help="dacce-race build directory (default: build)")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "benchmarks.md"),
                    help="markdown report (default: docs/benchmarks.md)")
    ap.add_argument("--plot", help="plot file (default: the report's name with .png)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per configuration (median)")
    ap.add_argument("--vg-runs", type=int, default=3, help="runs per configuration at the reduced "
                    "size (Helgrind/DRD table)")
    ap.add_argument("--no-valgrind", action="store_true")
    ap.add_argument("--no-ablation", action="store_true", help="skip the context capture "
                    "ablation (capture=stackwalk|cct, with a -fno-omit-frame-pointer dacce build)")
    ap.add_argument("--only", help="comma-separated workload names")
    ap.add_argument("--npm-cache", help="where the real programs' npm packages are unpacked "
                    "(default: WORKDIR/npm; reused when already there)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles of a real program's "
                    "sources (default 2)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--max-load", type=float, default=1.0, help="quiet: 1-minute load average below")
    ap.add_argument("--quiet-wait", type=float, default=600, help="seconds to wait for quiet")
    ap.add_argument("--workdir", help="where binaries and results.json go (default: a new "
                    "temporary directory, kept)")
    ap.add_argument("--json", help="save the results here (default: WORKDIR/results.json)")
    ap.add_argument("--from-json", help="render these saved results; measure nothing")
    ap.add_argument("--notes", help="markdown file appended as the report's Observations")
    ap.add_argument("--smoke", action="store_true", help="quick check: one tiny workload, every "
                    "configuration once (ctest bench_smoke)")
    ap.add_argument("--keep", action="store_true", help="smoke: keep the work directory")
    args = ap.parse_args()
    args.argv = sys.argv[1:]
    if args.runs < 1 or args.vg_runs < 1:
        ap.error("--runs and --vg-runs must be at least 1")
    sys.exit(smoke(args) if args.smoke else full(args))


if __name__ == "__main__":
    main()
