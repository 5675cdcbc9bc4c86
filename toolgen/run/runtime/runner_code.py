"""toolgen's code runner: runs a call's `code` argument as a Python program (docs/code.md).

It runs inside the sandbox as `python3 runner_code.py` and talks to toolgen as runner.py does,
over two inherited descriptors the program's own output never touches:

  fd 4  the request (read once): {"code", "packages", "allowed", "workingDir"}
  fd 3  the reply (written once, at the end):
        {"ok": true} when the program ended with status 0;
        {"ok": false, "error": {...}} when it raised (the exception as runner.py describes it,
        plus "line", the program's line) or its packages were refused before it ran;
        {"ok": false} when it exited with another status (sys.exit(n));
        with "imports" (the slow-to-import modules it loaded) and, after an import failed or
        packages were refused, "available" (the allowed packages this interpreter can import).

The process exits with the program's status, as `python3 program.py` would: 0, n for
sys.exit(n), 1 after an uncaught exception, whose traceback goes to stderr as Python prints it.
toolgen reads the return code from the exit status and the failure from the reply, never from
what the program printed.

Compiling and executing the call's source is this runner's purpose; the kernel sandbox around
the process is the isolation (docs/sandbox.md), exactly as for a tool's code.
"""

import json
import os
import sys

import runner  # describe_exception, add_traceback, open_channels: one description of errors

PROGRAM = "<code>"  # the program's file name in tracebacks (its lines are in linecache)

# pip's names of distributions whose import name differs; other names import as written
# (with '-' as '_').
IMPORT_NAMES = {
    "beautifulsoup4": "bs4", "scikit-learn": "sklearn", "pillow": "PIL", "pyyaml": "yaml",
    "python-dateutil": "dateutil", "opencv-python": "cv2", "msgpack-python": "msgpack",
}
# Modules whose first import costs a noticeable share of a call's budget (the resource analysis
# names them as likely causes).
HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "sklearn", "seaborn", "plotly", "bs4",
         "openpyxl", "PIL", "lxml")


def import_name(package):
    name = IMPORT_NAMES.get(package.lower(), package.replace("-", "_"))
    return name.split(".")[0]


def importable(name):
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def in_stdlib(name):
    return name in getattr(sys, "stdlib_module_names", ()) or name in sys.builtin_module_names


def available(allowed):
    """The allowed packages this interpreter can import, in the allowlist's order."""
    return [p for p in allowed if importable(import_name(p))]


def check_packages(wanted, allowed):
    """The refusal of `packages` (an error dict), or None when every one may be used."""
    allowed_names = {p.lower() for p in allowed} | {import_name(p).lower() for p in allowed}
    refused = [p for p in wanted
               if p.lower() not in allowed_names and not in_stdlib(import_name(p))]
    missing = [p for p in wanted if p not in refused and not importable(import_name(p))]
    if not refused and not missing:
        return None
    have = ", ".join(available(allowed)) or "none"
    if refused:
        return runner.fail("packages", "PackageNotAllowed",
                           f"package{'s' * (len(refused) > 1)} not allowed: {', '.join(refused)}; "
                           f"allowed and installed: {have} (and Python's standard library)",
                           packages=refused)["error"]
    return runner.fail("packages", "PackageNotInstalled",
                       f"package{'s' * (len(missing) > 1)} not installed in the sandbox: "
                       f"{', '.join(missing)}; installed and allowed: {have} (and Python's "
                       "standard library); nothing is installed at run time",
                       packages=missing)["error"]


def enter_working_dir(wd):
    """Makes and enters the relative subfolder wd of the work directory (input_schema refuses
    absolute paths and '..'; this is the second check)."""
    if not wd or wd == ".":
        return None
    parts = wd.split("/")
    if wd.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return runner.fail("setup", "InvalidWorkingDir",
                           f"workingDir must be a relative subfolder without '..': {wd!r}")["error"]
    os.makedirs(wd, exist_ok=True)
    os.chdir(wd)
    return None


