"""toolgen's Python runner: loads one tool file, checks its entry function, calls it once.

It runs inside the sandbox as `python3 runner.py`, before any tool code, and talks to toolgen
over two inherited file descriptors that the tool's own output never touches:

  fd 4  the request (read once, then closed): {"file", "entrypoint", "args", "input_schema"}
  fd 3  the reply (written once, at the end): {"ok": true, "result": {...}}
        or {"ok": false, "error": {"phase", "type", "mro", "message", ...}}
        or {"ok": false, "ask": [{"key", "method", "params", "field"?}, ...]} when the tool
        asked for input (toolgen_helpers.ask, sample, roots: MCP elicitation/create,
        sampling/createMessage and roots/list requests); the request's "answers" hold the
        answers so far, by key
        Before the reply, events the tool reports while it runs (toolgen_helpers.log and
        progress), one JSON object per line: {"event": "log", "level", "logger", "data"} or
        {"event": "progress", "progress", "total", "message"}; the reply itself ends with no
        newline. Events are written only when the request's "client" (toolgen serve's facts
        about its MCP client) allows them, within its "events_max" bytes.

Whatever the tool prints goes to stdout/stderr and is reported separately. toolgen classifies
failures from the reply, the exit status, the signal and the resource usage -- never from the
tool's printed text. This runner is not a security boundary (the tool runs in the same
process and could forge a reply); the sandbox around the process is.

Only the standard library is imported here, so a tool that needs no packages starts fast.
"""

import json
import os
import sys

# A copy of the names in toolgen/base/errcode.c (the runner cannot call toolgen's C code from
# inside the sandbox); tests/unit/test_errcode.c fails when the two differ.
CODES = frozenset((
    "INVALID_INPUT", "NOT_FOUND", "CONFLICT", "UNAUTHORIZED", "FORBIDDEN", "TIMEOUT",
    "RATE_LIMITED", "UPSTREAM_ERROR", "INTERNAL_ERROR",
))
MAX_MESSAGE = 4000
MAX_TRACEBACK = 8000

# The events channel of this call: the reply descriptor and the bytes events may still take.
EVENTS = {"fd": None, "left": 0}
EVENTS_LOCK = None  # a threading.Lock once events are on (tool threads may log at once)


def start_events(reply_fd, request):
    """Turns the events channel on for this call when toolgen serve allows events."""
    client = request.get("client")
    budget = client.get("events_max", 0) if isinstance(client, dict) else 0
    EVENTS["fd"], EVENTS["left"] = reply_fd, budget if isinstance(budget, int) else 0
    if EVENTS["left"] > 0:
        global EVENTS_LOCK
        import threading
        EVENTS_LOCK = threading.Lock()


def emit_event(event):
    """Writes one event line on the reply channel; False when it is off or full (the event is
    dropped: events never cost the call its reply)."""
    if EVENTS_LOCK is None or EVENTS["fd"] is None:
        return False
    try:
        line = json.dumps(event, ensure_ascii=False, allow_nan=False, default=str)
    except (TypeError, ValueError):
        return False
    data = (line + "\n").encode("utf-8", "replace")  # compact JSON holds no raw newline
    with EVENTS_LOCK:
        if len(data) > EVENTS["left"]:
            EVENTS["left"] = 0
            return False
        EVENTS["left"] -= len(data)
        view = memoryview(data)
        while view:
            view = view[os.write(EVENTS["fd"], view):]
    return True


def open_channels():
    """Reads the request from fd 4; moves the reply fd off 3 (close-on-exec) before tool code runs."""
    with os.fdopen(4, "rb") as f:
        request = json.loads(f.read().decode("utf-8"))
    import fcntl
    reply_fd = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(3)
    return request, reply_fd


def type_name(cls):
    mod = getattr(cls, "__module__", "builtins")
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if mod == "builtins" else f"{mod}.{name}"


def clip(text, limit):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 15] + " ...[truncated]"


