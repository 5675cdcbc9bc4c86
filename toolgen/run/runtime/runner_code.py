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


def describe(exc, phase, main):
    """The reply's error for an uncaught exception, after printing it as Python would."""
    if isinstance(exc, MemoryError):
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


def run_program(source, main):
    """Compiles source and runs it as __main__; returns (status, error or None)."""
    import linecache
    linecache.cache[PROGRAM] = (len(source), None, source.splitlines(True), PROGRAM)
    try:
        code = compile(source, PROGRAM, "exec")
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL in the source
        return 1, describe(exc, "compile", main)
    try:
        try:
            exec(code, main)
        finally:
            finish_program()
        return 0, None
    except SystemExit as exc:
        return exit_status(exc), None
    except BaseException as exc:  # noqa: B902 - an uncaught exception ends the program
        return 1, describe(exc, "program", main)


def main():
    request, reply_fd = runner.open_channels()
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
        reply["imports"] = [m for m in HEAVY if m in sys.modules]
    if err is not None:
        reply["error"] = err
        if err.get("phase") == "packages" or err.get("missing_module"):
            reply["available"] = available(allowed)
    runner.write_reply(reply, reply_fd, status)


if __name__ == "__main__":
    main()
