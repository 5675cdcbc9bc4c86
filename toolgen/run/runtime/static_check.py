#!/usr/bin/python3
"""Static check of a Python tool file (docs/metrics.md#static-check), decided on the parsed code.

Reads on stdin:

    {"code": "<python source>", "file": "tool.py",
     "forbidden_calls": [...], "forbidden_modules": [...], "allowed_imports": [...],
     "restricted_calls": [...]}            # every list optional: toolgen.yaml's defaults

and prints one JSON object:

    {"ok": bool, "file": "tool.py",
     "findings": [{"line", "col", "rule", "message"}, ...],   # violations: ok is false
     "warnings": [{"line", "col", "rule", "message"}, ...]}   # restricted patterns: allowed

Lines and columns are 1-based; columns count characters. Exit status 0 for every checked file
(findings or not), 2 for a request that is not such a JSON object.

The check works on Python's own syntax tree, so a forbidden word inside a string or a comment is
not a violation, while aliases are followed: `import os as o; o.system(...)`, `from subprocess
import run as r`, `getattr(os, "system")`, `__import__("os").system`, `builtins.eval` and
`__builtins__["eval"]` all resolve to the forbidden name. This catches mistakes and obvious
abuse early and explains them; it is NOT a security boundary (Python can always reach a function
by a path no static check foresees, as HumanEval's harness warns). The sandbox is.

Rules: syntax-error, forbidden-call, forbidden-module, import-not-allowed, dunder-access,
dynamic-attribute, dynamic-import (findings); restricted-call (warnings).

Standard library only: this runs inside the sandbox with the system Python.
"""

import ast
import fnmatch
import json
import sys

# The defaults of toolgen.yaml `static_check` (schemas/toolgen.config.schema.json).
DEFAULT_POLICY = {
    "forbidden_calls": ["eval", "exec", "compile", "__import__", "os.system", "os.popen",
                        "pickle.loads", "pickle.load", "marshal.loads", "globals", "breakpoint"],
    "forbidden_modules": ["subprocess", "socket", "urllib", "http", "requests", "ctypes",
                          "multiprocessing", "pickle", "marshal", "shutil", "importlib",
                          "builtins"],
    "allowed_imports": ["pandas", "numpy", "json", "csv", "datetime", "re", "collections",
                        "itertools", "functools", "math", "statistics", "typing", "dataclasses",
                        "decimal", "matplotlib"],
    # Restricted patterns (docs/metrics.md#static-check): allowed, reported so a reviewer sees
    # the file access.
    "restricted_calls": ["open", "io.open", "pandas.read_*", "pathlib.Path"],
}

# Always importable: compiler directives, and the helper module toolgen itself ships next to the
# runner (docs/sandbox.md#the-runner: toolgen_helpers), which is trusted code, not the tool's.
ALWAYS_ALLOWED = frozenset({"__future__", "toolgen_helpers"})

# Attributes that lead from any object to the interpreter's internals: the classic escapes
# `().__class__.__bases__[0].__subclasses__()` and `f.__globals__["__builtins__"]`.
DUNDER_ESCAPES = frozenset({
    "__class__", "__bases__", "__base__", "__mro__", "__subclasses__", "__globals__",
    "__builtins__", "__code__", "__closure__", "__dict__", "__getattribute__", "__import__",
    "__loader__", "__spec__", "__self__", "__func__", "__reduce__", "__reduce_ex__",
    "f_globals", "f_locals", "f_builtins", "f_back", "gi_frame", "cr_frame", "tb_frame",
    "co_code",
})

# Calls that import a module named by a string, out of the import allowlist's sight.
DYNAMIC_IMPORTS = frozenset({"__import__", "importlib.import_module", "importlib.__import__",
                             "importlib.util.module_from_spec", "importlib.reload"})


def under(name, prefix):
    """Whether dotted name is prefix or inside it (`urllib.request` is under `urllib`)."""
    return name == prefix or name.startswith(prefix + ".")


class Source:
    """Positions as toolgen reports them: 1-based lines, 1-based columns in characters."""

    def __init__(self, code):
        self.lines = [line.rstrip("\r") for line in code.split("\n")]

    def col(self, line, byte_offset):
        # ast counts columns in UTF-8 bytes; editors and toolgen count characters.
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1


