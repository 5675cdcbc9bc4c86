"""toolgen's module describer for `toolgen init --from-python MODULE` (docs/cli.md#init-from-python).

Runs inside the sandbox (no network) as `python3 describe_module.py MODULE`, where MODULE is an
importable module name or the path of a .py file. It imports the module, reads each public
function (no leading underscore; defined in the module or listed in its __all__; not a class)
and prints one JSON object on stdout:

  {"module": "textwrap", "import": "textwrap",
   "functions": [{"name", "summary", "details", "params": [{"name", "schema", "required",
                  "positional"}], "returns": schema|null, "wrapped": bool,
                  "examples": [{"name", "source", "input", "output"}], "limitations": [...]}],
   "skipped": ["name: why", ...]}

Schemas come from annotations (int, float, str, bool, None, list[...], dict[str, ...], tuple,
Optional / Union / X | None, Literal) and, for unannotated parameters, from their default.
*args and **kwargs are left out, as are optional parameters whose type has no JSON form (the
function's default is used); a required one makes the function skipped.

Examples: each doctest `>>> f(literal args)` whose expected output is a literal, when calling the
function gives that output; a function without one is called on illustrative arguments made
from its schema, and its answer recorded ("source": "call") when two calls agree. Every call
runs in a forked child with a time limit, so a function that exits, aborts or hangs costs
its example only. Nothing here writes a file.
A bad module exits 2 with a one-line reason on stderr.
"""

import ast
import doctest
import inspect
import json
import os
import signal
import sys
import types
import typing

CALL_SECONDS = 2      # one example call; a slower function gets no computed example
MAX_EXAMPLES = 3      # doctest examples kept per function
MAX_TEXT = 20000      # characters of docstring read
MAX_ANSWER = 16384    # bytes of JSON an example's output may take


class Unrepresentable(Exception):
    """An annotation or value with no JSON Schema / JSON form."""


def fail(message):
    sys.stderr.write(message.replace("\n", " ") + "\n")
    sys.exit(2)


def load(target):
    """The module named (or the file given) and the name tool code imports it by."""
    if target.endswith(".py") or "/" in target:
        folder, base = os.path.split(target)
        name = base[:-3] if base.endswith(".py") else base
        if not name.isidentifier():
            fail(f"{base}: a module file's name must be a Python identifier plus .py")
        sys.path.insert(0, folder or ".")
    else:
        name = target
    try:
        import importlib
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and name.startswith(e.name):
            fail(f"no module named '{name}' for /usr/bin/python3: install its Debian package "
                 f"(apt-get install python3-...), or pass the path of a .py file")
        fail(f"importing {name} failed: {type(e).__name__}: {e}")
    except BaseException as e:  # noqa: B902 - a module's import may raise anything
        fail(f"importing {name} raised {type(e).__name__}: {e}; fix the module (or what it "
             f"imports) so that `python3 -c 'import {name}'` works")
    return module, name


def public_functions(module):
    names = getattr(module, "__all__", None)
    out = []
    for name in sorted(names if isinstance(names, (list, tuple)) else vars(module)):
        if not isinstance(name, str) or name.startswith("_"):
            continue
        obj = getattr(module, name, None)
        if inspect.isclass(obj) or not callable(obj):
            continue
        if not (inspect.isfunction(obj) or inspect.isbuiltin(obj)):
            continue
        if names is None and getattr(obj, "__module__", None) != module.__name__:
            continue  # imported from elsewhere
        out.append((name, obj))
    return out


# ---- annotations -> JSON Schema ---------------------------------------------------------------

SIMPLE = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null"}


def schema_of(ann):
    """The JSON Schema of an annotation; Unrepresentable when it has none."""
    if ann is typing.Any:
        return {}
    if ann in SIMPLE:
        return {"type": SIMPLE[ann]}
    if ann is None:
        return {"type": "null"}
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if ann in (list, tuple, typing.List, typing.Tuple, typing.Sequence):
        return {"type": "array"}
    if ann in (dict, typing.Dict, typing.Mapping):
        return {"type": "object"}
    if origin in (list, typing.Sequence, set, frozenset) or (origin is tuple and len(args) == 2
                                                              and args[1] is Ellipsis):
        if origin in (set, frozenset):
            raise Unrepresentable(f"{ann} (a set has no JSON form)")
        return {"type": "array", "items": schema_of(args[0])} if args else {"type": "array"}
    if origin is tuple:
        items = [schema_of(a) for a in args]
        return {"type": "array", "prefixItems": items, "minItems": len(items),
                "maxItems": len(items)}
    if origin in (dict, typing.Mapping):
        if args and args[0] is not str:
            raise Unrepresentable(f"{ann} (JSON object keys are strings)")
        return {"type": "object", "additionalProperties": schema_of(args[1])} if args else \
            {"type": "object"}
    if origin is typing.Literal:
        if all(isinstance(a, (str, int, float, bool)) or a is None for a in args):
            return {"enum": list(args)}
        raise Unrepresentable(str(ann))
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        parts = [schema_of(a) for a in args]
        if all(list(p) == ["type"] for p in parts):
            return {"type": [p["type"] for p in parts]}
        return {"anyOf": parts}
    raise Unrepresentable(getattr(ann, "__name__", None) or str(ann))


