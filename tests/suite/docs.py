#!/usr/bin/env python3
"""The user's documentation stays findable and true to the tree (issue 28 item 8):
- README.md keeps the test command where .ci/run reads it (the line two after the marker), and
  the install command under "Two commands";
- README.md stays a guide: at most 250 lines, and its Contents list names every section;
- every relative link in README.md, CHANGELOG.md and docs/*.md reaches a file, and every #anchor
  a heading of that file (GitHub's slugs);
- docs/allocators.md's table of allocators names each family of shim/alloc/registry.cpp with its
  sonames and Debian package;
- every key of shim/config/keys.cpp's table, and every allocator family, is described in
  docs/configuration.md's Keys and in install/edashim.toml.5;
- every shipped named profile (profiles/named/*.toml) is named in README.md or docs/*.md, as
  `NAME` or `-p NAME`, so a user who reads `edashim profiles` can find what it is for;
- with the edashim command given, the synopsis of install/edashim.1 names every subcommand that
  `edashim --help` (and `bench --help`) lists.
Usage: docs.py SOURCE_DIR [EDASHIM_CLI]"""
import os, re, subprocess, sys

src = sys.argv[1]
cli = sys.argv[2] if len(sys.argv) > 2 else None
problems = []


def read(rel):
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        return f.read()


def outside_code(text):
    """The lines of a Markdown text that are not inside ``` blocks, with their numbers."""
    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(text):
    seen, out = {}, set()
    for _, line in outside_code(text):
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        base = slug(m.group(1))
        k = seen.get(base, 0)
        out.add(base if k == 0 else f"{base}-{k}")
        seen[base] = k + 1
    return out


readme = read("README.md")
lines = readme.split("\n")

# .ci/run: awk '/<!-- test-command -->/ {getline; getline; print; exit}' README.md
marker = [i for i, l in enumerate(lines) if "<!-- test-command -->" in l]
if not marker:
    problems.append("README.md: no <!-- test-command --> marker; .ci/run reads the test command after it")
else:
    i = marker[0]
    fence = lines[i + 1] if i + 1 < len(lines) else ""
    command = lines[i + 2] if i + 2 < len(lines) else ""
    if fence != "```sh" or "ctest" not in command:
        problems.append(f"README.md:{i + 1}: the test-command marker must be followed by ```sh and the test "
                        f"command (a line running ctest), as .ci/run reads it; found {fence!r}, {command!r}")
two = readme.split("## Two commands", 1)
if len(two) < 2 or "install/install.sh" not in two[1].split("\n## ", 1)[0]:
    problems.append("README.md: the section '## Two commands' must hold install/install.sh")

if len(lines) > 250:
    problems.append(f"README.md: {len(lines)} lines; a user's guide of at most 250 (move detail to docs/)")
contents = readme.split("## Contents", 1)
toc = contents[1].split("\n## ", 1)[0] if len(contents) > 1 else ""
if not toc:
    problems.append("README.md: no '## Contents' section")
for n, line in outside_code(readme):
    m = re.match(r"## (.*)", line)
    if m and m.group(1) != "Contents" and f"(#{slug(m.group(1))})" not in toc:
        problems.append(f"README.md:{n}: section '{m.group(1)}' is missing from the Contents list")

