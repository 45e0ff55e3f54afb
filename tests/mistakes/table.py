#!/usr/bin/env python3
"""docs/mistakes.md from tests/mistakes/cases.txt (issue 38): each mistake run in a fresh sandbox,
its exit status and what edashim said, one table per subcommand. The rules every case must keep:
- a mistake never exits 0, unless its case says why 0 is right (ok: WHY);
- the first line edashim writes on stderr names it (stderr is shared with the tool, make, CI),
  and a mistake is answered: something on stderr, or on stdout where the case shows stdout;
- a case marked ok exits 0, and a case marked known still breaks a rule: a mark that no longer
  holds fails, so that it is removed once the problem is fixed.
Usage: table.py EDASHIM            writes docs/mistakes.md
       table.py --check EDASHIM    fails with a diff when docs/mistakes.md is not what it would write"""
import difflib, os, re, shutil, subprocess, sys, tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = os.path.join(SRC, "tests/mistakes/cases.txt")
DOC = os.path.join(SRC, "docs/mistakes.md")
FIELDS = ("setup", "ok", "known", "stdout", "first", "varies")
TIMEOUT = 20  # seconds; a case takes well under one
VARIES = "[depends on the timing]"  # in place of what a case's varies: REGEX matches
# bench's warnings of a busy machine: they depend on the load, not on the mistake.
NOISE = ("the machine was busy (load average", "% of their wall time (user + sys / wall, median)")