def describe_exception(exc, phase):
    """Structured facts about an exception: what toolgen's classifier reads."""
    err = {"phase": phase, "type": type_name(type(exc)),
           "mro": [type_name(c) for c in type(exc).__mro__ if c is not object]}
    try:
        message = str(exc)
    except Exception:  # a broken __str__ must not hide the error
        message = repr(exc)
    if isinstance(exc, KeyError) and exc.args:
        err["key"] = clip(exc.args[0], 500)
        message = f"KeyError: {exc.args[0]!r}"
    err["message"] = clip(message, MAX_MESSAGE)
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code in CODES:
        err["code"] = code
    if isinstance(exc, OSError):
        if exc.errno is not None:
            import errno as errno_mod
            err["errno"] = exc.errno
            err["errno_name"] = errno_mod.errorcode.get(exc.errno, "")
        if exc.filename is not None:
            err["filename"] = clip(exc.filename, 1000)
    if isinstance(exc, ImportError) and exc.name:
        err["missing_module"] = exc.name
    if isinstance(exc, SyntaxError):
        err["lineno"] = exc.lineno
        err["offset"] = exc.offset
        if exc.filename:
            err["filename"] = exc.filename
        if exc.text:
            err["text"] = clip(exc.text.strip(), 500)
    return err


def add_traceback(err, exc):
    try:
        import traceback
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=40))
        err["traceback"] = clip(text, MAX_TRACEBACK) if len(text) <= MAX_TRACEBACK else \
            "...[truncated]\n" + text[-MAX_TRACEBACK:]
        where = traceback.extract_tb(exc.__traceback__)
        tool_frames = [f for f in where if f.filename.startswith(TOOL_DIR[0] + "/")]
        if tool_frames:
            err["tool_line"] = tool_frames[-1].lineno
    except Exception:  # e.g. MemoryError while formatting: the facts above are enough
        pass


TOOL_DIR = ["/tool"]


CO_VARARGS, CO_VARKEYWORDS = 0x04, 0x08
POSITIONAL_ONLY, NORMAL, KEYWORD_ONLY, VAR_POSITIONAL, VAR_KEYWORD = range(5)


def parameters(fn):
    """[(name, kind, has_default)] of a function, read from its code object: importing inspect
    costs more than the rest of the runner's start-up. Other callables fall back to inspect."""
    code = getattr(fn, "__code__", None)
    if code is None or not hasattr(code, "co_posonlyargcount"):
        import inspect
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return None
        kinds = {inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY,
                 inspect.Parameter.POSITIONAL_OR_KEYWORD: NORMAL,
                 inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
                 inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
                 inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD}
        return [(p.name, kinds[p.kind], p.default is not p.empty) for p in sig.parameters.values()]
    names = code.co_varnames
    npos, nposonly, nkw = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    first_default = npos - len(defaults)
    out = [(names[i], POSITIONAL_ONLY if i < nposonly else NORMAL, i >= first_default)
           for i in range(npos)]
    i = npos
    if code.co_flags & CO_VARARGS:
        varargs = names[npos + nkw]
    for j in range(nkw):
        name = names[i + j]
        out.append((name, KEYWORD_ONLY, name in kwdefaults))
    if code.co_flags & CO_VARARGS:
        out.append((varargs, VAR_POSITIONAL, False))
    if code.co_flags & CO_VARKEYWORDS:
        out.append((names[npos + nkw + (1 if code.co_flags & CO_VARARGS else 0)], VAR_KEYWORD, False))
    return out


def check_signature(fn, schema, entry):
    """The schema-validation gate: the entry function must accept exactly what input_schema
    allows, by keyword. Returns a list of problems (empty when it fits)."""
    params = parameters(fn)
    if params is None:
        return []  # builtins / C functions: nothing to check
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    props = props if isinstance(props, dict) else {}
    required = set(schema.get("required", [])) if isinstance(schema, dict) else set()
    by_name = {name: (kind, has_default) for name, kind, has_default in params}
    has_kwargs = any(kind == VAR_KEYWORD for _, kind, _ in params)
    problems = []
    for name, kind, has_default in params:
        if kind == POSITIONAL_ONLY:
            problems.append(f"parameter '{name}' is positional-only, but arguments are passed "
                            "by keyword")
        elif kind in (VAR_KEYWORD, VAR_POSITIONAL):
            continue
        elif name not in props:
            problems.append(f"parameter '{name}' is not a property of input_schema "
                            f"(properties: {', '.join(props) or 'none'})")
        elif not has_default and name not in required and \
                not (isinstance(props[name], dict) and "default" in props[name]):
            problems.append(f"parameter '{name}' has no default, but the property is optional "
                            "in input_schema and has no schema default: give it a default")
    for name in props:
        kind, has_default = by_name.get(name, (None, False))
        if kind is None or kind in (VAR_KEYWORD, VAR_POSITIONAL, POSITIONAL_ONLY):
            if kind is None and not has_kwargs:
                problems.append(f"input_schema property '{name}' is not a parameter of "
                                f"{entry}() (add it, or accept **kwargs)")
            continue
        if name in required and has_default:
            problems.append(f"parameter '{name}' has a default, but the property is required "
                            "in input_schema: remove the default (or make it optional)")
    return problems