docs = ["README.md", "CHANGELOG.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
for doc in docs:
    text = read(doc)
    here = os.path.dirname(doc)
    for n, line in outside_code(text):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            rel = os.path.normpath(os.path.join(here, path)) if path else doc
            full = os.path.join(src, rel)
            if not os.path.exists(full):
                problems.append(f"{doc}:{n}: link to {target}: {rel} does not exist")
            elif anchor and rel.endswith(".md") and anchor not in anchors(read(rel)):
                problems.append(f"{doc}:{n}: link to {target}: {rel} has no heading whose anchor is #{anchor}")

# A profile is shipped to be chosen: a user who finds its name in `edashim profiles` must be
# able to find in the documents what it is for and what it was measured to do.
all_docs = "\n".join(read(d) for d in docs)
for f in sorted(os.listdir(os.path.join(src, "profiles/named"))):
    name = f[:-len(".toml")]
    if f.endswith(".toml") and not re.search(rf"`{re.escape(name)}`|-p {re.escape(name)}\b", all_docs):
        problems.append(f"profiles/named/{f}: the named profile '{name}' is not mentioned in README.md or docs/*.md "
                        f"(write it as `{name}` where the profiles of its kind are described)")

registry = read("shim/alloc/registry.cpp")
table = {}
for n, line in outside_code(read("docs/allocators.md")):
    m = re.match(r"\| `([a-z_]+)` \|", line)
    if m:
        table[m.group(1)] = line
for entry in re.split(r"\{\.name = ", registry)[1:]:
    name = entry.split('"')[1]
    sonames = re.search(r"\.sonames = \{([^}]*)\}", entry.split("\n      {", 1)[0])
    packages = re.findall(r'\{"[a-z]+", "[0-9.]+", "([^"]+)"\}', entry.split("\n      {", 1)[0])
    wanted = (re.findall(r'"([^"]+)"', sonames.group(1)) if sonames else []) + packages
    if name not in table:
        problems.append(f"docs/allocators.md: no row for the allocator family '{name}' of shim/alloc/registry.cpp")
        continue
    for w in wanted:
        if w not in table[name]:
            problems.append(f"docs/allocators.md: the row of '{name}' lacks {w} (shim/alloc/registry.cpp has it)")

keys = re.findall(r'^\s*\{"([a-z_]+)", apply_', read("shim/config/keys.cpp"), re.M)
families = re.findall(r'\{\.name = "([a-z_]+)"', registry)
if len(keys) < 10:
    problems.append(f"shim/config/keys.cpp: found only {keys} in the key table; this check reads its {{\"name\", apply_...}} lines")
reference = read("docs/configuration.md").split("\n## Keys", 1)
reference = reference[1] if len(reference) > 1 else ""
man5 = read("install/edashim.toml.5")
for key in keys + families:
    if f"`{key}`" not in reference:
        problems.append(f"docs/configuration.md: the Keys section does not describe '{key}' (a key of shim/config/keys.cpp or an allocator family)")
    if not re.search(rf"^\.B[IR]? \[?{key}\b", man5, re.M) and f"[{key}]" not in man5:
        problems.append(f"install/edashim.toml.5: no entry for '{key}' (a key of shim/config/keys.cpp or an allocator family)")

if cli:
    man = read("install/edashim.1")
    synopsis = man.split(".SH SYNOPSIS", 1)[1].split(".SH ", 1)[0]
    named = set(re.findall(r"^\.B (?:edashim )?(?:bench )?([a-z][a-z-]*)", synopsis, re.M))
    named |= set(re.findall(r"^\.B edashim [a-z]+ ([a-z][a-z-]*)", synopsis, re.M))
    for args in ([], ["bench"], ["shims"]):
        out = subprocess.run([cli, *args, "--help"], capture_output=True, text=True).stdout
        block = out.split("Subcommands:", 1)
        subs = re.findall(r"^  ([a-z][a-z-]*) ", block[1], re.M) if len(block) > 1 else []
        if args and not subs:
            problems.append(f"edashim {args[0]} --help lists no subcommands; this check reads them from there")
        for sub in subs:
            if sub not in named and not re.search(rf"^\.B edashim {' '.join(args)} ?{sub}\b", synopsis, re.M):
                problems.append(f"install/edashim.1: the SYNOPSIS lacks 'edashim {' '.join(args + [sub])}' "
                                f"(listed by {' '.join(['edashim', *args, '--help'])})")

for p in problems:
    print("FAIL:", p)
print(f"{len(docs)} documents checked" + (", man page synopsis against --help" if cli else "") +
      (": all well" if not problems else f": {len(problems)} problems"))
sys.exit(1 if problems else 0)