def read_cases():
    cases, heading = [], None
    with open(CASES, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                heading = line[1:-1]
                continue
            parts = line.split(" | ")
            if heading is None or len(parts) < 2:
                sys.exit(f"{CASES}:{n}: expected [HEADING] first, then MISTAKE | [FIELD: VALUE |]... COMMAND")
            case = {"heading": heading, "mistake": parts[0], "where": f"cases.txt:{n}"}
            rest = parts[1:]
            while len(rest) > 1 and re.match(rf"({'|'.join(FIELDS)}): ", rest[0]):
                key, _, value = rest.pop(0).partition(": ")
                case[key] = value
            case["command"] = " | ".join(rest)
            if "ok" in case and "known" in case:
                sys.exit(f"{CASES}:{n}: ok and known together: a case is one or the other")
            cases.append(case)
    return cases


def place(src, dst):
    """A hard link where it can be (same file system), else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def install(binary, home):
    """edashim as install.sh leaves it for one user: ~/.local/{bin,lib/edashim,share/edashim}, a
    yosys link in the shim directory. Hard links or copies, not symlinks to the build tree:
    edashim finds its files (and its default shim directory) from where its binary is."""
    bindir = os.path.dirname(binary)
    local = os.path.join(home, ".local")
    for d in ("bin", "lib/edashim/shims", "share/edashim"):
        os.makedirs(os.path.join(local, d))
    place(binary, os.path.join(local, "bin/edashim"))
    for f in ("edashim-cli", "libedashim_probe.so"):
        if os.path.exists(os.path.join(bindir, f)):
            place(os.path.join(bindir, f), os.path.join(local, "lib/edashim", f))
    profiles = os.path.join(SRC, "profiles")
    marker = os.path.join(bindir, "edashim-build-tree")
    if os.path.exists(marker):
        profiles = open(marker).read().strip() or profiles
    shutil.copytree(profiles, os.path.join(local, "share/edashim/profiles"))
    os.symlink("../../../bin/edashim", os.path.join(local, "lib/edashim/shims/yosys"))
    os.makedirs(os.path.join(home, ".config/edashim"))
    os.makedirs(os.path.join(home, "work"))


def sandbox_env(home):
    env = {"HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state",
           "XDG_CACHE_HOME": home + "/.cache", "LANG": "C.UTF-8",
           "PATH": f"{home}/.local/lib/edashim/shims:{home}/.local/bin:/usr/local/bin:/usr/bin:/bin",
           # Supervised, each run's log line is written before the run returns: the next command of a
           # case reads it, and nothing writes into the sandbox after it is removed.
           "EDASHIM_SUPERVISE": "1",
           # What a user at a terminal reads: a run's words reach stderr only there, once a session
           # (pipeline/notices.hpp); each case is a sandbox, and a session, of its own.
           "EDASHIM_NOTICES": "stderr"}
    for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):  # a sanitizer build (tests/asan.sh)
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def stable(text, sandbox, home):
    """What depends on the machine or the moment, made the same every time."""
    text = text.replace(home, "~").replace(sandbox, "$SANDBOX")
    text = re.sub(rf"edashim-{os.getuid()}\b", "edashim-UID", text)
    return re.sub(r"(edashim-(?:bench|tune)-)[A-Za-z0-9]{6}\b", r"\1XXXXXX", text)


def said(case, out, err):
    """The lines edashim said on stderr but NOISE, and those of stdout that the case selects."""
    err_lines = [l for l in err.splitlines() if l.strip() and not any(n in l for n in NOISE)]
    out_lines = [l for l in out.splitlines() if l.strip() and re.search(case["stdout"], l)] if "stdout" in case else []
    if "varies" in case:
        err_lines, out_lines = ([re.sub(case["varies"], VARIES, l) for l in ls] for ls in (err_lines, out_lines))
    return err_lines, out_lines


def run(command, cwd, env):
    """(status, stdout, stderr); status None after TIMEOUT, when the command's whole process
    group is killed: nothing of a case outlives it."""
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        return None, out, err


def run_case(case, binary, root, n):
    sandbox = os.path.join(root, f"case-{n}")
    home = os.path.join(sandbox, "home")
    install(binary, home)
    env, cwd = sandbox_env(home), os.path.join(home, "work")
    problems = []
    if "setup" in case and (setup := run(case["setup"], cwd, env))[0] != 0:
        problems.append(f"the setup failed (status {setup[0]}): {setup[2].strip()}")
    status, out, err = run(case["command"], cwd, env)
    if status is None:
        problems.append(f"still running after {TIMEOUT} s (killed): a case must be quick")
    err_lines, out_lines = said(case, stable(out, sandbox, home), stable(err, sandbox, home))
    shutil.rmtree(sandbox)
    return status, err_lines, out_lines, problems


def broken_rules(case, status, err_lines, out_lines):
    """The rules a case breaks, in words."""
    broken = []
    if status == 0 and "ok" not in case:
        broken.append("exits 0: a mistake must not look like success (if 0 is right here, say why: ok: WHY)")
    if err_lines and "edashim" not in err_lines[0]:
        broken.append(f"the first line on stderr does not name edashim: {err_lines[0]!r}")
    if not err_lines and not out_lines:
        broken.append("edashim says nothing" + (" that the case's stdout: REGEX selects" if "stdout" in case else ""))
    return broken


def check_marks(case, status, broken):
    """A case's failures: rules it breaks unmarked, and marks that no longer hold."""
    if "ok" in case and status != 0:
        return [f"marked ok (exit 0 is right) but exits {status}: remove the mark"]
    if "known" in case:
        return [] if broken else ["marked known, but it breaks no rule now (fixed?): remove the mark"]
    return broken


def code(text):
    """A Markdown code span holding text as it is, in a table cell."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}".replace("|", "\\|")


def cell(text):
    return text.replace("|", "\\|")


def row(case, status, lines):
    mistake = cell(case["mistake"])
    if "ok" in case:
        mistake += f" (exit 0 is right: {cell(case['ok'])})"
    if "known" in case:
        mistake += " (**known problem**, [below](#known-problems))"
    command = code(case["command"])
    if "setup" in case:
        command = code(case["setup"]) + "<br>" + command
    shown = lines
    if "first" in case and len(lines) > int(case["first"]):
        shown = lines[:int(case["first"])]
    message = "<br>".join(code(l) for l in shown) or "(nothing)"
    if len(shown) < len(lines):
        message += f"<br>... and {len(lines) - len(shown)} more lines"
    return f"| {mistake} | {command} | {status} | {message} |"


INTRO = """# Mistakes and what edashim says

Every mistake below is one users make, typed as they type it, and the row shows what edashim
answers: its exit status and every line it writes on stderr (where a subcommand answers on
stdout, such as doctor and explain, the lines of stdout that matter). A mistake never exits 0
unless the row says why 0 is right there (a tool keeps running after a configuration mistake:
a build never stops for one), and the first line on stderr names edashim: stderr is shared
with the tool, make and CI, and an anonymous line could be anyone's. A tool run's words are
shown as a terminal shows them, the first time in a session: on any other stderr (a Tcl flow's
`exec`, a build log) the run says nothing, and its log line keeps the words
([transparency.md](transparency.md#what-edashim-has-to-tell)). Rows marked as a known
problem break one of these rules today; [Known problems](#known-problems) says what should
change. Back to the [README](../README.md).

This page is generated: `tests/mistakes/table.py` runs each case of
`tests/mistakes/cases.txt` in a fresh sandbox (its own HOME and XDG directories, edashim
installed under `~/.local` as install.sh does, a `yosys` link first on PATH; runs supervised, so
that each run's log line is written before it returns) and writes this file; ctest's
`mistakes_table` fails when the page differs from what the cases give, or a case breaks a rule
unmarked. The sandbox's home reads as `~`, bench's warnings of a busy machine (they depend on
the load) are left out, and what depends on the timing says so. To add a mistake, add a line to
the cases file, then: `python3 tests/mistakes/table.py build/shim/edashim`.
"""


def render(results):
    out, heading = [INTRO], None
    for case, status, lines in results:
        if case["heading"] != heading:
            heading = case["heading"]
            out.append(f"\n## {heading}\n\n| mistake | command | status | what edashim says |\n|---|---|---|---|")
        out.append(row(case, status, lines))
    out.append("\n## Known problems\n\nWhat should change where a row breaks a rule today, and the rows it concerns (once it is\n"
               "fixed, mistakes_table fails until the row's mark is removed):\n")
    reasons = {}
    for case, _, _ in results:
        if "known" in case:
            reasons.setdefault(case["known"], []).append(f"{case['mistake']} ({case['heading']})")
    for why, rows in reasons.items():
        out.append(f"- {cell(why[:1].upper() + why[1:])}. Rows: {'; '.join(cell(r) for r in rows)}.")
    if not reasons:
        out.append("None today: every row keeps the rules.")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    binary = os.path.abspath(args[0])
    results, failures = [], []
    root = tempfile.mkdtemp(prefix="edashim-mistakes-")
    try:
        for n, case in enumerate(read_cases(), 1):
            status, err_lines, out_lines, problems = run_case(case, binary, root, n)
            problems += check_marks(case, status, broken_rules(case, status, err_lines, out_lines))
            failures += [f"{case['where']}: [{case['heading']}] {case['mistake']}: {p}" for p in problems]
            results.append((case, status, err_lines + out_lines))
    finally:
        shutil.rmtree(root)
    text = render(results)
    regenerate = f"python3 {SRC}/tests/mistakes/table.py {binary}"
    if check:
        with open(DOC, encoding="utf-8") as f:
            current = f.read()
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       "docs/mistakes.md", "as the cases give it"))
            failures.append(f"docs/mistakes.md is not what the cases give (the diff above); regenerate it: {regenerate}")
    else:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(text)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(results)} cases, {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


main()
