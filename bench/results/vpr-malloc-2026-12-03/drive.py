#!/usr/bin/env python3
"""Issue 29 item 4: where VPR's time goes around malloc (measurement driver).

  drive.py rusage MODE N [FIRST]   -- N interleaved rounds over the five arms, wait4 rusage per run
  drive.py count MODE [TAG]      -- one run of vpr-dyn with malloc_count.so preloaded
  drive.py perf MODE ARM [TAG]   -- one run under `perf record -e cpu-clock -g`
  drive.py strace MODE ARM -- one run under `strace -f -c` (syscall counts; slows syscalls)
  drive.py perfshare DATA  -- top symbols and the allocator's self-time share of a perf.data
  drive.py phases          -- VPR's own phase times (median per arm) and each arm's ratio
  drive.py timeline COUNTS VPR_OUT -- allocation calls per VPR phase (from the ticks)
  drive.py table           -- medians per (mode, arm) from runs.jsonl, as markdown

MODE is `fixed` (--route_chan_width 128) or `search` (channel-width search).
Set VTR (a VTR checkout), BIN (directory with vpr-dyn, vpr-static, vpr-static-mi209) and
OUT (scratch directory; one sub-directory per run).  Every run is nice -n 19, one at a time.
"""
import hashlib, json, os, re, shutil, statistics, subprocess, sys, time



def need_dir(var):
    path = os.environ.get(var, "")
    if not os.path.isdir(path):
        sys.exit(f"drive.py: environment variable {var}={path!r} is not a directory; "
                 f"set it as the docstring says (VTR checkout, binaries, scratch directory)")
    return path


VTR, BIN, OUT = need_dir("VTR"), need_dir("BIN"), need_dir("OUT")
LIB = os.environ.get("ALLOC_LIB_DIR", "/usr/lib/x86_64-linux-gnu")  # Debian's multiarch dir
ARMS = {  # name: (binary, extra environment)
    "dyn-glibc": ("vpr-dyn", {}),
    "dyn-jemalloc": ("vpr-dyn", {"LD_PRELOAD": f"{LIB}/libjemalloc.so.2"}),
    "dyn-mimalloc": ("vpr-dyn", {"LD_PRELOAD": f"{LIB}/libmimalloc.so.2"}),
    "static-glibc": ("vpr-static", {}),
    "static-mi209": ("vpr-static-mi209", {}),
    # glibc before 2.26 had no tcache; old-distro builds (portable static ones) may have that
    "dyn-glibc-notcache": ("vpr-dyn", {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}),
}
# ONLY=arm,arm limits `rusage` to those arms
ONLY = [a for a in os.environ.get("ONLY", "").split(",") if a]
OUTPUTS = ("clma.net", "clma.place", "clma.route")


def vpr_args(mode):
    a = [f"{VTR}/vtr_flow/arch/timing/EArch.xml", f"{VTR}/vtr_flow/benchmarks/blif/clma.blif",
         "--pack", "--place", "--route", "--analysis", "-j1"]
    return a + (["--route_chan_width", "128"] if mode == "fixed" else [])


