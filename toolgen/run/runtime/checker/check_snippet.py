"""toolgen's snippet checker: what a prompt tool's code is held to before it is returned
(docs/code-edit.md#verification).

It is a tool of its own for toolgen's runner: run/rt_llm_check.c calls its entry function
check(language, code, context) through the warm pool when there is one (a forked child of a
sandbox that imported pyflakes ahead: docs/sandbox.md#the-warm-pool), else in a cold sandbox,
and reads {"checks": [{"check", "tool", "outcome", "message"?}, ...]}.

A check is "parse", "lint" or "compile"; its outcome "passed", "failed", "warnings" (lint
findings that do not make the code wrong) or "unavailable" (the checker is not installed: the
code is then not claimed checked). Only a failed check asks the model for a repair.

Nothing here runs the snippet: Python is compiled, never executed; the other checkers only
parse (`node --check`, `cc -fsyntax-only`, `sh -n`, `tsc --noEmit`).
"""

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


def verdict(name, tool, outcome, message=None):
    c = {"check": name, "tool": tool, "outcome": outcome}
    if message:
        c["message"] = message[:MAX_MESSAGE]
    return c


def python_checks(code, context):
    try:
        compile(code, "snippet.py", "exec", dont_inherit=True)
    except SyntaxError as e:
        where = "line %s" % e.lineno if e.lineno else "the snippet"
        return [verdict("parse", "py_compile", "failed", "%s: %s" % (where, e.msg))]
    except ValueError as e:  # a NUL byte
        return [verdict("parse", "py_compile", "failed", str(e))]
    out = [verdict("parse", "py_compile", "passed")]
    try:
        from pyflakes import api, reporter as rep  # Debian: python3-pyflakes; the pool has it
    except ImportError:
        return out + [verdict("lint", "pyflakes", "unavailable", "pyflakes is not installed")]
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
        return out + [verdict("lint", "pyflakes", "failed", msgs)]
    return out + [verdict("lint", "pyflakes", "warnings" if r.found else "passed", msgs or None)]


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
        return verdict(name, tool, "unavailable", "%s is not installed (Debian: %s)" % (argv[0], install))
    ok, text = run_tool([exe] + argv[1:], code, suffix)
    return verdict(name, tool, "passed" if ok else "failed", None if ok else tidy(text))


def tidy(text):
    """The checker's message without what tells the model nothing: node's own stack frames and
    version line, and runs of blank lines."""
    lines = [l for l in text.splitlines()
             if not l.startswith("    at ") and not l.startswith("Node.js v")]
    out = []
    for l in lines:
        if l.strip() or (out and out[-1].strip()):
            out.append(l)
    return "\n".join(out).strip()


def is_module(code):
    return any(line.lstrip().startswith(("import ", "export ")) for line in code.splitlines())


C_ERRORS = ["-Werror=implicit-function-declaration", "-Werror=implicit-int",
            "-Werror=int-conversion", "-Werror=incompatible-pointer-types"]

LANGS = {
    "javascript": lambda c: [external("parse", "node --check", ["node", "--check"], c,
                                      ".mjs" if is_module(c) else ".js", "nodejs")],
    "typescript": lambda c: [external("compile", "tsc --noEmit",
                                      ["tsc", "--noEmit", "--skipLibCheck", "--target", "es2020"],
                                      c, ".ts", "node-typescript")],
    # What C99 forbids and GCC 14 and Clang 16 reject, older compilers only warn of: a call of
    # an undeclared function is an error here whichever cc is installed.
    "c": lambda c: [external("compile", "cc -fsyntax-only", ["cc", "-fsyntax-only"] + C_ERRORS
                             + ["-x", "c"], c, ".c", "gcc")],
    "cpp": lambda c: [external("compile", "c++ -fsyntax-only",
                               ["c++", "-fsyntax-only", "-x", "c++"], c, ".cpp", "g++")],
    "shell": lambda c: [external("parse", "sh -n", ["sh", "-n"], c, ".sh", "dash")],
    "bash": lambda c: [external("parse", "bash -n", ["bash", "-n"], c, ".sh", "bash")],
}


def check(language, code, context=""):
    """The checks of code in language (a canonical name, rt_llm_language)."""
    if language == "python":
        checks = python_checks(code, context or "")
    elif language in LANGS:
        checks = LANGS[language](code)
    else:
        checks = []
    return {"checks": checks}