def json_value(v):
    """v as JSON (tuples as lists); Unrepresentable for anything else."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise Unrepresentable("a non-finite number")
        return v
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {k: json_value(x) for k, x in v.items()}
    raise Unrepresentable(type(v).__name__)


def describe_param(p, hints):
    """(property schema, required) of a parameter, or raises Unrepresentable."""
    has_default = p.default is not inspect.Parameter.empty
    ann = hints.get(p.name, p.annotation)
    if ann is not inspect.Parameter.empty:
        schema = dict(schema_of(ann))
    elif has_default and p.default is not None:
        schema = dict(schema_of(type(p.default)))
    elif has_default:
        raise Unrepresentable("not annotated, default None")
    else:
        schema = {"description": "Not annotated in the source: any JSON value is passed on."}
    if has_default:
        schema["default"] = json_value(p.default)
    return schema, not has_default


def split_doc(doc):
    """(first paragraph, the rest) of a docstring without doctests, each paragraph's lines
    joined; at most MAX_TEXT characters are read."""
    paras, cur = [], []
    for line in (doc or "")[:MAX_TEXT].splitlines() + [""]:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paras.append(" ".join(cur))
            cur = []
    return (paras[0] if paras else ""), "\n\n".join(paras[1:])


def prose(doc):
    """The docstring without its doctest examples (source and expected output)."""
    out, skip = [], False
    for line in inspect.cleandoc(doc or "").splitlines():
        s = line.strip()
        if s.startswith((">>>", "...")):
            skip = True
            continue
        if skip and s:
            continue
        skip = False
        out.append(line)
    return "\n".join(out)


# ---- calls ------------------------------------------------------------------------------------

class CallFailed(Exception):
    """A call that raised ("TypeError: ..."), ended its process, took too long, or answered
    something that cannot be an example."""


def on_alarm(signum, frame):
    raise TimeoutError(f"no answer within {CALL_SECONDS} s")


def call_here(fn, positional, keywords):
    """In the forked child: the call's JSON answer or its error, as JSON text."""
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(CALL_SECONDS)
    try:
        res = {"ok": json_value(fn(*positional, **keywords))}
    except Unrepresentable as e:
        res = {"error": f"its answer has no JSON form ({e})"}
    except BaseException as e:  # noqa: B902 - SystemExit too: it is the call's answer
        res = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    signal.alarm(0)
    try:
        return json.dumps(res, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        return json.dumps({"error": f"its answer has no JSON form ({e})"})


def call(fn, params, args):
    """fn called as the drafted tool calls it, in a child process (a function may exit, abort
    or hang: the describer goes on); its JSON result, or raises CallFailed."""
    positional, keywords = [], dict(args)
    for p in params:
        if not p["positional"] or p["name"] not in keywords:
            break
        positional.append(keywords.pop(p["name"]))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        data = call_here(fn, positional, keywords).encode("utf-8", "replace")
        view = memoryview(data)
        while view:
            view = view[os.write(w, view):]
        os._exit(0)
    os.close(w)
    chunks = []
    with os.fdopen(r, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            chunks.append(chunk)
    os.waitpid(pid, 0)
    data = b"".join(chunks)
    if not data:
        raise CallFailed("the call ended the process")
    if len(data) > MAX_ANSWER:
        raise CallFailed(f"its answer is over {MAX_ANSWER // 1024} KB, too long for an example")
    try:  # the first JSON text only: a function that forks leaves two writers
        res, _ = json.JSONDecoder().raw_decode(data.decode("utf-8", "replace"))
    except ValueError:
        raise CallFailed("its answer could not be read") from None
    if not isinstance(res, dict) or "error" in res or "ok" not in res:
        raise CallFailed(res.get("error", "its answer could not be read") if isinstance(res, dict)
                         else "its answer could not be read")
    if "error" in res:
        raise CallFailed(res["error"])
    return res["ok"]


def made_value(schema):
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    t = t[0] if isinstance(t, list) else t
    return {"string": "The quick brown fox jumps over the lazy dog.", "integer": 10,
            "number": 1.5, "boolean": False, "array": [], "object": {},
            "null": None}.get(t, "The quick brown fox jumps over the lazy dog.")


def doctest_examples(fn, name, sig, params, prop_names):
    """Examples from the doctests that call fn with literal arguments and whose expected output
    is a literal the call really gives."""
    out, notes = [], []
    try:
        parsed = doctest.DocTestParser().get_examples(inspect.getdoc(fn) or "")
    except ValueError:
        return out, notes
    for ex in parsed:
        try:
            tree = ast.parse(ex.source.strip(), mode="eval").body
            if not isinstance(tree, ast.Call) or not ex.want.strip():
                continue
            callee = ast.unparse(tree.func)
            if callee != name and not callee.endswith("." + name):
                continue
            pos = [ast.literal_eval(a) for a in tree.args]
            kw = {k.arg: ast.literal_eval(k.value) for k in tree.keywords if k.arg}
            if len(kw) != len(tree.keywords):
                continue
            bound = sig.bind(*pos, **kw)
            want = json_value(ast.literal_eval(ex.want.strip()))
            args = {k: json_value(v) for k, v in bound.arguments.items()}
        except (SyntaxError, ValueError, TypeError, Unrepresentable, RecursionError):
            continue
        if any(k not in prop_names for k in args):
            continue
        try:
            got = call(fn, params, args)
        except CallFailed as e:
            notes.append(f"The doctest `{ex.source.strip()}` failed when toolgen ran it ({e}); "
                         f"it is not an example.")
            continue
        if got != want:
            notes.append(f"The doctest `{ex.source.strip()}` gave {got!r}, not {want!r}, "
                         f"when toolgen ran it; it is not an example.")
            continue
        out.append({"source": "doctest", "call": ex.source.strip(), "input": args,
                    "output": want})
        if len(out) == MAX_EXAMPLES:
            break
    return out, notes


def describe(fn, name):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None, "its signature cannot be read (a builtin without a text signature)"
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: B902 - a bad annotation string: fall back to the raw ones
        hints = {}
    params, notes = [], []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            notes.append(f"{star}{p.name} is not exposed: the tool passes the named parameters "
                         f"only.")
            continue
        try:
            schema, required = describe_param(p, hints)
        except Unrepresentable as e:
            if p.default is inspect.Parameter.empty:
                return None, f"parameter {p.name} has no JSON form ({e})"
            notes.append(f"Parameter {p.name} is not exposed ({e}): the function's default is "
                         f"used.")
            continue
        params.append({"name": p.name, "schema": schema, "required": required,
                       "positional": p.kind == p.POSITIONAL_ONLY})
    untyped = [p["name"] for p in params if "type" not in p["schema"] and
               "enum" not in p["schema"] and "anyOf" not in p["schema"]]
    if untyped:
        notes.append(f"{', '.join(untyped)} {'is' if len(untyped) == 1 else 'are'} not annotated "
                     f"in the source: the schema accepts any JSON value; give a type on review.")
    ret = hints.get("return", sig.return_annotation)
    returns, wrapped = None, True
    if ret is not inspect.Signature.empty:
        try:
            returns = schema_of(ret)
        except Unrepresentable:
            returns = None
        wrapped = not (returns is not None and returns.get("type") == "object")
    summary, details = split_doc(prose(inspect.getdoc(fn) or ""))
    prop_names = {p["name"] for p in params}
    examples, doc_notes = doctest_examples(fn, name, sig, params, prop_names)
    notes += doc_notes
    if not examples:
        args = {p["name"]: made_value(p["schema"]) for p in params if p["required"]}
        try:
            first = call(fn, params, args)
            if call(fn, params, args) != first:
                raise CallFailed("two calls gave different answers, so no output can be "
                                 "checked")
            examples.append({"source": "call", "input": args, "output": first})
        except CallFailed as e:
            notes.append(f"Calling it on illustrative arguments failed ({e}); the example is a "
                         f"placeholder to replace.")
            examples.append({"source": "placeholder", "input": args, "output": None})
    return {"name": name, "summary": summary, "details": details, "params": params,
            "returns": returns, "wrapped": wrapped, "examples": examples,
            "limitations": notes}, None


def main():
    if len(sys.argv) != 2:
        fail("usage: describe_module.py MODULE")
    sys.dont_write_bytecode = True
    # what the module prints, from Python or C, is not the answer: fd 1 becomes stderr
    sys.stdout.flush()
    out_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    module, name = load(sys.argv[1])
    functions, skipped = [], []
    for fname, fn in public_functions(module):
        d, why = describe(fn, fname)
        if d is None:
            skipped.append(f"{fname}: {why}")
        else:
            functions.append(d)
    if not functions:
        fail(f"module {name} has no public function toolgen can expose (" +
             ("; ".join(skipped) if skipped else "none without a leading underscore") +
             "); name a module that defines functions")
    out = {"module": module.__name__, "import": name, "functions": functions,
           "skipped": skipped}
    out_stream.write(json.dumps(out, ensure_ascii=False))  # key order as built: type first
    out_stream.flush()


if __name__ == "__main__":
    main()
