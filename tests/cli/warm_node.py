#!/usr/bin/python3
"""A Node.js pool worker's runner (`runner.py --warm-node NODE ARG...`, runner_warm.py with
runner_warm.js; docs/sandbox.md#nodejs-programs-in-the-pool) driven by its protocol, as warm.c
speaks it, outside a sandbox: toolgen's end of the socket on fd 4, each call's stdout, stderr,
reply pipe and request memfd passed with SCM_RIGHTS. Prints one JSON object of what happened
(tests/cli/warm_node.sh asserts on it). Every wait is on an event: a line, EOF, an exit.

Usage: warm_node.py RUNTIME_DIR NODE SCENARIO
"""

import json
import os
import socket
import subprocess
import sys
import tempfile

RT, NODE, SCENARIO = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
HANG_S = float(os.environ.get("HANG_S", "300"))


def spawn(argv, at, **kw):
    """argv with the other end of a new socket pair on its fd `at`: (process, our end)."""
    ours, theirs = socket.socketpair()
    fd = theirs.fileno()
    p = subprocess.Popen(argv, pass_fds=(at,), preexec_fn=lambda: os.dup2(fd, at), **kw)
    theirs.close()
    return p, ours


def start(node=NODE):
    """The runner with toolgen's socket end on its fd 4: (process, toolgen's end)."""
    return spawn([sys.executable, "-B", "-s", RT + "/runner.py", "--warm-node", node,
                  "--max-old-space-size=256", RT + "/runner_warm.js"], 4,
                 stderr=subprocess.PIPE)


def line(sock):
    data = b""
    sock.settimeout(HANG_S)
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def read_all(fd):
    out = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            os.close(fd)
            return out.decode()
        out += chunk


def call(sock, code, kill=False, fds=4):
    """One call: (status line, stdout, stderr, reply)."""
    pipes = [os.pipe() for _ in range(3)]
    req = os.memfd_create("request")
    os.write(req, json.dumps({"code": code, "allowed": [], "runner": "code"}).encode())
    os.lseek(req, 0, 0)
    work = tempfile.mkdtemp(dir=os.environ.get("TMP"))
    msg = {"cwd": work + "/c0", "home": work + "/c0", "cpu_s": 30, "memory_mb": 4096,
           "output_kb": 1024, "files": 256, "links": [["in.txt", RT + "/runner.py"]]}
    send = [w for _, w in pipes] + [req]
    socket.send_fds(sock, [(json.dumps(msg) + "\n").encode()], send[:fds])
    for fd in send:
        os.close(fd)
    if kill:  # the program says it runs; then toolgen's kill, as for its wall clock
        first = os.read(pipes[0][0], 100)
        sock.sendall(b'{"kill":true}\n')
        status = line(sock)
        return status, first.decode() + read_all(pipes[0][0]), read_all(pipes[1][0]), \
            read_all(pipes[2][0])
    status = line(sock)
    return status, read_all(pipes[0][0]), read_all(pipes[1][0]), read_all(pipes[2][0])


def main():
    out = {}
    if SCENARIO == "calls":
        p, sock = start()
        out["ready"] = line(sock)
        st, o, e, r = call(sock, "const fs = require('fs');\nglobalThis.leak = 1;\n"
                                 "console.log(process.cwd().endsWith('/c0'),"
                                 " fs.existsSync('in.txt'));\nconsole.error('e');\n"
                                 "let s = 0; for (let i = 0; i < 3e6; i++) s += i;\nmissing();")
        out["first"] = {"status": st["status"], "utime_ok": st["utime"] >= 0, "stdout": o,
                        "stderr": e.splitlines()[:3], "reply": json.loads(r)}
        st, o, e, r = call(sock, "console.log(typeof globalThis.leak)")  # a node started now
        out["second"] = {"status": st["status"], "stdout": o, "reply": json.loads(r)}
        st, o, e, r = call(sock, "console.log('spinning'); while (true) {}", kill=True)
        out["killed"] = {"status": st["status"], "stdout": o}
        sock.close()  # EOF: the runner ends
        out["exit"] = p.wait(HANG_S)
    elif SCENARIO == "eof":
        p, sock = start()
        out["ready"] = line(sock)
        sock.close()
        out["exit"] = p.wait(HANG_S)
    elif SCENARIO == "no-node":
        p, sock = start("/nonexistent/node")
        out["line"] = line(sock)
        out["exit"] = p.wait(HANG_S)
        out["stderr"] = p.stderr.read().decode()
    elif SCENARIO == "no-fds":  # a call message without its descriptors
        p, sock = start()
        out["ready"] = line(sock)
        sock.sendall(b'{"cwd": "/nonexistent"}\n')
        out["line"] = line(sock)
        out["exit"] = p.wait(HANG_S)
    elif SCENARIO == "node-refuses":  # runner_warm.js on its own, given a call it cannot take
        p, ours = spawn([NODE, RT + "/runner_warm.js"], 3)
        out["loaded"] = sorted(line(ours))
        ours.sendall(b'{"cwd": "/tmp", "pid": 1}\n')
        out["line"] = line(ours)
        out["exit"] = p.wait(HANG_S)
    print(json.dumps(out))


main()