def exit_status(exc):
    """The status `python3` exits with for an uncaught SystemExit (printing a message code)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def program_line(exc):
    """The line of the program where exc was raised (its innermost frame in the program)."""
    if isinstance(exc, SyntaxError) and exc.filename == PROGRAM:
        return exc.lineno
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == PROGRAM:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def program_traceback(exc):
    """exc's traceback from the program's first frame on (the runner's own are not the
    author's business); None for an error before the program ran (a syntax error)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != PROGRAM:
        tb = tb.tb_next
    return tb


def describe(exc, phase, main, session=False):
    """The reply's error for an uncaught exception, after printing it as Python would."""
    if isinstance(exc, MemoryError):
        if not session:  # a session's variables outlive the program (docs/code.md#sessions)
            main.clear()  # free what the program held before formatting anything
        import gc
        gc.collect()
    line = program_line(exc)
    try:
        import traceback
        traceback.print_exception(type(exc), exc, program_traceback(exc))
    except BaseException:  # noqa: B902 - the reply matters more than the printout
        pass
    err = runner.describe_exception(exc, phase)
    err.pop("code", None)  # a program chooses no toolgen error code
    if type(exc) is ImportError and "cannot import name" in str(exc):
        err.pop("missing_module", None)  # the module is there; the name is not
    if isinstance(exc, SyntaxError) and exc.msg:
        err["message"] = exc.msg  # str() repeats the file and line
    if isinstance(exc, KeyError) and exc.args:
        err["message"] = repr(exc.args[0])  # as Python prints it: KeyError: 'k'
    runner.add_traceback(err, exc)
    if line:
        err["line"] = line
    return err


def finish_program():
    """What the interpreter does after a script's last line: wait for its non-daemon threads,
    run its atexit handlers."""
    if "threading" in sys.modules:
        import threading
        for t in threading.enumerate():
            if t is not threading.main_thread() and not t.daemon:
                t.join()
    import atexit
    atexit._run_exitfuncs()


def run_program(source, main, session=False):
    """Compiles source and runs it as __main__; returns (status, error or None). In a session
    (runner_session.py) main is the session's namespace and the interpreter goes on: its threads
    and atexit handlers are not waited for."""
    import linecache
    linecache.cache[PROGRAM] = (len(source), None, source.splitlines(True), PROGRAM)
    try:
        code = compile(source, PROGRAM, "exec")
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL in the source
        return 1, describe(exc, "compile", main, session)
    try:
        try:
            exec(code, main)
        finally:
            if not session:
                finish_program()
        return 0, None
    except SystemExit as exc:
        return exit_status(exc), None
    except BaseException as exc:  # noqa: B902 - an uncaught exception ends the program
        return 1, describe(exc, "program", main, session)


# ---- list_runtimes / list_available_packages (a request {"describe": ...}) --------------------

IMPORT_TIMEOUT_S = 20  # one package's import in a fresh interpreter, at most
PARALLEL_IMPORTS = 2  # measured at once (the sandbox's machine has few cores)


def node_version(node):
    import subprocess
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def describe_runtimes(request):
    """The interpreters programs run under, their versions and how many packages each has."""
    allowed = request.get("allowed") or {}
    py_have = available([p for p in allowed.get("python") or [] if isinstance(p, str)])
    runtimes = [{"name": "python", "tool": "python_execute",
                 "version": sys.version.split()[0], "executable": sys.executable,
                 "packages": py_have, "sessions": True}]
    node = request.get("node")
    version = node_version(node) if node else None
    if version:
        runtimes.append({"name": "node", "tool": "node_execute", "version": version.lstrip("v"),
                         "executable": node, "packages": [], "sessions": True})
    result = {"runtimes": runtimes, "network": False,
              "notes": "Programs run in a sandbox without network; nothing is installed at run "
                       "time (list_available_packages says what is there)."}
    if request.get("sessions"):
        result["sessions"] = request["sessions"]
    return result


def measure_imports(names):
    """{import name: ms} of importing each in a fresh interpreter, a few at a time."""
    import subprocess
    import time
    probe = "import time\nt = time.perf_counter()\nimport {0}\nprint((time.perf_counter() - t) * 1000)"
    out, pending = {}, list(names)
    while pending:
        batch, pending = pending[:PARALLEL_IMPORTS], pending[PARALLEL_IMPORTS:]
        procs = [(n, subprocess.Popen([sys.executable, "-c", probe.format(n)], text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
                 for n in batch]
        deadline = time.monotonic() + IMPORT_TIMEOUT_S
        for n, proc in procs:
            try:
                text, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
                out[n] = round(float(text.strip().splitlines()[-1]), 1)
            except Exception:  # noqa: B902 - a package that does not import in time has no figure
                proc.kill()
                proc.wait()
    return out


def package_facts(name):
    """Version and summary of an installed distribution (importlib.metadata), when known."""
    from importlib import metadata
    for dist in (name, import_name(name)):
        try:
            md = metadata.metadata(dist)
            return md.get("Version"), (md.get("Summary") or "").strip()
        except Exception:  # noqa: B902 - not a distribution by that name
            continue
    return None, ""


def node_packages(node, names):
    """The allowed npm packages, each with whether Node.js resolves it here, and its version."""
    if not names:
        return []
    import subprocess
    script = ("const out = {}; for (const p of JSON.parse(process.argv[1])) { try { "
              "const j = require.resolve(p + '/package.json'); out[p] = require(j).version || null; "
              "} catch (e) { try { require.resolve(p); out[p] = null; } catch (e2) {} } } "
              "console.log(JSON.stringify(out));")
    found = {}
    try:
        res = subprocess.run([node, "-e", script, json.dumps(names)], capture_output=True,
                             text=True, timeout=IMPORT_TIMEOUT_S)
        found = json.loads(res.stdout or "{}")
    except Exception:  # noqa: B902 - then none is known to be installed
        pass
    return [dict({"name": p, "installed": p in found}, **({"version": found[p]} if p in found else {}))
            for p in names]


def describe_packages(request):
    """Every allowed package: installed or not, its version, what it is for, its import cost."""
    allowed = request.get("allowed") or {}
    py = [p for p in allowed.get("python") or [] if isinstance(p, str)]
    have = [p for p in py if importable(import_name(p))]
    costs = measure_imports([import_name(p) for p in have])
    packages = []
    for p in py:
        entry = {"name": p, "import_name": import_name(p), "installed": p in have}
        if p in have:
            version, summary = package_facts(p)
            entry["version"] = version
            entry["purpose"] = summary
            entry["import_ms"] = costs.get(import_name(p))
        packages.append(entry)
    node = node_packages(request.get("node"), [p for p in allowed.get("node") or []
                                               if isinstance(p, str)])
    return {"python": packages, "node": node,
            "always_available": "Python's standard library (csv, json, statistics, math, "
                                "datetime, re, sqlite3, ...) and Node.js's built-in modules "
                                "(fs, path, crypto, zlib, ...)",
            "notes": "Only installed packages can be named in `packages`; nothing is installed "
                     "at run time. import_ms is a first import in a fresh interpreter on this "
                     "machine; in a session, later imports of it cost nothing."}


# ---- file_system (a request {"fs": {"action", "path", "content"?}, "root", "writable"}) -----

FS_READ_MAX = 1 << 20  # bytes of a file read returns
FS_LIST_MAX = 1000  # entries a list returns


def fs_fail(type_, message, code):
    return {"ok": False, "error": {"phase": "files", "type": type_, "mro": [type_],
                                   "message": message, "code": code}}


def fs_resolve(root, path):
    """The real path of path under root, or None when it leaves root (a '..', an absolute path
    elsewhere, a symlink pointing out)."""
    if path.startswith("/"):
        path = os.path.relpath(path, root) if path.startswith(root + "/") or path == root else "/x/.."
    full = os.path.realpath(os.path.join(root, path))
    return full if full == root or full.startswith(root + "/") else None


def fs_entries(full, root):
    out = []
    with os.scandir(full) as it:
        for e in sorted(it, key=lambda e: e.name):
            if len(out) >= FS_LIST_MAX:
                break
            kind = "dir" if e.is_dir(follow_symlinks=False) else "file" if e.is_file(
                follow_symlinks=False) else "other"
            entry = {"name": e.name, "path": os.path.relpath(e.path, root), "type": kind}
            if kind == "file":
                entry["size"] = e.stat(follow_symlinks=False).st_size
            out.append(entry)
    return out


def file_action(req, root, writable):
    """One file_system action confined to root: read-write when writable (a session's
    directory), except where the data directories are mounted read-only."""
    action, path = req.get("action"), req.get("path") or "."
    full = fs_resolve(root, path)
    where = "the session's working directory" if writable else "the data directories"
    if full is None:
        return fs_fail("PathOutsideRoots", f"{path!r} is outside {where}; use a path relative "
                       "to it, without '..' (list '.' to see what is there)", "FORBIDDEN")
    rel = os.path.relpath(full, root)
    result = {"action": action, "path": rel}
    if action == "exists":
        result["exists"] = os.path.exists(full)
        if result["exists"]:
            result["type"] = "dir" if os.path.isdir(full) else "file"
        return {"ok": True, "result": result}
    if action == "write":
        if not writable:
            return fs_fail("SessionRequired", "writing needs a session's working directory: call "
                           "create_session and pass its session_id (the data directories are "
                           "read-only)", "FORBIDDEN")
        try:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            data = (req.get("content") or "").encode("utf-8")
            with open(full, "wb") as f:
                f.write(data)
        except OSError as e:
            code = "FORBIDDEN" if e.errno in (13, 30) else "INVALID_INPUT"
            return fs_fail("ReadOnly" if e.errno == 30 else type(e).__name__,
                           f"cannot write {rel}: {e.strerror}" + (
                               " (the data directories are read-only; write elsewhere in the "
                               "session's directory)" if e.errno == 30 else ""), code)
        result["size"] = len(data)
        return {"ok": True, "result": result}
    if not os.path.exists(full):
        return fs_fail("FileNotFound", f"no such file or folder: {rel} (list '.' to see what is "
                       f"in {where})", "NOT_FOUND")
    if action == "list":
        if not os.path.isdir(full):
            return fs_fail("NotADirectory", f"{rel} is a file: read it instead", "INVALID_INPUT")
        result["entries"] = fs_entries(full, root)
        result["truncated"] = len(result["entries"]) >= FS_LIST_MAX
        return {"ok": True, "result": result}
    if os.path.isdir(full):
        return fs_fail("IsADirectory", f"{rel} is a folder: list it instead", "INVALID_INPUT")
    with open(full, "rb") as f:
        data = f.read(FS_READ_MAX + 1)
    result["size"] = os.path.getsize(full)
    result["truncated"] = len(data) > FS_READ_MAX
    text = data[:FS_READ_MAX].decode("utf-8", errors="replace")
    if "\x00" in text:
        return fs_fail("BinaryFile", f"{rel} is a binary file ({result['size']} bytes): "
                       "open it in a program (python_execute) instead", "INVALID_INPUT")
    result["content"] = text
    return {"ok": True, "result": result}


def main():
    handle(*runner.open_channels())


def handle(request, reply_fd):
    """One request: a listing, a file action, or a program (runner_warm.py's child calls this
    too, in a pool worker that imported pandas and the like ahead: docs/sandbox.md#the-warm-pool).
    Ends the process with the program's status."""
    before = set(sys.modules)  # a pool worker's preloads were not this program's imports
    if isinstance(request.get("fs"), dict):
        root = request.get("root") or "/work/s"
        os.makedirs(root, exist_ok=True)
        runner.write_reply(file_action(request["fs"], root, False), reply_fd, 0)
    if request.get("describe") in ("runtimes", "packages"):
        what = describe_runtimes if request["describe"] == "runtimes" else describe_packages
        runner.write_reply({"ok": True, "result": what(request)}, reply_fd, 0)
    allowed = [p for p in request.get("allowed") or [] if isinstance(p, str)]
    err = enter_working_dir(request.get("workingDir")) or \
        check_packages([p for p in request.get("packages") or [] if isinstance(p, str)], allowed)
    reply, status = {"ok": False}, 1
    if err is None:
        import builtins
        import types
        module = types.ModuleType("__main__")
        module.__builtins__ = builtins
        sys.modules["__main__"] = module
        sys.argv = [PROGRAM]
        # as `python3 -c`: the working directory first, toolgen's own files not at all
        sys.path[:] = [""] + [p for p in sys.path[1:] if p != os.path.dirname(runner.__file__)]
        status, err = run_program(request.get("code") or "", module.__dict__)
        reply["ok"] = status == 0 and err is None
        reply["imports"] = [m for m in HEAVY if m in sys.modules and m not in before]
    if err is not None:
        reply["error"] = err
        if err.get("phase") == "packages" or err.get("missing_module"):
            reply["available"] = available(allowed)
    runner.write_reply(reply, reply_fd, status)


if __name__ == "__main__":
    main()