def run_one(mode, arm, tag, prefix=(), extra_env=None):
    binary, env_add = ARMS[arm]
    wd = os.path.join(OUT, "runs", f"{mode}-{arm}-{tag}")
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    env = dict(os.environ, **env_add, **(extra_env or {}))
    argv = ["nice", "-n", "19", *prefix, os.path.join(BIN, binary), *vpr_args(mode)]
    load = open("/proc/loadavg").read().split()[:3]
    t0 = time.monotonic()
    with open(os.path.join(wd, "vpr.out"), "wb") as log:
        p = subprocess.Popen(argv, cwd=wd, env=env, stdout=log, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    width = None
    for line in open(os.path.join(wd, "vpr.out"), errors="replace"):
        if "Best routing used a channel width factor of" in line or \
           line.startswith("Circuit successfully routed with a channel width factor of"):
            width = line.split()[-1].rstrip(".")
    hashes = {}
    for f in OUTPUTS:  # hash, then drop the big files: only equality matters
        path = os.path.join(wd, f)
        if os.path.exists(path):
            hashes[f] = hashlib.sha256(open(path, "rb").read()).hexdigest()[:16]
    for f in os.listdir(wd):
        if f.endswith((".net", ".post_routing", ".route", ".rpt")):
            os.remove(os.path.join(wd, f))
    rec = dict(mode=mode, arm=arm, tag=tag, rc=os.waitstatus_to_exitcode(status),
               load_before=load, wall=round(wall, 3), user=ru.ru_utime, sys=ru.ru_stime,
               maxrss_kib=ru.ru_maxrss, minflt=ru.ru_minflt, majflt=ru.ru_majflt,
               nvcsw=ru.ru_nvcsw, nivcsw=ru.ru_nivcsw, width=width, hashes=hashes,
               prefix=list(prefix), utc=time.strftime("%H:%M:%S", time.gmtime()))
    with open(os.path.join(OUT, "runs.jsonl"), "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)
    return wd


def main():
    cmd = sys.argv[1]
    if cmd == "rusage":
        mode, n = sys.argv[2], int(sys.argv[3])
        first = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # to add rounds later
        names = ONLY or [a for a in ARMS if a != "dyn-glibc-notcache"]
        for i in range(first, first + n):  # rotate the order each round so no arm always runs first
            for arm in names[i % len(names):] + names[:i % len(names)]:
                run_one(mode, arm, f"r{i}")
    elif cmd == "count":
        mode = sys.argv[2]
        tag = sys.argv[3] if len(sys.argv) > 3 else ""
        lib = os.path.join(OUT, "malloc_count.so")
        out = os.path.join(OUT, f"count-{mode}{tag}.txt")
        run_one(mode, "dyn-glibc", "count" + tag,
                extra_env={"LD_PRELOAD": lib, "MALLOC_COUNT_OUT": out})
    elif cmd == "perf":
        mode, arm = sys.argv[2], sys.argv[3]
        tag = sys.argv[4] if len(sys.argv) > 4 else ""
        data = os.path.join(OUT, f"perf-{mode}-{arm}{tag}.data")
        run_one(mode, arm, "perf" + tag, prefix=("perf", "record", "-q", "-e", "cpu-clock", "-g",
                                           "-o", data, "--"))
    elif cmd == "strace":  # syscall counts (mmap, munmap, brk, madvise): where sys time goes
        mode, arm = sys.argv[2], sys.argv[3]
        out = os.path.join(OUT, f"strace-{mode}-{arm}.txt")
        run_one(mode, arm, "strace", prefix=("strace", "-f", "-c", "-o", out))
    elif cmd == "table":
        table()
    elif cmd == "perfshare":
        perf_share(sys.argv[2])
    elif cmd == "phases":
        phases()
    elif cmd == "timeline":
        timeline(sys.argv[2], sys.argv[3])
    elif cmd == "perfdiff":
        perf_diff(sys.argv[2], sys.argv[3])


ALLOC_DSO = ("libjemalloc", "libmimalloc")
ALLOC_SYM = re.compile(r"^(malloc|free|cfree|calloc|realloc|_int_\w+|malloc_consolidate|"
                       r"unlink_chunk|sysmalloc|systrim|tcache_\w+|__libc_(malloc|free|calloc|"
                       r"realloc)|malloc_usable_size|__malloc_\w+|arena_get2|mi_\w+|_mi_\w+|"
                       r"je_\w+|__(mmap|munmap|madvise|brk|sbrk)|mmap64|munmap|madvise)$")
NEW_DELETE = re.compile(r"^operator (new|delete)")


def base_name(sym):
    """`cfree@GLIBC_2.2.5`, `malloc@plt`, `unlink_chunk.constprop.0` -> the function's name."""
    return re.sub(r"\.(constprop|isra|part|cold)\.\d+", "", sym.split("@")[0])


def is_alloc(dso, sym):
    return any(d in dso for d in ALLOC_DSO) or bool(ALLOC_SYM.match(base_name(sym)))


def perf_samples(data):
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "-n",
                          "--sort", "dso,sym", "--percent-limit", "0"],
                         capture_output=True, text=True).stdout
    rows = []
    for line in rep.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+(\d+)\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if m:
            rows.append((float(m.group(1)), int(m.group(2)), m.group(3), m.group(4).strip()))
    return rows