class Checker(ast.NodeVisitor):
    def __init__(self, policy, source):
        self.p = policy
        self.src = source
        self.aliases = {}    # local name -> the dotted module / object it stands for
        self.roots = {"builtins"}  # top-level modules the file imports
        self.star_modules = []     # `from M import *`: any plain name may come from M
        self.findings, self.warnings = [], []
        self.covered = set()  # inner nodes of a chain already reported through its outer node

    # -- reporting --------------------------------------------------------------------------

    def report(self, out, node, rule, message, at_end_name=None):
        line, offset = node.lineno, node.col_offset
        if at_end_name:  # point at the attribute itself, not at the start of the expression
            line, offset = node.end_lineno, node.end_col_offset - len(at_end_name.encode())
        out.append({"line": line, "col": self.src.col(line, offset), "rule": rule,
                    "message": message})

    def finding(self, node, rule, message, at_end_name=None):
        self.report(self.findings, node, rule, message, at_end_name)

    # -- imports ----------------------------------------------------------------------------

    def collect_aliases(self, tree):
        """All imports of the file, wherever they are: an alias may be used before (in a
        function body) or far from the import."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.roots.add(a.name.split(".")[0])
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                self.roots.add(node.module.split(".")[0])
                for a in node.names:
                    if a.name == "*":
                        self.star_modules.append(node.module)
                    else:
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def check_module(self, node, module):
        if module in ALWAYS_ALLOWED:
            return
        forbidden = next((m for m in self.p["forbidden_modules"] if under(module, m)), None)
        if forbidden:
            self.finding(node, "forbidden-module",
                         f"import of {module} is forbidden (static_check.forbidden_modules "
                         f"lists {forbidden})")
        elif not any(under(module, a) for a in self.p["allowed_imports"]):
            self.finding(node, "import-not-allowed",
                         f"import of {module} is not allowed: a tool may import only "
                         f"{', '.join(self.p['allowed_imports']) or 'nothing'} "
                         "(static_check.allowed_imports)")

    def visit_Import(self, node):
        for a in node.names:
            self.check_module(node, a.name)

    def visit_ImportFrom(self, node):
        if node.level:
            self.finding(node, "import-not-allowed",
                         "relative import: a tool is a single file and may import only "
                         "allowed modules")
            return
        self.check_module(node, node.module)
        for a in node.names:  # `from os import system` takes the forbidden function itself
            name = self.forbidden_call(f"{node.module}.{a.name}")
            if name:
                self.finding(node, "forbidden-call", f"imports {name}, which is forbidden "
                                                     "(static_check.forbidden_calls)")

    # -- names ------------------------------------------------------------------------------

    def resolve(self, node):
        """The dotted name an expression refers to, following import aliases, getattr with a
        constant name, subscripts of __builtins__ and __import__("x"); None when unknown."""
        if isinstance(node, ast.Name):
            if node.id == "__builtins__":
                return "builtins"
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Subscript):
            key = constant_string(node.slice)
            base = self.resolve(node.value)
            return f"{base}.{key}" if key and base == "builtins" else None
        if isinstance(node, ast.Call):
            return self.resolve_call_result(node)
        return None

    def resolve_call_result(self, node):
        func = self.resolve(node.func)
        if func in ("getattr", "builtins.getattr") and len(node.args) >= 2:
            key = constant_string(node.args[1])
            base = self.resolve(node.args[0])
            return f"{base}.{key}" if key and base else None
        if func in DYNAMIC_IMPORTS and node.args:
            return constant_string(node.args[0])  # __import__("os") is the module os
        return None

    def canonical(self, name):
        return name[len("builtins."):] if name.startswith("builtins.") else name

    def is_module_rooted(self, name):
        return name.split(".")[0] in self.roots

    def forbidden_call(self, name):
        """The forbidden_calls entry name refers to, or None. A plain entry (eval) matches only
        the builtin; a dotted one (os.system) also matches when reached through another
        module's attributes (pandas.io.common.os.system)."""
        name = self.canonical(name)
        candidates = [name] + [f"{m}.{name}" for m in self.star_modules if "." not in name]
        for f in self.p["forbidden_calls"]:
            for n in candidates:
                if n == f or ("." in f and n.endswith("." + f) and self.is_module_rooted(n)):
                    return f
        return None

    def forbidden_module_inside(self, name):
        """A forbidden module reached as an attribute of an imported module (x.y.subprocess);
        a module imported directly is reported at its import."""
        if not self.is_module_rooted(name):
            return None
        parts = name.split(".")
        for i in range(1, len(parts)):
            inner = ".".join(parts[i:])
            for m in self.p["forbidden_modules"]:
                if under(inner, m):
                    return m
        return None

    def check_reference(self, node, via=""):
        """A Name / Attribute / getattr(...) that refers to something forbidden, called or not
        (`f = eval` hands eval around just as well)."""
        if node in self.covered:
            return
        name = self.resolve(node)
        if not name:
            return
        hit = self.forbidden_call(name)
        if hit:
            root = chain_root(node)
            aliased = root is not None and root in self.aliases and self.aliases[root] != root
            how = f" (through the alias {root})" if aliased else via
            self.finding(node, "forbidden-call",
                         f"{hit} is forbidden{how} (static_check.forbidden_calls)")
        else:
            module = self.forbidden_module_inside(name)
            if not module:
                return
            self.finding(node, "forbidden-module",
                         f"{name} reaches the forbidden module {module} through another "
                         "module's attributes (static_check.forbidden_modules)")
        self.cover_chain(node)

    def cover_chain(self, node):
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
            self.covered.add(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            if node.id == "__builtins__":
                self.finding(node, "dunder-access", "__builtins__ gives access to every builtin, "
                                                    "eval and __import__ included")
                return
            self.check_reference(node)

    def visit_Attribute(self, node):
        if node.attr in DUNDER_ESCAPES:
            self.finding(node, "dunder-access",
                         f"access to {node.attr} is forbidden: it leads to the interpreter's "
                         "internals (a classic way out of restrictions)", at_end_name=node.attr)
        if isinstance(node.ctx, ast.Load):
            self.check_reference(node)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.ctx, ast.Load) and self.resolve(node):
            self.check_reference(node)
        self.generic_visit(node)

    # -- calls ------------------------------------------------------------------------------

    def visit_Call(self, node):
        func = self.resolve(node.func)
        if func in ("getattr", "builtins.getattr") and len(node.args) >= 2:
            self.check_getattr(node)
        if func and self.canonical(func) in DYNAMIC_IMPORTS and not self.forbidden_call(func) \
                and not self.forbidden_module_inside(func) \
                and not any(under(func, m) for m in self.p["forbidden_modules"]):
            self.finding(node, "dynamic-import",
                         f"{func}() imports a module by name, out of the import allowlist's sight")
        if func:
            self.check_restricted(node, self.canonical(func))
        self.generic_visit(node)

    def check_getattr(self, node):
        key = constant_string(node.args[1])
        target = self.resolve(node.args[0])
        if key is not None:
            if key in DUNDER_ESCAPES:
                self.finding(node, "dunder-access", f"getattr(..., \"{key}\") leads to the "
                                                    "interpreter's internals")
            self.check_reference(node, via=" (through getattr)")
        elif target and self.is_module_rooted(target):
            self.finding(node, "dynamic-attribute",
                         f"getattr on the module {target} with a computed name can reach any of "
                         "its functions; use the attribute by name")

    def check_restricted(self, node, func):
        for pattern in self.p["restricted_calls"]:
            if fnmatch.fnmatchcase(func, pattern):
                self.report(self.warnings, node, "restricted-call",
                            f"{func}() accesses files: allowed, but only the tool's declared "
                            "inputs are readable and only its work directory is writable in "
                            "the sandbox")
                return


