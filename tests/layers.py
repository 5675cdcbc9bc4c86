#!/usr/bin/env python3
"""The layer rules of toolgen/ (docs/architecture.md), checked from the #include lines.

Usage: layers.py [--root DIR]   (default: the toolgen/ folder beside this script's tests/)

Prints one line per violation, "file:line: what is wrong (the rule)", and exits 1 when there is
any; prints "layers: N files, M includes, ok" and exits 0 otherwise. The rules:

  - every C file sits in a layer folder, toolgen/<layer>/<name>.{c,h}; file names are unique
    across the tree (so a name says where it lives);
  - project includes are path-qualified ("base/buf.h") and name a file that exists;
  - a layer includes only itself and the layers it declares below (LAYERS), never a layer above
    or an undeclared sibling;
  - a header named *_int.h is private to its layer;
  - each external library is included by the one file that wraps it (WRAPPERS);
  - no code changes the process's working directory (chdir, fchdir): toolgen reaches a
    repository through its root fd (model/repo.h), so several can be open in one process. The
    one exception is a forked child setting its own before exec, marked "forked child".
"""
import os
import re
import sys

# layer -> the layers it may include (besides itself). Order: bottom to top.
LAYERS = {
    "base": [],
    "net": ["base"],
    "schema": ["base"],
    "model": ["base", "schema"],
    "engine": ["base", "schema", "model"],
    "emit": ["base", "model"],
    "quality": ["base", "schema"],
    # run/ sends the http runtime's requests itself (rt_http.c): no process runs, so net/, the
    # one HTTP client, is what a call of such a tool uses instead of the sandbox
    "run": ["base", "net", "schema", "model"],
    "stages": ["base", "schema", "model", "engine", "emit", "run", "quality"],
    # the remote cache's client: the Bazel HTTP cache protocol over net/ (docs/cache.md)
    "cache": ["base", "net"],
    "llm": ["base", "net"],
    "gen": ["base", "schema", "model", "run", "quality", "llm"],
    "lifecycle": ["base", "schema", "model"],
    "serve": ["base", "schema", "model", "emit", "run", "lifecycle"],
    # the composition layer: it wires the layers together for a command, so it may use them all
    "app": ["base", "net", "cache", "schema", "model", "engine", "emit", "run", "quality", "stages", "llm",
            "gen", "lifecycle", "serve"],
    "cli": ["base", "schema", "model", "engine", "emit", "run", "gen", "lifecycle", "serve", "app"],
}

# external header -> the only files that may include it
WRAPPERS = {
    # libgit2 is wrapped by the lifecycle/git*.c modules, one per concern (status, reading
    # revisions, commits); nothing else of toolgen sees it.
    "git2.h": {"lifecycle/gitstatus.c", "lifecycle/gitrev.c", "lifecycle/gitcommit.c",
               "lifecycle/gitinit.c"},
    # libcurl and libmicrohttpd are loaded when first needed (dlopen): their headers only in
    # the loaders, whose users call through them (docs/architecture.md)
    "curl/curl.h": {"net/curlload.h"},
    # libxml2's HTML parser: web_fetch's text of a page (docs/web.md#html)
    "libxml/HTMLparser.h": {"base/html.c"},
    "libxml/tree.h": {"base/html.c"},
    "microhttpd.h": {"serve/mhdload.h"},
    # protobuf-c: the REAPI messages protoc-c generated, and the module that uses them
    "protobuf-c/protobuf-c.h": {"cache/reapi.pb-c.h"},
}

# Known violations still to be removed, as "file:target". Empty is the goal; a test fails when
# an entry no longer occurs, so the list only shrinks.
KNOWN = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CHDIR = re.compile(r'\bf?chdir\s*\(')


def check(root):
    problems = []
    files = []
    names = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root)
        for fn in sorted(filenames):
            if not fn.endswith((".c", ".h")):
                continue
            rel = fn if rel_dir == "." else os.path.join(rel_dir, fn)
            parts = rel.split(os.sep)
            if len(parts) != 2:
                problems.append(f"{rel}:1: not in a layer folder (toolgen/<layer>/{fn})")
                continue
            if parts[0] not in LAYERS:
                problems.append(f"{rel}:1: '{parts[0]}' is not a layer (declare it in "
                                f"tests/layers.py and docs/architecture.md)")
                continue
            if fn in names:
                problems.append(f"{rel}:1: file name also used by {names[fn]} (names are unique)")
            names[fn] = rel
            files.append(rel)
    nincludes = 0
    seen_known = set()
    for rel in files:
        layer = rel.split(os.sep)[0]
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                if CHDIR.search(line.split("//")[0]) and "forked child" not in line:
                    problems.append(f"{rel}:{lineno}: changes the working directory: reach the "
                                    f"repository through its root fd instead (model/repo.h)")
                m = INCLUDE.match(line)
                if not m:
                    continue
                nincludes += 1
                kind, target = m.groups()
                if kind == "<":
                    allowed = WRAPPERS.get(target)
                    if allowed is not None and rel not in allowed:
                        problems.append(f"{rel}:{lineno}: includes <{target}>, which only "
                                        f"{', '.join(sorted(allowed))} may (it wraps the library)")
                    continue
                tparts = target.split("/")
                if len(tparts) != 2:
                    problems.append(f"{rel}:{lineno}: \"{target}\" is not path-qualified "
                                    f"(write \"<layer>/{target}\")")
                    continue
                tlayer, tname = tparts
                if tlayer not in LAYERS:
                    problems.append(f"{rel}:{lineno}: \"{target}\": '{tlayer}' is not a layer")
                    continue
                if not os.path.isfile(os.path.join(root, target)):
                    problems.append(f"{rel}:{lineno}: \"{target}\" does not exist")
                    continue
                if tlayer == layer:
                    continue
                if tname.endswith("_int.h"):
                    problems.append(f"{rel}:{lineno}: \"{target}\" is private to {tlayer}/")
                    continue
                if tlayer not in LAYERS[layer] and f"{rel}:{target}" in KNOWN:
                    seen_known.add(f"{rel}:{target}")
                    continue
                if tlayer not in LAYERS[layer]:
                    above = list(LAYERS).index(tlayer) > list(LAYERS).index(layer)
                    what = "points up" if above else "reaches into an undeclared sibling"
                    problems.append(f"{rel}:{lineno}: \"{target}\" {what}: {layer}/ may include "
                                    f"{', '.join(LAYERS[layer]) or 'nothing below it'}")
    for k in sorted(KNOWN - seen_known):
        problems.append(f"{k.split(':')[0]}:1: the known violation {k} is gone: remove it from "
                        f"KNOWN in tests/layers.py")
    return files, nincludes, problems


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "toolgen")
    args = sys.argv[1:]
    if args[:1] == ["--root"] and len(args) == 2:
        root = args[1]
    elif args:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    files, nincludes, problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} violation(s) in {len(files)} files")
        return 1
    print(f"layers: {len(files)} files, {nincludes} includes, ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
