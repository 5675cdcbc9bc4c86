"""toolgen's warm Python runner: loads a tool once, then forks one child per call.

(A command worker's runner is toolgen's own executable, run/cmdrunner.c, which speaks this
protocol too; this runner's command path, exec_call, serves when toolgen cannot be that.)

(`runner.py --warm-node NODE ARG...`, serve_node below, is the runner of a Node.js pool worker of
the code runtime: the same protocol with toolgen, with a node process started ahead as the
call's child instead of a fork: runner_warm.js, docs/sandbox.md#nodejs-programs-in-the-pool.)

`python3 runner.py --warm FILE [MODULE...]` runs as the sandbox's pid 1
(docs/sandbox.md#warm-sandboxes). It imports the tool file FILE (and so its dependencies: pandas
and the like) once -- or, with FILE "-" (a pool worker, which does not know its tool yet), only
the MODULEs of a dependency set -- tells toolgen it is ready, and then serves calls that toolgen
sends over the socket on fd 4, one at a time:

  toolgen -> runner  a message {"cwd", "home", "cpu_s", "memory_mb", "output_kb", "files",
                     "links", "tool_link"?, "tool"?} with four descriptors: the call's stdout,
                     stderr, reply pipe and request (memfd); the child first makes the symlinks
                     of "links" (its path arguments) and points tool_link at its tool's folder
  runner -> toolgen  {"ready": true, "preloaded": bool, "reuse": bool} after the import
                     {"status": wait status, "utime", "stime", "maxrss"} after each call
                     {"ready": ...} again after each call of a worker that serves several
                     ("reuse": its calls are kept apart), once the next call's child is forked
  toolgen -> runner  {"kill": true}: the call ran out of time (or output, disk): kill it now;
                     one that arrives after the call ended by itself is stale and ignored

Each call runs in a forked child, in its own work subdirectory, with its own rlimits, its own
descriptors and the same runner code as a cold call (runner.run), so a call cannot change what
the next one sees: module globals and the interpreter's state live in the child's copy of the
memory, files go into its own directory, and /tmp and /dev/shm are emptied after each call.
When the tool file fails to import, every child loads it again and reports the error exactly as
a cold call would. EOF on the socket ends the runner (and with it, as pid 1, the sandbox).

The call's child is forked AHEAD of the call (docs/sandbox.md#the-warm-pool): right after the
imports, before "ready", the runner forks a child that runs the warm-up again in its own copy of
memory (so the copy-on-write faults a pandas call would take happen now, with toolgen's data)
and then waits on a socket pair; when the call arrives, the runner passes the message and its
four descriptors on to that child, which goes on exactly as a freshly forked one would. The
child answers with the CPU it used before the call; the status reports the call's usage
without it. Where the kernel has Landlock (ABI 3), a pool worker serves several calls
("reuse"): each call's child confines itself to its own folder below /work before the call's
code runs, and after each call the runner forks the next call's child (which warms up only
when no call came within IDLE_WARM_S) and says ready again. A pool worker (FILE "-") also
compiles, but does not run, the tool files named by its arguments that start with "/" (the
tools a server offers), and a child whose tool file still has exactly those bytes uses that
code instead of compiling it again.
"""

import json
import os
import resource
import select
import signal
import socket
import sys

KEEP_IN_TMP = "matplotlib"  # the font cache toolgen provides (docs/sandbox.md#the-runner)
HANDOVER_WAIT_S = 30  # a child still warming up when its call arrives: how long to wait for it
IDLE_WARM_S = 0.1  # a reused worker's next child warms up when no call came within this
COMPILE_MAX_BYTES = 1 << 20  # a pool worker compiles at most this much tool source ahead


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


# What the tools of a dependency import beyond its top module when that costs a call much: a
# matplotlib tool draws through pyplot (~130 ms of imports each call would repeat). Imported
# with the dependency, as a cold call's tool would import it; state of no tool.
IMPORTED_WITH = {"matplotlib": ("matplotlib.pyplot",)}