def jsonable(value, path="", depth=0):
    """The first place where value is not plain JSON, or None."""
    if depth > 200:
        return f"{path or '/'}: nested too deeply"
    if isinstance(value, str):
        return None if "\x00" not in value else \
            f"{path or '/'}: a string holding U+0000 (NUL), which toolgen does not carry"
    if value is None or isinstance(value, (bool, int)):
        return None
    if isinstance(value, float):
        return None if value == value and value not in (float("inf"), float("-inf")) else \
            f"{path or '/'}: {value} is not a JSON number"
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{path or '/'}: key {k!r} is a {type(k).__name__}, not a string"
            if "\x00" in k:
                return f"{path or '/'}: a key holding U+0000 (NUL)"
            bad = jsonable(v, f"{path}/{k}", depth + 1)
            if bad:
                return bad
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            bad = jsonable(v, f"{path}/{i}", depth + 1)
            if bad:
                return bad
        return None
    return f"{path or '/'}: a {type_name(type(value))} is not JSON (convert it, e.g. with int(), " \
           "float(), str() or .tolist())"


def fail(phase, type_, message, **extra):
    err = {"phase": phase, "type": type_, "mro": [type_], "message": message}
    err.update(extra)
    return {"ok": False, "error": err}


# Code runs from the bytes of its source file, never from a bytecode cache: a __pycache__/*.pyc
# whose header matches the source (or an unchecked hash-based one) would otherwise run instead of
# the code that was reviewed and hashed. The tool's folder and toolgen's runtime files are
# imported through SourceOnlyLoader; nothing is written either.
SOURCE_ONLY = set()


def source_only_loader():
    """The loader class that compiles each module from its source bytes (made on first use:
    importlib.machinery is already loaded, this only defines a subclass)."""
    import importlib.machinery

    class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            return self.source_to_code(self.get_data(path), path)
    return SourceOnlyLoader


def source_only(folder):
    """Imports from folder (a sys.path entry) are of .py sources only, compiled from their bytes:
    no bytecode cache, no bare .pyc, no extension module."""
    if not SOURCE_ONLY:
        import importlib.machinery
        finder = importlib.machinery.FileFinder.path_hook(
            (source_only_loader(), importlib.machinery.SOURCE_SUFFIXES))

        def hook(path):
            if path in SOURCE_ONLY:
                return finder(path)
            raise ImportError("not a source-only folder")
        sys.path_hooks.insert(0, hook)
    SOURCE_ONLY.add(folder)
    sys.path_importer_cache.pop(folder, None)


