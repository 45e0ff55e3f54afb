#!/usr/bin/env python3
"""No function in shim/ over 80 lines (issue 27), as a ratchet.

A function longer than the limit must be listed in long_functions.txt (next to this script) with
its length then; it may shrink, never grow, and a listed function that is now within the limit
(or gone) must leave the list, so the list only gets shorter. Tables are excepted: a brace block
opened after `=` (an initializer) is data, not a function.

A function is a brace block opened at namespace level by a line holding `(`: its name is the
identifier before the first `(` of its signature. Comments and string literals are blanked
first, so braces in them do not count.

Usage: function_length.py SOURCE_DIR
"""
import pathlib
import re
import sys

LIMIT = 80


def blank_comments_and_strings(text):
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and 0 < i < n - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
            out.append(c)  # a digit separator: 1'000'000
            i += 1
        elif c in "\"'":
            # Raw strings R"(...)" are rare here; a plain scan to the closing quote suffices.
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, length in lines) of each function in the file."""
    text = blank_comments_and_strings(path.read_text(errors="replace"))
    found = []
    stack = []  # for each open brace: "scope" (namespace, class, extern) or "body"/"data"
    start = 0   # where the current statement began (after the last ; { or } at scope level)
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        if c == "{":
            if stack and stack[-1] != "scope":
                stack.append("inner")
                continue
            head = text[start:i]
            kind = "scope"
            if re.search(r"=\s*$", head) or re.search(r"=\s*\w*\s*$", head):
                kind = "data"
            elif "(" in head and not re.search(r"\b(namespace|struct|class|union|enum)\b[^(]*$", head.split("(")[0]):
                kind = "body"
            stack.append(kind)
            if kind == "body":
                name = re.findall(r"[~\w:]+(?=\s*\()", head)
                found.append([name[0] if name else "?", line, None])
            start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "scope"
            if kind == "body" and found and found[-1][2] is None:
                found[-1][2] = line - found[-1][1] + 1
            if not stack or stack[-1] == "scope":
                start = i + 1
        elif c == ";" and (not stack or stack[-1] == "scope"):
            start = i + 1
    return [(n, first, length) for n, first, length in found if length is not None]


def main():
    root = pathlib.Path(sys.argv[1])
    listed = {}
    list_file = pathlib.Path(__file__).with_name("long_functions.txt")
    for number, raw in enumerate(list_file.read_text().splitlines(), 1):
        entry = raw.split("#")[0].split()
        if not entry:
            continue
        if len(entry) != 2 or not entry[1].isdigit():
            print(f"FAIL: {list_file}:{number}: expected 'FILE:FUNCTION LINES', got {raw!r}")
            return 1
        listed[entry[0]] = int(entry[1])
    failed = False
    seen = {}
    for path in sorted((root / "shim").rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".c"):
            continue
        rel = path.relative_to(root).as_posix()
        for name, first, length in functions(path):
            key = f"{rel}:{name}"
            if length <= LIMIT:
                continue
            seen[key] = max(seen.get(key, 0), length)
    for key, length in sorted(seen.items()):
        allowed = listed.get(key)
        if allowed is None:
            print(f"FAIL: {key} is {length} lines (the limit is {LIMIT}): split it into functions that say what they do")
            failed = True
        elif length > allowed:
            print(f"FAIL: {key} grew to {length} lines (listed at {allowed} in tests/suite/long_functions.txt): shrink it")
            failed = True
    for key, allowed in sorted(listed.items()):
        if key not in seen:
            print(f"FAIL: {key} is listed in tests/suite/long_functions.txt but is now within {LIMIT} lines or gone: remove its line")
            failed = True
        elif seen[key] < allowed:
            print(f"FAIL: {key} is now {seen[key]} lines: lower its entry in tests/suite/long_functions.txt from {allowed}")
            failed = True
    if not failed:
        print(f"ok: no function in shim/ over {LIMIT} lines but the {len(listed)} listed, none grown")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