def preload_modules(names):
    """A pool worker's dependency set: imported now, so that each call's tool finds them loaded.
    A module that fails here is left for the tool's own import to report."""
    for name in names:
        for module in (name,) + IMPORTED_WITH.get(name, ()):
            try:
                __import__(module)
            except BaseException:  # noqa: B902
                break
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
    runner.source_only(tool_dir)
    if tool_dir not in sys.path:
        sys.path.insert(0, tool_dir)
    try:
        return runner.tool_module(file)
    except BaseException:  # noqa: B902 - reported per call, by the child's own load
        sys.modules.pop("tool", None)
        return None
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass


def warm_up(chart=True):
    """Runs pandas' own first-call paths (CSV parser, group-by, sorting, conversions) once, with
    toolgen's data, not the tool's: pandas imports many modules lazily and fills caches on first
    use, which each forked call would otherwise repeat — and, with chart, matplotlib's first
    drawing (a waiting child leaves it out: a second drawing costs what a call's does, for few
    pages). Then freezes the heap, so that the children's garbage collector does not write to
    (and so copy) every inherited page."""
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
    if chart and "matplotlib.pyplot" in sys.modules:
        # A chart's first draw loads the font, builds the text layout and the PNG writer (~15 ms
        # of each call's ~80): drawn once here, to memory, and closed (figure numbers restart).
        try:
            import io
            plt = sys.modules["matplotlib.pyplot"]
            fig, ax = plt.subplots()
            ax.bar(["a", "b"], [1, 2])
            ax.set_title("t")
            ax.set_xlabel("x")
            fig.tight_layout()
            fig.savefig(io.BytesIO(), format="png")
            plt.close("all")
        except Exception:
            pass
    import gc
    gc.collect()
    gc.freeze()


def child(msg, fds, module, runner, compiled):
    """The forked call: its descriptors, directory and limits, then the cold runner's code."""
    set_dumpable(True)
    out, err, reply, req = fds
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
    if msg.get("tool_link"):  # replaced: an earlier call of the worker pointed it elsewhere
        fresh = msg["tool_link"] + ".new"
        try:
            os.unlink(fresh)
        except FileNotFoundError:
            pass
        os.symlink(msg["tool"], fresh)
        os.rename(fresh, msg["tool_link"])
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
    if CONFINE[0]:
        confine(msg["cwd"])
    if "exec_argv" in request:  # a command's call: its program in place of this child
        exec_call(request, msg["cwd"])
    # The child starts as a fresh process would: default signal dispositions as set by Python
    # (the runner ignores SIGINT: ignore_interrupts).
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    runner.start_events(reply_fd, request)
    if request.get("runner") == "code":  # a one-shot program of the code runtime (docs/code.md)
        import runner_code
        runner_code.handle(request, reply_fd)
    runner.write_reply(runner.run(request, module, compiled), reply_fd)


# Landlock (docs/sandbox.md#the-warm-pool): a pool worker that serves several calls keeps each
# call's files from the others with it. The system call numbers are the same on every
# architecture; ABI 3 is the first whose rights also cover truncate(2) of a path.
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_ABI_NEEDED = 3
PR_SET_NO_NEW_PRIVS = 38
FS_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)  # execute, write, read,
# truncate, ioctl on devices: what a rule on a file (not a folder) may grant


