#!/usr/bin/env python3
"""Writes bench/suite/run.sh's pages from edashim bench's JSON exports: one Markdown page per
tool (each workload's full table) and summary.md (one row per tool and workload, every arm's
ratio to baseline as bench judged it, with its CI, p-value and peak-RSS ratio, output and allocator
checks, and the load around it).

usage: pages.py INDEX OUTDIR MACHINE COMMAND ROOT WORKLOADS WORK
INDEX: lines "tool workload json-path" (a header line first). Paths under ROOT (the checkout),
WORKLOADS and WORK (the suite's temporary directory) are written as $ROOT/..., $WORKLOADS/...
and $WORK/...: a page must not carry this machine's paths."""
import json
import os
import re
import socket
import sys
from collections import OrderedDict


def fmt_p(p):
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


# Bold marks what bench itself calls clearly faster (its JSON's "verdict": the paired ratio over
# rounds and its 95% CI from 5 rounds on, else the median ratio and its bootstrap CI; the CI
# entirely below 1 and no failed run). The pages take bench's decision, not a rule of their own.

# What a reader must know to read a tool's rows (shown on its page and under the summary).
TOOL_NOTES = {
    "vpr": "vpr: the binary as VTR builds it with TBB, linking libtbbmalloc_proxy.so.2, so its baseline "
           "is TBBmalloc, not glibc (hence the probe's 0% for baseline: it checks for glibc's malloc and "
           "finds TBBmalloc's); what VTR users run.",
    "vpr-glibc": "vpr-glibc: the same binary with the proxy's DT_NEEDED removed (patchelf, for the "
                 "measurement only): baseline glibc.",
}


def scrubber(dirs):
    """A function that takes this machine's paths and name out of a text (a page, and the raw
    data kept beside it, must carry neither): each known directory of `dirs` ([(path, name)]),
    $HOME and the tools' variables becomes its name (longest first, so a path inside another is
    named by the inner one), the host name becomes $HOST."""
    dirs = list(dirs) + [(os.environ.get("HOME", ""), "~")]
    dirs += [(os.environ.get(v, ""), "$" + v) for v in ("VTR_ROOT", "YICES", "YICES_SRC", "VPR", "TMPDIR")]
    dirs = sorted(((os.path.realpath(d).rstrip("/"), n) for d, n in dirs if d and os.path.isabs(d)),
                  key=lambda dn: -len(dn[0]))
    host = socket.gethostname()

    def scrub(text):
        for path, name in dirs:
            if len(path) > 1:
                text = re.sub(re.escape(path) + r"(?=[/\s\"'`]|$)", lambda _: name, text, flags=re.M)
        return text.replace(f'"{host}"', '"$HOST"') if host else text
    return scrub


def judged(j, name):
    """Bench's decided figures for arm `name` (its JSON's verdict.arms[])."""
    return next(v for v in j["verdict"]["arms"] if v["name"] == name)


def cell(j, arm):
    v = judged(j, arm["name"])
    if v["ratio"] is None:
        return f"failed ({arm['failed']})"
    text = f"{v['ratio']:.2f}"
    if v["ci95"] and v["ci95"][0] is not None:
        text += f" [{v['ci95'][0]:.2f}-{v['ci95'][1]:.2f}]"
    text += f" (p {fmt_p(v['p_faster'])})"
    if arm["failed"]:
        text += f", {arm['failed']} failed"
    rss = arm["ratio_to_first"]["peak_rss"]
    if rss is not None:
        text += f", RSS {rss:.2f}"
    return f"**{text}**" if v["clearly_faster"] else text


def verdict(j):
    """The clearly faster arm of lowest ratio, or 'no clear gain' (bench's winner)."""
    return j["verdict"]["winner"] or "no clear gain"


def load(j):
    """The 1-minute load average when the bench began and ended (its runs count in the second)."""
    la = j.get("load_average") or {}
    f = lambda x: "?" if x is None else f"{x:.1f}"
    return f"{f(la.get('before'))}-{f(la.get('after'))}"


