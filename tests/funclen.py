#!/usr/bin/env python3
"""Lists C functions in toolgen/ longer than a limit (default 120 lines), longest first.

Usage: funclen.py [--max N] [DIR]. A function is a top-level body in the project's brace style:
from a line that is exactly "{" up to the next line starting with "}", counted from the nearest
line above the "{" that starts with a letter or "_" (the line naming the function), when that
line has a "(" and is no initialiser or struct. A body opened at the end of a line (") {") is not
seen, so the style is part of the rule. Exit 1 when any is over the limit.
"""
import os
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if start is None and line == "{":
            j = i - 1
            while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
                j -= 1
            start = (j, lines[j])
        elif start is not None and line.startswith("}"):
            if "=" not in start[1] and "struct" not in start[1].split("(")[0] or "(" in start[1]:
                if "(" in start[1]:
                    name = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", start[1])
                    yield (name[0] if name else "?", start[0] + 1, i + 1 - start[0])
            start = None


def main():
    args = sys.argv[1:]
    limit = 120
    if args[:1] == ["--max"]:
        limit = int(args[1])
        args = args[2:]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                              "toolgen")
    over = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if n.endswith(".c"):
                p = os.path.join(dirpath, n)
                for name, line, length in functions(p):
                    if length > limit:
                        over.append((length, os.path.relpath(p, root), line, name))
    for length, p, line, name in sorted(over, reverse=True):
        print(f"{p}:{line}: {name}: {length} lines (over {limit})")
    print(f"funclen: {len(over)} function(s) over {limit} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
