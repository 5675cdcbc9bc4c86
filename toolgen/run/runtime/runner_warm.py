"""toolgen's warm Python runner: loads a tool once, then forks one child per call.

`python3 runner.py --warm FILE [MODULE...]` runs as the sandbox's pid 1
(docs/sandbox.md#warm-sandboxes). It imports the tool file FILE (and so its dependencies: pandas
and the like) once -- or, with FILE "-" (a pool worker, which does not know its tool yet), only
the MODULEs of a dependency set -- tells toolgen it is ready, and then serves calls that toolgen
sends over the socket on fd 4, one at a time:

  toolgen -> runner  a message {"cwd", "home", "cpu_s", "memory_mb", "output_kb", "files",
                     "links", "tool_link"?, "tool"?} with four descriptors: the call's stdout,
                     stderr, reply pipe and request (memfd); the child first makes the symlinks
                     of "links" (its path arguments) and points tool_link at its tool's folder
  runner -> toolgen  {"ready": true, "preloaded": bool} once, after the import
                     {"status": wait status, "utime", "stime", "maxrss"} after each call
  toolgen -> runner  {"kill": true}: the call ran out of time (or output, disk): kill it now;
                     one that arrives after the call ended by itself is stale and ignored

Each call runs in a forked child, in its own work subdirectory, with its own rlimits, its own
descriptors and the same runner code as a cold call (runner.run), so a call cannot change what
the next one sees: module globals and the interpreter's state live in the child's copy of the
memory, files go into its own directory, and /tmp and /dev/shm are emptied after each call.
When the tool file fails to import, every child loads it again and reports the error exactly as
a cold call would. EOF on the socket ends the runner (and with it, as pid 1, the sandbox).
"""

import json
import os
import resource
import select
import signal
import socket
import sys

KEEP_IN_TMP = "matplotlib"  # the font cache toolgen provides (docs/sandbox.md#the-runner)


def send(sock, obj):
    sock.sendall(json.dumps(obj).encode("utf-8") + b"\n")


def receive(sock, buf):
    """The next message: (obj, fds), or (None, []) at EOF. buf holds bytes read past it."""
    fds = []
    while b"\n" not in buf[0]:
        data, ancdata, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                n = len(payload) // 4
                fds.extend(int.from_bytes(payload[4 * i:4 * i + 4], sys.byteorder) for i in range(n))
        if not data:
            return None, fds
        buf[0] += data
    line, _, buf[0] = buf[0].partition(b"\n")
    return json.loads(line.decode("utf-8")), fds


def preload_modules(names):
    """A pool worker's dependency set: imported now, so that each call's tool finds them loaded.
    A module that fails here is left for the tool's own import to report."""
    for name in names:
        try:
            __import__(name)
        except BaseException:  # noqa: B902
            pass
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass


def preload(file, runner):
    """Imports the tool once; the module, or None when importing failed (each call then loads it
    again and reports the failure itself)."""
    tool_dir = os.path.dirname(file)
    runner.TOOL_DIR[0] = tool_dir
    if tool_dir not in sys.path:
        sys.path.insert(0, tool_dir)
    try:
        import importlib.util
        spec = importlib.util.spec_from_file_location("tool", file)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        sys.modules["tool"] = module
        spec.loader.exec_module(module)
        return module
    except BaseException:  # noqa: B902 - reported per call, by the child's own load
        sys.modules.pop("tool", None)
        return None
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass


def warm_up():
    """Runs pandas' own first-call paths (CSV parser, group-by, sorting, conversions) once, with
    toolgen's data, not the tool's: pandas imports many modules lazily and fills caches on first
    use, which each forked call would otherwise repeat. Then freezes the heap, so that the
    children's garbage collector does not write to (and so copy) every inherited page."""
    if "pandas" in sys.modules:
        try:
            import io
            pd = sys.modules["pandas"]
            df = pd.read_csv(io.StringIO("a,b,c,d\nx,1,2.5,2020-01-01\ny,2,,2020-01-02\n"))
            df.groupby(["a", "b"], dropna=False).size().reset_index(name="n") \
                .sort_values(["n", "a"], ascending=[False, True]).to_dict("records")
            df.groupby("a")["c"].agg(["mean", "sum", "count"]).reset_index().to_dict("records")
            df.describe(include="all")
            df.isna().sum().to_dict()
            pd.to_datetime(df["d"], errors="coerce")
            pd.to_numeric(df["c"], errors="coerce")
            df.dtypes.astype(str).to_dict()
        except Exception:
            pass
    import gc
    gc.collect()
    gc.freeze()