def landlock_abi():
    """The kernel's Landlock ABI version, 0 when there is none (or no ctypes)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(ctypes.c_long(LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(1))
        return abi if abi > 0 else 0
    except Exception:  # noqa: B902
        return 0


def fs_rights(abi):
    """Every filesystem right the ABI knows: 13 in version 1, refer in 2, truncate in 3, ioctl
    on devices from 5."""
    return (1 << {1: 13, 2: 14, 3: 15, 4: 15}.get(abi, 16)) - 1


def confine(work):
    """Limits this process and everything it starts to its own work folder below /work: the
    rest of /work (the folders of the worker's other calls, their files kept until toolgen has
    read them) can be neither listed, read nor written. Everything outside /work keeps the
    access its mounts give. Fails the call (it must not run unconfined) when the kernel says
    no."""
    import ctypes
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    abi = landlock_abi()
    if abi < LANDLOCK_ABI_NEEDED:
        raise OSError("Landlock ABI %d: this worker cannot keep its calls apart" % abi)
    handled = fs_rights(abi)
    attr = ctypes.create_string_buffer(struct.pack("=Q", handled))
    ruleset = libc.syscall(ctypes.c_long(LANDLOCK_CREATE_RULESET), attr, ctypes.c_size_t(8),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        top = ["/" + name for name in os.listdir("/") if name != "work"]
        for path in top + [work]:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a dangling link (/tool of a worker without a tool)
            try:
                is_dir = os.path.isdir("/proc/self/fd/%d" % fd)
                rights = handled if is_dir else handled & FS_FILE_RIGHTS
                rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd))
                if libc.syscall(ctypes.c_long(LANDLOCK_ADD_RULE), ctypes.c_int(ruleset),
                                ctypes.c_int(1), rule, ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), "landlock_add_rule " + path)
            finally:
                os.close(fd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
                libc.syscall(ctypes.c_long(LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset),
                             ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def exec_call(request, cwd):
    """A command's call (docs/sandbox.md#commands-in-the-pool): its program exec'd in place of
    this child, with the call's environment and folder, and the signal dispositions a fresh
    process has (Python ignores SIGPIPE and SIGXFSZ, this runner SIGINT; an exec keeps what is
    ignored). Never returns."""
    env = dict(os.environ)
    for item in request.get("exec_env", []):
        name, _, value = item.partition("=")
        env[name] = value
    argv = request["exec_argv"]
    try:
        if request.get("exec_cwd"):
            os.chdir(os.path.join(cwd, request["exec_cwd"]))
        for name in ("SIGPIPE", "SIGXFSZ", "SIGINT", "SIGCHLD"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        os.execve(argv[0], argv, env)
    except OSError as e:
        sys.stderr.write("toolgen: cannot run %s: %s\n" % (argv[0], e.strerror))
    os._exit(127)


def compile_tools(files):
    """A pool worker's tool files, compiled (never run) ahead of the call: {real path: (bytes,
    code)}. The code's file name is the one a call loads it by (/tool/...: the call's child
    points /tool at its tool's folder). A file that cannot be read or compiled is left to the
    call, which reports it."""
    done, total = {}, 0
    for path in files:
        parts = path.split("/")
        if len(parts) < 4 or ".." in parts:  # /<tools>/<tool>/<file>
            continue
        try:
            real = os.path.realpath(path)
            with open(real, "rb") as f:
                data = f.read(COMPILE_MAX_BYTES + 1)
            total += len(data)
            if total > COMPILE_MAX_BYTES:
                break
            name = "/tool/" + "/".join(parts[3:])
            done[real] = (data, compile(data, name, "exec", dont_inherit=True))
        except (OSError, SyntaxError, ValueError):
            continue
    return done


def compiled_lookup(table):
    """compiled(file) for runner.run: the code compiled ahead of time from the file's current
    bytes under the name file, or None (another file, or the file changed since)."""
    def lookup(file):
        entry = table.get(os.path.realpath(file))
        if entry is None or entry[1].co_filename != file:
            return None
        try:
            with open(file, "rb") as f:
                data = f.read(len(entry[0]) + 1)
        except OSError:
            return None
        return entry[1] if data == entry[0] else None
    return lookup if table else None


class Waiting:
    """A call's child forked (or a node process started) ahead of the call: it says when it is
    ready for one, waits for it on its end of a socket pair (the runner holds `end`), and tells
    the CPU it had used before the call (a forked child in answer to the call, a node process in
    its first message)."""

    def __init__(self, pid, end):
        self.pid, self.end, self.hello, self.dead = pid, end, None, False

    def ready(self, timeout):
        """Waits until the child is ready for its call (a worker's first call's child after its
        warm-up): its first message, or None (it is gone, or did not say so in time)."""
        if self.hello is None and not self.dead:
            ready, _, _ = select.select([self.end], [], [], timeout)
            self.hello = receive(self.end, [b""])[0] if ready else None
        return self.hello

    def discard(self):
        """Kills the child (it never got a call) and reaps it."""
        self.end.close()
        if not self.dead:
            for target in (-self.pid, self.pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


def waiting_child(sock, parent_end, child_end, module, runner, compiled, idle_s):
    """The forked child until its call arrives (it never returns). The warm-up copies, in this
    copy of the memory, the pages a call would copy on write: before "ready" (idle_s None: a
    worker's first call's child), or — for the next call of a worker that serves several —
    only when no call came within idle_s, so that a call right behind the last one does not
    wait for it."""
    os.setpgid(0, 0)
    sock.close()
    parent_end.close()
    keep = child_end.fileno()  # nothing else of the runner's: the call gets its own descriptors
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)
    if idle_s is None:
        warm_up(chart=False)
    send(child_end, {"ready": True})
    if idle_s is not None and not select.select([child_end], [], [], idle_s)[0]:
        warm_up(chart=False)
    msg, fds = receive(child_end, [b""])
    if msg is None or len(fds) != 4:
        os._exit(0)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    send(child_end, {"utime": usage.ru_utime, "stime": usage.ru_stime})
    child_end.close()
    child(msg, fds, module, runner, compiled)


def prefork(sock, module, runner, compiled, idle_s=None):
    """Forks the next call's child now; a Waiting."""
    parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        try:
            waiting_child(sock, parent_end, child_end, module, runner, compiled, idle_s)
        finally:
            os._exit(70)
    child_end.close()
    try:
        os.setpgid(pid, pid)  # also here: a kill must find the group whichever runs first
    except OSError:
        pass
    return Waiting(pid, parent_end)


