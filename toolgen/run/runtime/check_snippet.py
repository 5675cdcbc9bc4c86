"""toolgen's snippet checker: what a prompt tool's code is held to before it is returned
(docs/code-edit.md#verification).

It runs inside the sandbox as `python3 check_snippet.py` and talks to toolgen over two
inherited descriptors, as the other runners do:

  fd 4  the request (read once): {"language", "code", "context"}
  fd 3  the reply (written once): {"ok": true, "checks": [{"check", "tool", "outcome",
        "message"?}, ...]}

A check is "parse", "lint" or "compile"; its outcome "passed", "failed", "warnings" (lint
findings that do not make the code wrong) or "unavailable" (the checker is not installed: the
code is then not claimed checked). Only a failed check asks the model for a repair.

Nothing here runs the snippet: Python is compiled, never executed; the other checkers only
parse (`node --check`, `cc -fsyntax-only`, `sh -n`, `tsc --noEmit`).
"""

import json
import os
import shutil
import subprocess
import sys

# pyflakes findings that make the code wrong rather than untidy (aider's fatal set: undefined
# names, syntax errors, return/yield outside a function, misplaced star imports).
FATAL = ("UndefinedName", "UndefinedLocal", "UndefinedExport", "ReturnOutsideFunction",
         "YieldOutsideFunction", "ContinueOutsideLoop", "BreakOutsideLoop",
         "ImportStarNotPermitted", "DuplicateArgument")
TIMEOUT_S = 15
MAX_MESSAGE = 2000


def check(name, tool, outcome, message=None):
    c = {"check": name, "tool": tool, "outcome": outcome}
    if message:
        c["message"] = message[:MAX_MESSAGE]
    return c


def python_checks(code, context):
    try:
        compile(code, "snippet.py", "exec", dont_inherit=True)
    except SyntaxError as e:
        where = "line %s" % e.lineno if e.lineno else "the snippet"
        return [check("parse", "py_compile", "failed", "%s: %s" % (where, e.msg))]
    except ValueError as e:  # a NUL byte
        return [check("parse", "py_compile", "failed", str(e))]
    out = [check("parse", "py_compile", "passed")]
    try:
        from pyflakes import api, reporter as rep  # Debian: python3-pyflakes
    except ImportError:
        return out + [check("lint", "pyflakes", "unavailable", "pyflakes is not installed")]
    # Names the context defines are not undefined in the snippet: lint both, keep the
    # snippet's findings (the context alone must compile, else the snippet is linted alone).
    prefix = ""
    if context:
        try:
            compile(context, "context.py", "exec", dont_inherit=True)
            prefix = context.rstrip("\n") + "\n"
        except (SyntaxError, ValueError):
            prefix = ""
    offset = prefix.count("\n")

    class Collect(rep.Reporter):
        def __init__(self):
            self.found = []

        def flake(self, m):
            if m.lineno > offset:
                self.found.append((type(m).__name__, m.lineno - offset,
                                   m.message % m.message_args))

        def syntaxError(self, filename, msg, lineno, offset_, text):
            self.found.append(("SyntaxError", (lineno or 0) - offset, msg))

        def unexpectedError(self, filename, msg):
            self.found.append(("Error", 0, msg))

    r = Collect()
    api.check(prefix + code, "snippet.py", r)
    fatal = [f for f in r.found if f[0] in FATAL or f[0] in ("SyntaxError", "Error")]
    msgs = "; ".join("line %d: %s" % (f[1], f[2]) for f in (fatal or r.found))
    if fatal:
        return out + [check("lint", "pyflakes", "failed", msgs)]
    return out + [check("lint", "pyflakes", "warnings" if r.found else "passed", msgs or None)]


def run_tool(argv, source, suffix):
    path = os.path.join(os.getcwd(), "snippet" + suffix)
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    try:
        p = subprocess.run(argv + [path], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, "%s took longer than %d s" % (argv[0], TIMEOUT_S)
    text = (p.stderr or p.stdout or "").replace(path, "snippet" + suffix).strip()
    return p.returncode == 0, text


def external(name, tool, argv, code, suffix, install):
    exe = shutil.which(argv[0])
    if not exe:
        return check(name, tool, "unavailable", "%s is not installed (Debian: %s)" % (argv[0], install))
    ok, text = run_tool([exe] + argv[1:], code, suffix)
    return check(name, tool, "passed" if ok else "failed", None if ok else text)


def is_module(code):
    return any(line.lstrip().startswith(("import ", "export ")) for line in code.splitlines())


LANGS = {
    "javascript": lambda c: [external("parse", "node --check", ["node", "--check"], c,
                                      ".mjs" if is_module(c) else ".js", "nodejs")],
    "typescript": lambda c: [external("compile", "tsc --noEmit",
                                      ["tsc", "--noEmit", "--skipLibCheck", "--target", "es2020"],
                                      c, ".ts", "node-typescript")],
    "c": lambda c: [external("compile", "cc -fsyntax-only", ["cc", "-fsyntax-only", "-x", "c"],
                             c, ".c", "gcc")],
    "cpp": lambda c: [external("compile", "c++ -fsyntax-only",
                               ["c++", "-fsyntax-only", "-x", "c++"], c, ".cpp", "g++")],
    "shell": lambda c: [external("parse", "sh -n", ["sh", "-n"], c, ".sh", "dash")],
    "bash": lambda c: [external("parse", "bash -n", ["bash", "-n"], c, ".sh", "bash")],
}


def main():
    with os.fdopen(4, "rb") as f:
        req = json.loads(f.read().decode("utf-8"))
    lang, code = req.get("language", ""), req.get("code", "")
    if lang == "python":
        checks = python_checks(code, req.get("context") or "")
    elif lang in LANGS:
        checks = LANGS[lang](code)
    else:
        checks = []
    with os.fdopen(3, "w", encoding="utf-8") as out:
        json.dump({"ok": True, "checks": checks}, out)


if __name__ == "__main__":
    main()