def perf_diff(a, b):
    """Where the samples of A and B differ, per symbol of the program (allocator symbols
    and DSOs apart): the program's own code getting faster under B is allocator locality."""
    def own(data):
        d = {}
        for _, n, dso, sym in perf_samples(data):
            if not (is_alloc(dso, sym) or NEW_DELETE.match(sym)):
                d[sym] = d.get(sym, 0) + n
        return d
    da, db = own(a), own(b)
    diffs = sorted(((da.get(k, 0) - db.get(k, 0), k) for k in set(da) | set(db)), reverse=True)
    print(f"own-code samples: A {sum(da.values())}, B {sum(db.values())}")
    for d, k in diffs[:int(os.environ.get("TOP", "15"))]:
        print(f"| {da.get(k, 0)} | {db.get(k, 0)} | {d:+d} | `{k[:70]}` |")
    print("largest increases under B:")
    for d, k in diffs[-5:]:
        print(f"| {da.get(k, 0)} | {db.get(k, 0)} | {d:+d} | `{k[:70]}` |")


def perf_share(data):
    """Self time in one perf.data, split three ways: the allocator (allocator DSOs whole,
    malloc symbols in libc or a static binary), C++ new/delete wrappers, everything else
    (the program's own code).  Samples, not only percentages: comparing arms, a drop in
    the program's own samples is a locality effect of the allocator, not allocator speed."""
    split = {"allocator": 0, "new/delete": 0, "rest": 0}
    top = perf_samples(data)
    for pct, n, dso, sym in top:
        if is_alloc(dso, sym):
            split["allocator"] += n
        elif NEW_DELETE.match(sym):
            split["new/delete"] += n
        else:
            split["rest"] += n
    for pct, n, dso, sym in top[:int(os.environ.get("TOP", "15"))]:
        print(f"| {pct:.2f}% | {n} | {dso} | `{sym[:70]}` |")
    total = sum(split.values())
    print(f"samples {total}: " + ", ".join(f"{k} {v} ({100 * v / total:.1f}%)"
                                           for k, v in split.items()))


PHASES = ("Packing", "SA Placement", "Create Device", "Routing")


def phases():
    """Which phase an allocator speeds up: VPR logs `# Packing took 5.04 seconds`."""
    recs = [json.loads(l) for l in open(os.path.join(OUT, "runs.jsonl"))]
    print("| mode | arm | n | " + " | ".join(f"{p} s (ratio)" for p in PHASES) + " | whole flow |")
    print("|" + "---|" * (len(PHASES) + 4))
    for mode in ("fixed", "search"):
        base = None
        for arm in ARMS:
            rs = [r for r in recs if r["mode"] == mode and r["arm"] == arm and r["rc"] == 0
                  and r["tag"].startswith("r") and not r["prefix"]]
            if not rs:
                continue
            times = {p: [] for p in PHASES + ("flow",)}
            for r in rs:
                log = open(os.path.join(OUT, "runs", f"{mode}-{arm}-{r['tag']}", "vpr.out"),
                           errors="replace").read()
                for p in PHASES:
                    m = re.search(rf"^# {p} took ([\d.]+) seconds", log, re.M)
                    times[p].append(float(m.group(1)) if m else float("nan"))
                m = re.search(r"entire flow of VPR took ([\d.]+) seconds", log)
                times["flow"].append(float(m.group(1)) if m else float("nan"))
            med = {p: statistics.median(v) for p, v in times.items()}
            base = base or med
            print(f"| {mode} | {arm} | {len(rs)} | " + " | ".join(
                f"{med[p]:.2f} ({med[p] / base[p]:.3f})" for p in PHASES + ("flow",)) + " |")