def checks(j):
    outs = [a["outputs_summary"] or "-" for a in j["arms"][1:]]
    same = all(o == "identical" for o in outs)
    shares = [(a["name"], a["verified_share"]) for a in j["arms"] if a["verified_share"] is not None]
    if not shares:
        v = "-"
    elif len({share for _, share in shares}) == 1:
        v = f"{100 * shares[0][1]:.0f}%"
    else:  # e.g. a tool that links its own allocator: its baseline is not glibc, and the probe says so
        v = ", ".join(f"{name} {100 * share:.0f}%" for name, share in shares)
    return ("identical" if same else "; ".join(f"{a['name']}: {a['outputs_summary']}" for a in j["arms"][1:])), v


def main():
    index, outdir, machine, command, root = sys.argv[1:6]
    workloads, work = sys.argv[6:8]

    dirs = [(work, "$WORK"), (workloads, "$WORKLOADS"), (root, "$ROOT")]
    scrub = scrubber(dirs)

    rows = [l.split(" ", 2) for l in open(index).read().splitlines()[1:] if l.strip()]
    for _, _, path in rows:  # the kept data, scrubbed in place
        for f in (path, path[:-5] + ".md"):
            with open(f) as fh:
                text = fh.read()
            with open(f, "w") as fh:
                fh.write(scrub(text))
    by_tool = OrderedDict()
    for tool, workload, path in rows:
        by_tool.setdefault(tool, []).append((workload, json.load(open(path)), path[:-5] + ".md"))
    counts = [a["ok"] + a["failed"] for items in by_tool.values() for _, j, _ in items for a in j["arms"]]
    runs = min(counts) if counts else 0
    evidence = (f"{runs} rounds: too few to pair (bench pairs from 5 rounds on), so the ratios are of medians "
                "and the intervals wide: not evidence for a profile." if runs < 5 else
                f"{runs} rounds (each round runs every arm once, in shuffled order, after the warm-up). Each "
                "ratio is paired: the median over rounds of the arm's time over the baseline's in the same round, "
                "its 95% CI resampling rounds, p the one-sided Wilcoxon signed-rank test (H1: faster). A cell in "
                "bold is clearly faster, as bench's verdict says: the whole CI below 1 and no failed run.")
    head = [f"Generated by `{command}` on {machine}.", "", evidence, ""]
    arms = []  # every arm any workload ran, in order; a workload that ran fewer shows "-"
    for tool, items in by_tool.items():
        lines = [f"# {tool} through edashim bench", ""] + head
        if tool in TOOL_NOTES:
            lines += [TOOL_NOTES[tool], ""]
        for workload, j, md in items:
            arms += [a["name"] for a in j["arms"] if a["name"] not in arms]
            lines += [f"## {workload}", "", scrub(open(md).read().rstrip()), ""]
        with open(os.path.join(outdir, f"{tool}.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    # The summary: ratio of medians to the first arm (baseline), one-sided Mann-Whitney p.
    lines = ["# Open-flow suite: summary", ""] + head
    lines += ["Wall time relative to the first arm [95% CI] (p: this arm faster), below 1 is faster; peak RSS "
              "relative to it (ratio of medians); the verdict is bench's (the clearly faster arm of lowest "
              "ratio), if any; outputs compared across every run and arm; share of runs whose allocator the "
              "probe verified; the 1-minute load average when the workload's bench began and ended (its own "
              "runs count in the second).", ""]
    lines += ["| tool | workload | " + arms[0] + " median s | " + " | ".join(arms[1:])
              + " | verdict | outputs | verified | load |",
              "|" + "---|" * (len(arms) + 6)]
    for tool, items in by_tool.items():
        for workload, j, _ in items:
            base = j["arms"][0]["wall_s"]["median"]
            base_s = f"{base:.3g}" if base is not None else "failed"  # 0.0046 s, not 0.00
            out, ver = checks(j)
            by_name = {a["name"]: a for a in j["arms"][1:]}
            lines.append(f"| [{tool}]({tool}.md) | {workload} | {base_s} | "
                         + " | ".join(cell(j, by_name[n]) if n in by_name else "-" for n in arms[1:])
                         + f" | {verdict(j)} | {out} | {ver} | {load(j)} |")
    notes = [TOOL_NOTES[t] for t in by_tool if t in TOOL_NOTES]
    if notes:
        lines += [""] + notes
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