def hand_over(waiting, msg, fds):
    """Gives the call to the waiting child: the CPU it had used before (its answer), or None
    (it is gone; the caller forks a fresh child)."""
    if waiting.ready(HANDOVER_WAIT_S) is not None:
        try:
            socket.send_fds(waiting.end, [json.dumps(msg).encode("utf-8") + b"\n"], fds)
            answered = select.select([waiting.end], [], [], HANDOVER_WAIT_S)[0]
            base = receive(waiting.end, [b""])[0] if answered else None
            if base is not None:
                waiting.end.close()
                return (float(base.get("utime", 0)), float(base.get("stime", 0)))
        except OSError:
            pass
    waiting.discard()
    return None


def fork_call(sock, msg, fds, module, runner, compiled):
    """A child forked when the call arrived (no waiting child): its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            sock.close()
            child(msg, fds, module, runner, compiled)
        finally:
            os._exit(70)
    return pid


def snapshot_kept():
    """What a worker keeps in /tmp between calls (toolgen's matplotlib font cache): {file name:
    bytes} of the regular files of /tmp/matplotlib when the worker started."""
    folder = os.path.join("/tmp", KEEP_IN_TMP)
    kept = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return kept
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                kept[name] = f.read()
    return kept


def restore_kept(kept):
    """Makes /tmp/matplotlib exactly what it was when the worker started (kept): a call may
    write there (the folder and the font cache are its user's), and the next call of a worker
    that serves several must not read what it wrote."""
    import shutil
    folder = os.path.join("/tmp", KEEP_IN_TMP)
    if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
        os.unlink(folder)
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o755)
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name in kept and os.path.isfile(path) and not os.path.islink(path):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    for name, data in kept.items():
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            same = f.read() == data
        if not same:
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        os.chmod(path, 0o644)


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


def only(path, keep=None):
    """Whether the folder path holds nothing but keep (a call may have made a folder of its own
    there unreadable, which empty_dir cannot remove)."""
    try:
        return all(name == keep for name in os.listdir(path))
    except OSError:
        return False


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


def reap_orphans(waiting):
    """As pid 1, the runner inherits what calls left behind: reap it (noting when the waiting
    child is among the dead)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if waiting is not None and pid == waiting.pid:
            waiting.dead = True


def end_leftovers(waiting):
    """Kills and reaps every process a call left behind, so that the next call starts alone: a
    process that made itself a session leader (setsid) escapes the kill of the call's process
    group. Only as the sandbox's pid 1, where kill(-1) reaches every other process of the
    sandbox and none outside it; otherwise only the dead are reaped."""
    if os.getpid() != 1:
        reap_orphans(waiting)
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:  # they are all dying: wait for each, so none is seen by the next call
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


PRCTL = []  # libc's prctl, once loaded
CONFINE = [False]  # a pool worker whose calls are kept apart by Landlock: it may serve several
PR_SET_DUMPABLE = 4


def set_dumpable(on):
    if PRCTL:
        PRCTL[0](PR_SET_DUMPABLE, 1 if on else 0, 0, 0, 0)


def forbid_inspection():
    """Makes the runner non-dumpable: a call runs as the same user as the runner, and could
    otherwise open /proc/1/mem and rewrite the interpreter that the next call is forked from
    (docs/sandbox.md#warm-sandboxes). A call's child makes itself dumpable again (child()): a
    non-dumpable process cannot even read its own /proc/self/environ, which libraries do."""
    try:
        import ctypes
        PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        set_dumpable(False)
    except Exception:  # noqa: B902 - without ctypes the sandbox's other walls still hold
        pass


def ignore_interrupts():
    """The runner ignores SIGINT: Python's default handler would raise KeyboardInterrupt in it,
    and a call may signal pid 1 (it cannot send anything else the kernel delivers there, since
    the runner handles nothing else); the runner would end, and toolgen would run the call again,
    cold. A call's child restores the handler, a node started ahead the default."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def serve(file, runner, modules=()):
    forbid_inspection()
    ignore_interrupts()
    sock = socket.socket(fileno=4)
    pool_worker = file == "-"
    compiled = None
    if pool_worker:
        preload_modules(m for m in modules if not m.startswith("/"))
        module = None
    else:
        module = preload(file, runner)
    warm_up()
    if pool_worker:
        compiled = compiled_lookup(compile_tools(m for m in modules if m.startswith("/")))
    # A pool worker's next call's child is forked and warmed up before "ready" (and again after
    # each call, when the worker may serve several: CONFINE). A warm sandbox of the test stage
    # forks each case's child when the case arrives: forking (and warming up) the next case's
    # child while a case runs costs more CPU than it saves (docs/benchmarks.md, "The test
    # stage: warm sandboxes").
    CONFINE[0] = pool_worker and landlock_abi() >= LANDLOCK_ABI_NEEDED
    kept = snapshot_kept() if CONFINE[0] else None
    waiting = [prefork(sock, module, runner, compiled) if pool_worker else None]
    if waiting[0] is not None:
        waiting[0].ready(HANDOVER_WAIT_S)
    send(sock, {"ready": True, "preloaded": module is not None, "reuse": CONFINE[0]})

    def start_call(msg, fds):
        ahead, waiting[0] = waiting[0], None
        base = hand_over(ahead, msg, fds) if ahead is not None else None
        pid = ahead.pid if base is not None else fork_call(sock, msg, fds, module, runner,
                                                           compiled)
        return pid, base or (0.0, 0.0)

    def after_call():
        if CONFINE[0]:  # the next call's child, forked from the runner as the first one was
            if os.getpid() == 1 and not (only("/tmp", KEEP_IN_TMP) and only("/dev/shm")):
                os._exit(0)  # what the call left cannot be removed: the next call gets a new worker
            restore_kept(kept)
            waiting[0] = prefork(sock, module, runner, compiled, IDLE_WARM_S)
            waiting[0].ready(HANDOVER_WAIT_S)
            send(sock, {"ready": True, "preloaded": module is not None, "reuse": True})
    serve_calls(sock, start_call, after_call)


def serve_calls(sock, start_call, after_call=None):
    """Runs toolgen's calls one at a time until EOF: start_call(msg, fds) starts the call's
    child and returns (pid, (utime, stime) it used before the call); the runner then supervises
    it and reports its status (the module docstring has the protocol); after_call(), when given,
    runs once the call's leftovers are gone, before the next message is read."""
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
        pid, base = start_call(msg, fds)
        for fd in fds:
            os.close(fd)
        done = supervise(sock, buf, pid)
        if done is None:
            os._exit(0)
        status, usage = done
        # before the status: toolgen lists the call's files once it has it, and a process the
        # call detached must not write there afterwards
        end_leftovers(None)
        send(sock, {"status": status, "utime": max(0.0, usage.ru_utime - base[0]),
                    "stime": max(0.0, usage.ru_stime - base[1]), "maxrss": usage.ru_maxrss})
        # before the next message is read, so the next call never sees what this one left;
        # only as the sandbox's pid 1, whose /tmp is its own (never a host's: a runner run
        # outside a sandbox, as tests/cli/warm_node.sh does, must not empty the host's /tmp)
        if os.getpid() == 1:
            empty_dir("/tmp", (KEEP_IN_TMP,))
            empty_dir("/dev/shm")
        if after_call is not None:
            after_call()


# ---- Node.js: a node process started ahead instead of a forked child ---------------------------

def start_node(argv):
    """Starts `argv` (node runner_warm.js) with a socket pair's end on its fd 3: a Waiting."""
    parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            sock_fd = child_end.fileno()
            if sock_fd != 3:
                os.dup2(sock_fd, 3)
            os.set_inheritable(3, True)
            os.closerange(4, 1 << 16)
            # what Python ignores, a fresh node (a cold call's) does not: as subprocess resets
            for name in ("SIGPIPE", "SIGXFSZ", "SIGXFZ", "SIGINT"):
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            os.execv(argv[0], argv)
        finally:
            os._exit(70)
    child_end.close()
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    return Waiting(pid, parent_end)


def node_limits(pid, msg):
    """The call's rlimits on the node process, as child() sets its own (prlimit: node cannot)."""
    cpu, mem = msg["cpu_s"], msg["memory_mb"] << 20
    for what, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (mem, mem)),
                        (resource.RLIMIT_FSIZE, (msg["output_kb"] << 10,) * 2),
                        (resource.RLIMIT_NOFILE, (msg["files"],) * 2)):
        resource.prlimit(pid, what, value)


