"""toolgen's session runner: one persistent interpreter per code session (docs/code.md#sessions).

`python3 runner_session.py INTERPRETER...` runs as a warm sandbox's runner (run/warm.h) and
speaks its protocol with toolgen over the socket on fd 4 (runner_warm.py describes it): a
{"ready"} line once, then per call a message with four descriptors (the call's stdout, stderr,
reply pipe and request memfd), answered by {"status", "utime", "stime", "maxrss"}; a {"kill"}
line stops the call. Unlike runner_warm.py it forks nothing per call: it is a supervisor that
starts the INTERPRETER command once -- `python3 runner_session.py --interp` below, or Node's
runner_session.js -- and hands it each call's request, so that variables, imports and the
working directory's files survive from one call to the next.

Supervisor <-> interpreter: the interpreter's fd 3 is a socket of JSON lines,

  interpreter -> supervisor  {"ready": true} once started;
                             {"done": true, "status": n, "reply": {...}, "utime", "stime",
                             "maxrss"} after each program (usage cumulative, seconds / KiB)
  supervisor -> interpreter  {"request": {...}, "cwd": dir, "cpu_s": n} per call

A request {"fs": {...}} (the files toolset's file_system) is answered by the supervisor itself
(runner_code.file_action on the session's directory), for sessions of either language.

and its stdout and stderr are pipes the supervisor copies into the call's own. The supervisor
writes the reply (code runner's format, runner_code.py) on the call's reply pipe. When toolgen
says kill (wall clock, output cap, disk, cancel), the program is interrupted (SIGINT: Python
raises KeyboardInterrupt in it), and the call ends as usual when it stops within INTERRUPT_S:
the session keeps its state. When it does not stop, or the interpreter dies (a signal,
os._exit, its CPU limit, Node.js on SIGINT), the call ends with the interpreter's wait status
and a new interpreter starts in the same directory: the files stay, the variables are lost,
and the status line says "restarted": true so that toolgen can tell the caller.
"""

import fcntl
import json
import os
import resource
import select
import signal
import socket
import sys

INTERRUPT_S = 1.0  # an interrupted program's time to stop before its interpreter is killed
PENDING_MAX = 256 * 1024  # bytes waiting for toolgen per stream before the interpreter waits
DRAIN_S = 1.0  # after a program ended: how long its last output may take to reach toolgen


def send_line(sock, obj):
    sock.sendall(json.dumps(obj).encode("utf-8") + b"\n")


class Lines:
    """JSON lines from a socket, with the descriptors that came along (SCM_RIGHTS)."""

    def __init__(self, sock):
        self.sock, self.buf, self.fds = sock, b"", []

    def read(self):
        """Reads once; returns False at EOF."""
        data, anc, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                n = len(payload) // 4
                self.fds.extend(int.from_bytes(payload[4 * i:4 * i + 4], sys.byteorder)
                                for i in range(n))
        self.buf += data
        return bool(data)

    def pop(self):
        if b"\n" not in self.buf:
            return None
        line, _, self.buf = self.buf.partition(b"\n")
        try:
            msg = json.loads(line.decode("utf-8"))
        except ValueError:
            return None
        return msg if isinstance(msg, dict) else None