def child(msg, fds, sock, module, runner):
    """The forked call: its descriptors, directory and limits, then the cold runner's code."""
    out, err, reply, req = fds
    os.setpgid(0, 0)
    sock.close()
    os.dup2(out, 1)
    os.dup2(err, 2)
    for fd in (out, err):
        if fd > 2:
            os.close(fd)
    import fcntl
    reply_fd = fcntl.fcntl(reply, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(reply)
    with os.fdopen(req, "rb") as f:
        request = json.loads(f.read().decode("utf-8"))
    os.makedirs(msg["cwd"], exist_ok=True)
    os.chdir(msg["cwd"])
    if msg.get("tool_link"):
        os.symlink(msg["tool"], msg["tool_link"])
    for link, target in msg.get("links", []):
        parent = os.path.dirname(link)
        if parent:
            os.makedirs(parent, exist_ok=True)
        os.symlink(target, link)
    os.environ["HOME"] = msg["home"]
    cpu, mem = msg["cpu_s"], msg["memory_mb"] << 20
    for what, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (mem, mem)),
                        (resource.RLIMIT_FSIZE, (msg["output_kb"] << 10,) * 2),
                        (resource.RLIMIT_NOFILE, (msg["files"],) * 2)):
        resource.setrlimit(what, value)
    # The child starts as a fresh process would: default signal dispositions as set by Python.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    runner.write_reply(runner.run(request, module), reply_fd)


def empty_dir(path, keep=()):
    """Removes what a call left in a shared scratch directory (/tmp, /dev/shm)."""
    import shutil
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        if name in keep:
            continue
        full = os.path.join(path, name)
        try:
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full, ignore_errors=True)
            else:
                os.unlink(full)
        except OSError:
            pass


def supervise(sock, buf, pid):
    """Waits for the call's child, killing its process group when toolgen says so; returns
    (status, rusage), or None when toolgen went away."""
    pidfd = os.pidfd_open(pid)
    try:
        while True:
            ready, _, _ = select.select([sock, pidfd], [], [])
            if pidfd in ready:
                break
            msg, extra = receive(sock, buf)
            for fd in extra:
                os.close(fd)
            if msg is None or msg.get("kill"):
                for target in (-pid, pid):
                    try:
                        os.kill(target, signal.SIGKILL)
                    except OSError:
                        pass
            if msg is None:
                return None
    finally:
        os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    try:  # what the call started and left behind goes with it
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    return status, usage


def reap_orphans():
    """As pid 1, the runner inherits what calls left behind: reap it."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(file, runner, modules=()):
    sock = socket.socket(fileno=4)
    if file == "-":
        preload_modules(modules)
        module = None
    else:
        module = preload(file, runner)
    warm_up()
    send(sock, {"ready": True, "preloaded": module is not None})
    buf = [b""]
    while True:
        msg, fds = receive(sock, buf)
        if msg is None:
            os._exit(0)
        if msg.get("kill") and not fds:
            continue  # sent as the call ended on its own (toolgen had not read its status yet)
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            os._exit(2)
        pid = os.fork()
        if pid == 0:
            try:
                child(msg, fds, sock, module, runner)
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        done = supervise(sock, buf, pid)
        if done is None:
            os._exit(0)
        status, usage = done
        send(sock, {"status": status, "utime": usage.ru_utime, "stime": usage.ru_stime,
                    "maxrss": usage.ru_maxrss})
        # before the next message is read, so the next call never sees what this one left
        empty_dir("/tmp", (KEEP_IN_TMP,))
        empty_dir("/dev/shm")
        reap_orphans()