def timeline(counts, vpr_out):
    """Calls per phase: VPR's phases are consecutive, so their logged durations, summed in
    log order, give their boundaries on the counter's clock (to a tick, about 1 s)."""
    ticks = [(0.0, 0)]
    for line in open(counts):
        f = line.split()
        if f[0] == "tick":
            ticks.append((float(f[1]), int(f[2])))
        elif f[0] == "seconds_counted":
            end = float(f[1])
        elif f[:2] == ["calls", "malloc"]:
            total = int(f[2])
    ticks.append((end, total))

    def calls_at(t):  # linear between ticks
        for (t0, c0), (t1, c1) in zip(ticks, ticks[1:]):
            if t <= t1:
                return c0 + (c1 - c0) * (t - t0) / max(t1 - t0, 1e-9)
        return total
    spans, t = [], 0.0
    for m in re.finditer(r"^# (.*) took ([\d.]+) seconds", open(vpr_out, errors="replace").read(),
                         re.M):
        spans.append((m.group(1), t, t + float(m.group(2))))
        t += float(m.group(2))
    print("| phase | from s | to s | allocations (M) | per s (M, counted clock) |")
    print("|---|---|---|---|---|")
    for name, a, b in spans:
        if b - a >= 0.5:
            n = calls_at(b) - calls_at(a)
            print(f"| {name} | {a:.1f} | {b:.1f} | {n / 1e6:.1f} | {n / 1e6 / (b - a):.1f} |")
    print(f"| whole run | 0 | {end:.1f} | {total / 1e6:.1f} | {total / 1e6 / end:.1f} |")


def table():
    recs = [json.loads(l) for l in open(os.path.join(OUT, "runs.jsonl"))]
    print("| mode | arm | n | wall s | vs dyn-glibc | user s | sys s | sys/wall | minflt | minflt/s | majflt "
          "| peak RSS MiB | ctx sw (vol/invol) | load before | width | outputs |")
    print("|" + "---|" * 16)
    # outputs: `same` when every run of the arm wrote the same files; the hash prefix of
    # clma.route lets the arms be compared with each other
    for mode in ("fixed", "search"):
        base = None
        for arm in ARMS:
            rs = [r for r in recs if r["mode"] == mode and r["arm"] == arm and r["rc"] == 0
                  and not r["prefix"] and not r["tag"].startswith(("count", "perf"))]
            if not rs:
                continue
            med = lambda k: statistics.median(r[k] for r in rs)
            wall = med("wall")
            base = base or wall
            same = all(r["hashes"] == rs[0]["hashes"] for r in rs)
            loads = sorted(float(r["load_before"][0]) for r in rs)
            print(f"| {mode} | {arm} | {len(rs)} | {wall:.2f} | {wall / base:.3f} | "
                  f"{med('user'):.2f} | "
                  f"{med('sys'):.2f} | {100 * med('sys') / wall:.1f}% | {med('minflt'):.0f} | "
                  f"{med('minflt') / wall:.0f} | {med('majflt'):.0f} | "
                  f"{med('maxrss_kib') / 1024:.0f} | {med('nvcsw'):.0f}/{med('nivcsw'):.0f} | "
                  f"{loads[0]:.2f}-{loads[-1]:.2f} | "
                  f"{','.join(sorted({str(r['width']) for r in rs}))} | "
                  f"{'same' if same else 'DIFFER'} {rs[0]['hashes'].get('clma.route', '-')[:8]} |")


if __name__ == "__main__":
    main()