class Interpreter:
    """The session's interpreter process and its three channels."""

    def __init__(self, argv, cwd):
        ours, theirs = socket.socketpair()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.chdir(cwd)
                os.dup2(theirs.fileno(), 3)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                null = os.open("/dev/null", os.O_RDONLY)
                os.dup2(null, 0)
                os.closerange(4, 1024)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        theirs.close()
        os.close(out_w)
        os.close(err_w)
        for fd in (out_r, err_r):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        self.pid, self.ctl, self.lines = pid, ours, Lines(ours)
        self.streams = [out_r, err_r]
        self.base = (0.0, 0.0)  # its cumulative CPU when the current call began
        self.ready = False

    def stop(self):
        """Kills it; its wait status and rusage."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return self.reap()

    def reap(self):
        _, status, usage = os.wait4(self.pid, 0)
        self.ctl.close()
        for fd in self.streams:
            if fd >= 0:
                os.close(fd)
        self.streams = [-1, -1]
        return status, usage


class Call:
    """A call in progress: the descriptors toolgen passed and what waits to be written."""

    def __init__(self, fds):
        self.out, self.err, self.reply, req = fds
        with os.fdopen(req, "rb") as f:
            self.request = json.loads(f.read().decode("utf-8"))
        self.pending = [bytearray(), bytearray()]
        self.dropping = False  # interrupted: what the program still prints is dropped
        for fd in (self.out, self.err):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)

    def flush(self, i):
        fd = (self.out, self.err)[i]
        buf = self.pending[i]
        while buf and fd >= 0:
            try:
                n = os.write(fd, buf)
            except BlockingIOError:
                return
            except OSError:  # toolgen stopped reading (the output cap): drop the rest
                buf.clear()
                return
            del buf[:n]

    def finish(self, reply):
        """Writes the last output (for at most DRAIN_S) and the reply; closes everything."""
        import time
        deadline = time.monotonic() + DRAIN_S
        while any(self.pending) and time.monotonic() < deadline:
            waiting = [fd for fd, b in zip((self.out, self.err), self.pending) if b]
            select.select([], waiting, [], max(0.0, deadline - time.monotonic()))
            for i in range(2):
                self.flush(i)
        if reply is not None:
            data = json.dumps(reply, ensure_ascii=True).encode("ascii")
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.reply, view):]
            except OSError:
                pass
        for fd in (self.out, self.err, self.reply):
            os.close(fd)


class Supervisor:
    def __init__(self, argv):
        self.argv = argv
        self.sock = socket.socket(fileno=4)
        self.toolgen = Lines(self.sock)
        self.cwd = os.getcwd()
        self.interp = None
        self.call = None
        self.restarted = False  # the last call ended the interpreter
        self.interrupt_until = None  # monotonic time: an interrupted program's last moment

    def start(self):
        self.interp = Interpreter(self.argv, self.cwd)
        while not self.interp.ready:
            msg = self.interp.lines.pop()
            if msg is None and not self.interp.lines.read():
                raise SystemExit("toolgen: the session's interpreter did not start")
            self.interp.ready = bool(msg and msg.get("ready"))

    def read_streams(self, drain=False):
        for i, fd in enumerate(self.interp.streams):
            while fd >= 0:
                if self.call is not None and len(self.call.pending[i]) >= PENDING_MAX:
                    break
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if not data:
                    os.close(fd)
                    self.interp.streams[i] = fd = -1
                    break
                if self.call is not None and not self.call.dropping:
                    self.call.pending[i] += data
                    self.call.flush(i)
                if not drain:
                    break

    def end_call(self, status, utime, stime, maxrss, reply):
        self.interrupt_until = None
        self.read_streams(drain=True)
        self.call.finish(reply)
        self.call = None
        send_line(self.sock, {"status": status, "utime": max(0.0, utime),
                              "stime": max(0.0, stime), "maxrss": maxrss,
                              "restarted": self.restarted})

    def interpreter_ended(self, killed):
        """The interpreter died (or was killed): end the call with its status; start another."""
        if not killed:
            self.read_streams(drain=True)  # what it printed before it died
        status, usage = self.interp.stop() if killed else self.interp.reap()
        base = self.interp.base
        self.restarted = True
        if self.call is not None:
            self.end_call(status, usage.ru_utime - base[0], usage.ru_stime - base[1],
                          usage.ru_maxrss, None)
        self.start()

    def interrupt(self):
        """toolgen stopped the call: interrupt the program (Python raises KeyboardInterrupt in
        it, and the session keeps its state), and kill the interpreter after INTERRUPT_S if it
        has not finished by then. From now on the call's output is dropped, not waited for."""
        import time
        self.interrupt_until = time.monotonic() + INTERRUPT_S
        self.call.dropping = True
        self.call.pending = [bytearray(), bytearray()]  # toolgen read what it keeps
        try:
            os.kill(self.interp.pid, signal.SIGINT)
        except ProcessLookupError:
            pass

    def on_interp_message(self, msg):
        if not msg.get("done") or self.call is None:
            return
        base = self.interp.base
        utime, stime = float(msg.get("utime", 0)), float(msg.get("stime", 0))
        self.interp.base = (utime, stime)
        self.restarted = False
        self.end_call((int(msg.get("status", 1)) & 0xFF) << 8, utime - base[0], stime - base[1],
                      int(msg.get("maxrss", 0)), msg.get("reply"))

    def on_toolgen_message(self, msg):
        fds, self.toolgen.fds = self.toolgen.fds, []
        if msg.get("kill"):
            if self.call is not None and self.interrupt_until is None:
                self.interrupt()
            return
        if len(fds) != 4 or self.call is not None:
            for fd in fds:
                os.close(fd)
            return
        self.call = Call(fds)
        if isinstance(self.call.request.get("fs"), dict):
            self.file_action(msg.get("cwd") or "/work")
            return
        send_line(self.interp.ctl, {"request": self.call.request, "cwd": msg.get("cwd"),
                                    "cpu_s": msg.get("cpu_s")})

    def file_action(self, cwd):
        """file_system on the session's directory, answered here for either language (the
        interpreter and its namespace are not involved)."""
        import runner_code
        os.makedirs(cwd, exist_ok=True)
        reply = runner_code.file_action(self.call.request["fs"], os.path.realpath(cwd), True)
        self.restarted = False
        self.end_call(0, 0.0, 0.0, 0, reply)

    def serve(self):
        self.start()
        send_line(self.sock, {"ready": True, "preloaded": True})
        while True:
            want = [self.sock, self.interp.ctl] + [fd for fd in self.interp.streams if fd >= 0]
            writes = []
            if self.call is not None:
                writes = [fd for fd, b in zip((self.call.out, self.call.err), self.call.pending) if b]
            wait = None
            if self.interrupt_until is not None:
                import time
                wait = self.interrupt_until - time.monotonic()
                if wait <= 0:  # the program did not stop when interrupted
                    self.interpreter_ended(killed=True)
                    continue
            readable, writable, _ = select.select(want, writes, [], wait)
            for i, fd in enumerate((self.call.out, self.call.err) if self.call else ()):
                if fd in writable:
                    self.call.flush(i)
            if self.sock in readable:
                if not self.toolgen.read():
                    self.interp.stop()
                    return
                while (msg := self.toolgen.pop()) is not None:
                    self.on_toolgen_message(msg)
            if any(fd in readable for fd in self.interp.streams if fd >= 0):
                self.read_streams()
            if self.interp.ctl in readable:
                alive = self.interp.lines.read()
                while (msg := self.interp.lines.pop()) is not None:
                    self.on_interp_message(msg)
                if not alive:
                    self.interpreter_ended(killed=False)


