#!/usr/bin/env python3
"""Runs a command whose output nobody reads until told, so a test can signal it mid-way.

Usage: hold_output.py DIR -- COMMAND [ARG]...

The command's stdout and stderr go into one pipe shrunk to a single page (4 KiB). Nothing reads
it, so a command that prints more than that (a build prints a line per stage) blocks in write()
part-way through its work and cannot finish. Once it is blocked (the pipe is full and stays so),
DIR/pid holds its process id; the test then does what it wants to the running command (a
signal, a second build against its lock) and creates DIR/release. The output is then drained
into DIR/out and the exit status written to DIR/rc (128 + N when signal N ended it, as sh
reports it). If the command ends before it ever blocks, DIR/finished appears instead of DIR/pid
(the test must fail: its command printed too little to be held).
"""
import fcntl
import os
import struct
import subprocess
import sys
import termios
import time

F_SETPIPE_SZ = 1031
PAGE = 4096


def pending(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def wait_blocked(proc, rfd, size):
    """True once the pipe is (nearly) full and unchanged for 0.3 s; False if proc ended."""
    last, still = -1, 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        n = pending(rfd)
        still = still + 1 if n == last else 0
        last = n
        # a line is far shorter than 256 bytes: with less room than that the next write blocks
        if n >= size - 256 and still >= 6:
            return True
        time.sleep(0.05)
    return False


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: hold_output.py DIR -- COMMAND [ARG]...")
    d, cmd = sys.argv[1], sys.argv[3:]
    rfd, wfd = os.pipe()
    try:
        size = fcntl.fcntl(wfd, F_SETPIPE_SZ, PAGE)
    except OSError:
        size = 65536
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=wfd, stderr=wfd)
    os.close(wfd)
    blocked = wait_blocked(proc, rfd, size)
    marker = os.path.join(d, "pid" if blocked else "finished")
    with open(marker + ".tmp", "w") as f:
        f.write("%d\n" % proc.pid)
    os.rename(marker + ".tmp", marker)
    if blocked:
        release = os.path.join(d, "release")
        deadline = time.monotonic() + 120
        while not os.path.exists(release) and time.monotonic() < deadline:
            time.sleep(0.02)
    with open(os.path.join(d, "out"), "wb") as out:
        while True:
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            out.write(chunk)
    rc = proc.wait()
    with open(os.path.join(d, "rc"), "w") as f:
        f.write("%d\n" % (128 - rc if rc < 0 else rc))


if __name__ == "__main__":
    main()