def tool_module(file, compiled=None):
    """A fresh module "tool" for the tool file, executed from its source bytes (or from code
    compiled ahead from the same bytes: compiled)."""
    import importlib.util
    loader = source_only_loader()("tool", file)
    spec = importlib.util.spec_from_file_location("tool", file, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tool"] = module
    if compiled is None:
        loader.exec_module(module)
    else:  # what exec_module does with the code it compiles from the same bytes
        exec(compiled, module.__dict__)
    return module


def main():
    sys.dont_write_bytecode = True
    source_only(os.path.dirname(os.path.abspath(__file__)))  # toolgen's runtime files
    if len(sys.argv) > 2 and sys.argv[1] == "--warm-node":  # a Node.js pool worker
        import runner_warm
        runner_warm.serve_node(sys.argv[2:])
    if len(sys.argv) > 2 and sys.argv[1] == "--warm":
        import runner_warm
        runner_warm.serve(sys.argv[2], sys.modules[__name__], sys.argv[3:])
    request, reply_fd = open_channels()
    TOOL_DIR[0] = os.path.dirname(request["file"])
    start_events(reply_fd, request)
    write_reply(run(request), reply_fd)


def write_reply(reply, reply_fd, status=0):
    """Writes the reply on its descriptor and leaves the process with status."""
    try:
        data = json.dumps(reply, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (e.g. undecodable file names): escape them
        data = json.dumps(reply, ensure_ascii=True, allow_nan=False).encode("ascii")
    except (TypeError, ValueError) as e:  # checked before, but never lose the reply
        data = json.dumps(fail("result", "ResultNotJSON", str(e))).encode("utf-8")
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    view = memoryview(data)
    while view:
        n = os.write(reply_fd, view)
        view = view[n:]
    os.close(reply_fd)
    # Leave now: a tool's leftover non-daemon threads must not keep the call open.
    os._exit(status)


def run(request, preloaded=None, compiled=None):
    """One call: load the tool (unless preloaded holds the module a warm runner loaded), check
    the entry function, call it. Returns the reply. compiled(file) may return the code
    object a warm runner compiled ahead of time from the file's current bytes (or None)."""
    file, entry = request["file"], request["entrypoint"]
    tool_dir = os.path.dirname(file)
    source_only(tool_dir)
    if tool_dir not in sys.path:
        sys.path.insert(0, tool_dir)
    phase = "load"
    try:
        if preloaded is not None:
            return call_loaded(preloaded, request)
        module = tool_module(file, compiled(file) if compiled is not None else None)
        return call_loaded(module, request)
    except BaseException as exc:  # noqa: B902 - everything, SystemExit included, is a reply
        return exception_reply(exc, phase)


def call_loaded(module, request):
    """The entry function of a loaded tool module: checked, called, its result checked."""
    file, entry = request["file"], request["entrypoint"]
    phase = "load"
    try:
        fn = getattr(module, entry, None)
        if fn is None:
            return fail("load", "EntrypointMissing",
                        f"{os.path.basename(file)} defines no function '{entry}'",
                        names=sorted(n for n in vars(module) if not n.startswith("_"))[:50])
        if not callable(fn):
            return fail("load", "EntrypointMissing", f"'{entry}' in {os.path.basename(file)} is "
                        f"a {type(fn).__name__}, not a function")
        phase = "signature"
        problems = check_signature(fn, request.get("input_schema") or {}, entry)
        if problems:
            return fail("signature", "SignatureMismatch",
                        f"{entry}() does not match input_schema: " + "; ".join(problems),
                        problems=problems)
        phase = "call"
        if request.get("answers") or request.get("client") or "toolgen_helpers" in sys.modules:
            import toolgen_helpers  # this call's answers and client only, also when warm
            toolgen_helpers.ANSWERS.clear()
            toolgen_helpers.ANSWERS.update(request.get("answers") or {})
            toolgen_helpers.CLIENT.clear()
            toolgen_helpers.CLIENT.update(request.get("client") or {})
        result = fn(**request.get("args", {}))
        if hasattr(result, "__await__"):  # an async entry function
            import asyncio

            async def wait(aw):
                return await aw
            result = asyncio.run(wait(result))
        phase = "result"
        if not isinstance(result, dict):
            return fail("result", "ResultNotObject",
                        f"{entry}() returned a {type_name(type(result))}; it must return a dict")
        bad = jsonable(result)
        if bad:
            return fail("result", "ResultNotJSON", f"the result is not plain JSON: {bad}")
        return {"ok": True, "result": result}
    except BaseException as exc:  # noqa: B902 - everything, SystemExit included, is a reply
        return exception_reply(exc, phase)


def exception_reply(exc, phase):
    questions = getattr(exc, "toolgen_ask", None) if phase == "call" else None
    if isinstance(questions, list) and jsonable(questions) is None:
        return {"ok": False, "ask": questions}  # toolgen_helpers.ask: the client answers
    if isinstance(exc, MemoryError):
        # Free what the failed call held before formatting anything.
        exc.__traceback__ = None
        import gc
        gc.collect()
    err = describe_exception(exc, phase)
    add_traceback(err, exc)
    return {"ok": False, "error": err}


if __name__ == "__main__":
    sys.modules.setdefault("runner", sys.modules[__name__])
    main()
