"""Tries to break out of the sandbox or exhaust the host; reports what it saw.

The shell tests (tests/cli/sandbox.sh) check the host afterwards: what this tool reports is only
a hint, the host's state is the proof.
"""

import os
import socket
import subprocess
import sys
import time

SECRET = "sk-test-secret"


def blocked(action, detail):
    return {"action": action, "blocked": True, "detail": str(detail)[:2000]}


def escaped(action, detail):
    return {"action": action, "blocked": False, "detail": str(detail)[:2000]}


def try_write(action, path):
    try:
        with open(path, "w") as f:
            f.write("escaped\n")
    except OSError as e:
        return blocked(action, f"{path}: {e}")
    return escaped(action, f"wrote {path} (inside the sandbox view)")


def try_read(action, path):
    try:
        if os.path.isdir(path):
            return escaped(action, f"listed {path}: {sorted(os.listdir(path))[:20]}")
        with open(path, "rb") as f:
            data = f.read(4096)
    except OSError as e:
        return blocked(action, f"{path}: {e}")
    return escaped(action, data.decode("utf-8", "replace"))


def connect(action, host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect((host, port))
    except OSError as e:
        return blocked(action, f"{host}:{port}: {e}")
    finally:
        s.close()
    return escaped(action, f"connected to {host}:{port}")


def run(action: str, target: str = "") -> dict:
    if action == "tcp_localhost":
        return connect(action, "127.0.0.1", int(target))
    if action == "tcp_outside":
        return connect(action, "1.1.1.1", 80)
    if action == "dns":
        try:
            return escaped(action, socket.getaddrinfo("example.com", 80))
        except OSError as e:
            return blocked(action, e)
    if action in ("write_etc", "write_home", "write_repo", "write_dotdot"):
        return try_write(action, target)
    if action == "write_symlink":
        os.symlink(target, "link_to_host")
        result = try_write(action, "link_to_host")
        with open("ordinary.txt", "w") as f:
            f.write("an ordinary artifact\n")
        return result
    if action in ("read_shadow", "read_home", "read_file"):
        return try_read(action, target)
    if action in ("proc1_environ", "self_environ"):
        path = "/proc/1/environ" if action == "proc1_environ" else "/proc/self/environ"
        data = try_read(action, path)
        seen = data["detail"].replace("\x00", " ") + " " + repr(dict(os.environ))
        return (escaped if SECRET in seen else blocked)(action, seen)
    if action == "fork_bomb":
        children = 0
        try:
            while True:
                pid = os.fork()
                if pid == 0:
                    time.sleep(60)
                    os._exit(0)
                children += 1
                if children > 10000:
                    return escaped(action, f"{children} processes")
        except OSError as e:
            return blocked(action, f"fork failed after {children} children: {e}")
    if action == "memory_bomb":
        hog = []
        while True:
            hog.append(bytearray(32 << 20))
    if action == "cpu_loop":
        while True:
            pass
    if action == "sleep":
        # the event a test waits for before it signals toolgen: the process's name, which the
        # host sees (the call's files are in its own tmpfs, which the host does not)
        with open("/proc/self/comm", "w") as comm:
            comm.write("tg_abuse_sleeps")
        time.sleep(600)
    if action == "stdout_flood":
        chunk = "x" * (1 << 20)
        for _ in range(1024):  # 1 GiB
            sys.stdout.write(chunk)
        return escaped(action, "wrote 1 GiB to stdout")
    if action == "big_file":
        with open("big.bin", "wb") as f:
            for _ in range(64):
                f.write(b"x" * (1 << 20))
        return escaped(action, "wrote 64 MiB")
    if action == "mounts":  # where each mount comes from and where it is: what a tool learns
        with open("/proc/self/mountinfo") as f:
            seen = [line.split()[3:5] for line in f]
        return blocked(action, "; ".join(f"{root} {at}" for root, at in seen
                                         if not at.startswith(("/dev", "/etc"))))
    if action == "deep_fill":  # 140 nested folders, then files at depth 135 until it fails
        for depth in range(140):
            os.mkdir("d")
            os.chdir("d")
            if depth == 135:
                n = 0
                while True:
                    with open(f"f{n}", "wb") as f:
                        f.write(b"x" * (60 << 10))
                    n += 1
        return escaped(action, "140 levels")
    if action == "outlive":
        subprocess.Popen(["setsid", "sleep", target or "31.4159"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
        return blocked(action, "started a detached sleep and a setsid child, returning")
    if action == "nested_unshare":
        results = []
        for argv in (["unshare", "--user", "--map-root-user", "true"], ["unshare", "--net", "true"],
                     ["unshare", "--mount", "true"]):
            p = subprocess.run(argv, capture_output=True, text=True)
            results.append(f"{' '.join(argv)}: exit {p.returncode} {p.stderr.strip()}")
        ok = any("exit 0" in r for r in results)
        return (escaped if ok else blocked)(action, "; ".join(results))
    if action == "tiocsti":
        import fcntl
        import termios
        outcomes = []
        for fd in (0, 1, 2):
            try:
                fcntl.ioctl(fd, termios.TIOCSTI, b"x")
                outcomes.append(f"fd {fd}: injected")
            except OSError as e:
                outcomes.append(f"fd {fd}: {e}")
        try:
            tty = os.open("/dev/tty", os.O_RDWR)
            fcntl.ioctl(tty, termios.TIOCSTI, b"x")
            outcomes.append("/dev/tty: injected")
        except OSError as e:
            outcomes.append(f"/dev/tty: {e}")
        text = "; ".join(outcomes)
        return (escaped if "injected" in text else blocked)(action, text)
    if action == "noop":
        return blocked(action, "nothing tried")
    raise ValueError(f"unknown action {action}")
