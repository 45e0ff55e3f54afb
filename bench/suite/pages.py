#!/usr/bin/env python3
"""Writes bench/suite/run.sh's pages from edashim bench's JSON exports: one Markdown page per
tool (each workload's full table) and summary.md (one row per tool and workload, every arm's
median ratio to baseline with its p-value and peak-RSS ratio, output and allocator checks).

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


# The rule a profile is chosen by (issue 14): an arm is a clear gain on a workload only when the
# one-sided Mann-Whitney p < 0.05 AND the upper end of the bootstrap 95% CI of its median ratio
# is below 1. Anything else is "no clear gain", whatever its median says.
CLEAR_P = 0.05

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


def clear_gain(arm):
    p = (arm.get("mann_whitney") or {}).get("p_faster")
    ci = arm.get("median_ratio_ci95")
    return p is not None and p < CLEAR_P and ci is not None and ci[1] is not None and ci[1] < 1


def cell(arm):
    r = arm["ratio_to_first"]
    if r["median"] is None:
        return f"failed ({arm['failed']})"
    p = (arm.get("mann_whitney") or {}).get("p_faster")
    ci = arm.get("median_ratio_ci95")
    text = f"{r['median']:.2f}"
    if ci and ci[0] is not None:
        text += f" [{ci[0]:.2f}-{ci[1]:.2f}]"
    text += f" (p {fmt_p(p)})"
    if arm["failed"]:
        text += f", {arm['failed']} failed"
    if r["peak_rss"] is not None:
        text += f", RSS {r['peak_rss']:.2f}"
    return f"**{text}**" if clear_gain(arm) else text


def verdict(j):
    """The fastest arm among the clear gains, or 'none' (the profile then stays on the first arm)."""
    gains = [a for a in j["arms"][1:] if clear_gain(a)]
    if not gains:
        return "no clear gain"
    best = min(gains, key=lambda a: a["ratio_to_first"]["median"])
    return best["name"]


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
    evidence = ("Too few runs per arm for any p below 0.05 (the exact one-sided Mann-Whitney floor with "
                f"{runs} runs per arm): not evidence for a profile." if runs < 4 else
                f"{runs} runs per arm (interleaved, after the warm-up). A cell in bold is a clear gain: one-sided "
                "Mann-Whitney p < 0.05 and the bootstrap 95% CI of the median ratio entirely below 1.")
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
    lines += ["Median wall time relative to the first arm [bootstrap 95% CI] (one-sided Mann-Whitney p: this "
              "arm faster), peak RSS relative to it; the verdict is the fastest clear gain, if any; outputs "
              "compared across every run and arm; share of runs whose allocator the probe verified.", ""]
    lines += ["| tool | workload | " + arms[0] + " median s | " + " | ".join(arms[1:])
              + " | verdict | outputs | verified |",
              "|" + "---|" * (len(arms) + 5)]
    for tool, items in by_tool.items():
        for workload, j, _ in items:
            base = j["arms"][0]["wall_s"]["median"]
            base_s = f"{base:.2f}" if base is not None else "failed"
            out, ver = checks(j)
            by_name = {a["name"]: a for a in j["arms"][1:]}
            lines.append(f"| [{tool}]({tool}.md) | {workload} | {base_s} | "
                         + " | ".join(cell(by_name[n]) if n in by_name else "-" for n in arms[1:])
                         + f" | {verdict(j)} | {out} | {ver} |")
    notes = [TOOL_NOTES[t] for t in by_tool if t in TOOL_NOTES]
    if notes:
        lines += [""] + notes
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