def chain_root(node):
    """The name an attribute chain starts from (o in o.path.join), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def constant_string(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def ordered(items):
    """Sorted by place, duplicates (one node reached twice) removed."""
    seen, out = set(), []
    for item in sorted(items, key=lambda f: (f["line"], f["col"], f["rule"], f["message"])):
        key = (item["line"], item["col"], item["rule"], item["message"])
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def check(code, file, policy):
    source = Source(code)
    try:
        tree = ast.parse(code, filename=file)
    except SyntaxError as e:
        line = e.lineno or 1
        return {"ok": False, "file": file, "warnings": [], "findings": [{
            "line": line, "col": e.offset or 1, "rule": "syntax-error",
            "message": f"the code does not parse: {e.msg}"}]}
    except (ValueError, RecursionError, MemoryError) as e:  # NUL bytes, absurd nesting
        return {"ok": False, "file": file, "warnings": [], "findings": [{
            "line": 1, "col": 1, "rule": "syntax-error",
            "message": f"the code does not parse: {e or type(e).__name__}"}]}
    checker = Checker(policy, source)
    checker.collect_aliases(tree)
    checker.visit(tree)
    findings = ordered(checker.findings)
    return {"ok": not findings, "file": file, "findings": findings,
            "warnings": ordered(checker.warnings)}


def read_request(raw):
    """The request, with absent lists taken from DEFAULT_POLICY; raises ValueError."""
    req = json.loads(raw.decode("utf-8"))
    if not isinstance(req, dict) or not isinstance(req.get("code"), str):
        raise ValueError('the request must be a JSON object with "code": "<python source>"')
    policy = {}
    for key, default in DEFAULT_POLICY.items():
        value = req.get(key, default)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f'"{key}" must be a list of strings')
        policy[key] = value
    file = req.get("file", "tool.py")
    if not isinstance(file, str):
        raise ValueError('"file" must be a string')
    return req["code"], file, policy


def main():
    try:
        code, file, policy = read_request(sys.stdin.buffer.read())
    except (ValueError, UnicodeDecodeError) as e:
        json.dump({"ok": False, "error": f"bad request: {e}"}, sys.stdout)
        sys.stdout.write("\n")
        return 2
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))  # deep but legal expressions
    json.dump(check(code, file, policy), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