def node_hand_over(waiting, msg, fds):
    """Gives the call to the node process started ahead: it opens the call's four descriptors
    again through /proc/<this pid>/fd, for which this runner is dumpable until it says it has
    them (only toolgen's runner code runs there until "go"); then the call's rlimits, and "go".
    The CPU the process used before, or None: it could not take the call."""
    hello = waiting.ready(HANDOVER_WAIT_S)
    if hello is None:
        return None
    base = (float(hello.get("utime", 0)), float(hello.get("stime", 0)))
    buf = [b""]
    reply = None
    set_dumpable(True)
    try:
        send(waiting.end, dict(msg, pid=os.getpid(), fds=list(fds)))
        ready, _, _ = select.select([waiting.end], [], [], HANDOVER_WAIT_S)
        reply = receive(waiting.end, buf)[0] if ready else None
    except OSError:
        reply = None
    finally:
        set_dumpable(False)
    if not reply or not reply.get("taken"):
        return None
    try:
        node_limits(waiting.pid, msg)
        send(waiting.end, {"go": True})
    except OSError:
        return None
    waiting.end.close()
    return base


def serve_node(argv):
    """`runner.py --warm-node NODE ARG...`: a pool worker of the code runtime's one-shot Node.js
    programs (docs/sandbox.md#the-warm-pool). Node.js cannot fork; so this runner, as pid 1,
    speaks toolgen's protocol as serve() does, and the call's child is a node process started
    ahead with runner_warm.js (which has loaded runner_code.js). A process that cannot take its
    call ends the runner: toolgen then runs the call cold (warm.h), the program not started."""
    forbid_inspection()
    ignore_interrupts()
    sock = socket.socket(fileno=4)
    waiting = [start_node(argv)]
    if waiting[0].ready(HANDOVER_WAIT_S) is None:
        sys.stderr.write("runner_warm: node did not start (%s)\n" % " ".join(argv))
        os._exit(3)
    send(sock, {"ready": True, "preloaded": False})

    def start_call(msg, fds):
        ahead, waiting[0] = waiting[0], None
        if ahead is None:  # a further call of the same sandbox: a node started now
            ahead = start_node(argv)
        base = node_hand_over(ahead, msg, fds)
        if base is None:
            ahead.discard()
            os._exit(70)
        return ahead.pid, base
    serve_calls(sock, start_call)