# ---- the Python interpreter of a session (--interp) ----------------------------------------------


def limit_cpu(cpu_s):
    """This program's CPU budget on top of what the session used so far (RLIMIT_CPU counts the
    process's whole life)."""
    if not isinstance(cpu_s, (int, float)) or cpu_s <= 0:
        return
    u = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    want = int(u.ru_utime + u.ru_stime + cpu_s) + 1
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (want, hard))


def interpret():
    import builtins
    import types

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import runner
    import runner_code

    ctl = socket.socket(fileno=3)
    lines = Lines(ctl)
    module = types.ModuleType("__main__")
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    sys.argv = [runner_code.PROGRAM]
    sys.path[:] = [""] + [p for p in sys.path[1:] if p != os.path.dirname(runner.__file__)]
    send_line(ctl, {"ready": True})
    while True:
        msg = lines.pop()
        if msg is None:
            if not lines.read():
                return
            continue
        request = msg.get("request") or {}
        cwd = msg.get("cwd") or "/work"
        os.makedirs(cwd, exist_ok=True)  # made inside: the sandbox's user owns it
        os.chdir(cwd)
        limit_cpu(msg.get("cpu_s"))
        allowed = [p for p in request.get("allowed") or [] if isinstance(p, str)]
        before = {m for m in runner_code.HEAVY if m in sys.modules}
        err = runner_code.enter_working_dir(request.get("workingDir")) or \
            runner_code.check_packages([p for p in request.get("packages") or []
                                        if isinstance(p, str)], allowed)
        reply, status = {"ok": False}, 1
        code = request.get("code") or ""
        if request.get("preload"):  # create_session's packages, imported now
            code = "".join(f"import {runner_code.import_name(p)}\n"
                           for p in request.get("packages") or [] if isinstance(p, str))
        if err is None:
            status, err = runner_code.run_program(code, module.__dict__, session=True)
            reply["ok"] = status == 0 and err is None
            reply["imports"] = [m for m in runner_code.HEAVY if m in sys.modules and m not in before]
            reply["cached_imports"] = sorted(before)
        if err is not None:
            reply["error"] = err
            if err.get("phase") == "packages" or err.get("missing_module"):
                reply["available"] = runner_code.available(allowed)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        u = resource.getrusage(resource.RUSAGE_SELF)
        c = resource.getrusage(resource.RUSAGE_CHILDREN)
        send_line(ctl, {"done": True, "status": status, "reply": reply,
                        "utime": u.ru_utime + c.ru_utime, "stime": u.ru_stime + c.ru_stime,
                        "maxrss": max(u.ru_maxrss, c.ru_maxrss)})


def main():
    if sys.argv[1:2] == ["--interp"]:
        interpret()
        return
    Supervisor(sys.argv[1:]).serve()


if __name__ == "__main__":
    main()
