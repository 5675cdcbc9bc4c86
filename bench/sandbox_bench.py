#!/usr/bin/python3
"""Per-call latency of tools run as a plain python3 subprocess vs through `toolgen run`.

Driven by bench/sandbox.sh; see docs/benchmarks.md ("Sandbox overhead"). Builds a scratch
repository in BENCH_DIR with two tools — `echo` (a trivial Python tool: returns its argument) and
the repository's `group_and_count_by_columns` (pandas) on a copy of taxis.csv — and times, N
times each, interleaved so that drift hits all variants alike:

  plain         /usr/bin/python3 -c RUNNER tool.py run ARGS: load the module, call, print JSON
  toolgen none  toolgen run TOOL --input ARGS --json with sandbox.isolation: none (toolgen's own
                cost: argument and output validation, runner, rlimits, no namespaces)
  toolgen       toolgen run TOOL --input ARGS --json under bubblewrap (the default)
"""

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLGEN = os.environ.get("TOOLGEN", os.path.join(ROOT, "bin", "toolgen"))
PY = "/usr/bin/python3"
RUNNER = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("tool", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(json.dumps(getattr(m, sys.argv[2])(**json.loads(sys.argv[3]))))
"""

ECHO_PY = '''def run(text: str) -> dict:
    return {"text": text}
'''
ECHO_MANIFEST = '''manifest_version: 1
name: echo
version: 1.0.0
title: Echo
description: Returns its argument.
status: draft
risk: low
idempotency: idempotent
docs:
  when_to_use: Benchmarks.
  what_it_does: Returns text.
  returns: '{"text": ...}'
  prerequisites: None.
input_schema:
  type: object
  additionalProperties: false
  required: [text]
  properties:
    text: {type: string, description: Any text., maxLength: 100}
output_schema:
  type: object
  additionalProperties: false
  required: [text]
  properties:
    text: {type: string, description: The same text.}
examples:
  - name: hello
    input: {text: hello}
    output: {text: hello}
implementation:
  runtime: python
  file: tool.py
  entrypoint: run
  dependencies: []
'''


def make_repo(path, isolation, taxis):
    os.makedirs(os.path.join(path, "data"), exist_ok=True)
    os.makedirs(os.path.join(path, "manifests", "echo"), exist_ok=True)
    with open(os.path.join(path, "toolgen.yaml"), "w") as f:
        f.write(f"config_version: 1\nsandbox:\n  isolation: {isolation}\n  data_dirs: [data/]\n")
    shutil.copy(taxis, os.path.join(path, "data", "taxis.csv"))
    with open(os.path.join(path, "manifests", "echo", "tool.py"), "w") as f:
        f.write(ECHO_PY)
    with open(os.path.join(path, "manifests", "echo", "tool.manifest.yaml"), "w") as f:
        f.write(ECHO_MANIFEST)
    dst = os.path.join(path, "manifests", "group_and_count_by_columns")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "manifests", "group_and_count_by_columns"), dst)
    for dirpath, dirnames, filenames in os.walk(path):  # as root, tools run as another user
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)


# The environment toolgen gives Python tools (one BLAS thread, fixed hash seed), so that the
# plain run does the same work; toolgen's own runs get it from toolgen.
PLAIN_ENV = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg",
                 OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def timed(cmd, cwd, check):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       env=PLAIN_ENV if cmd[0] == PY else None)
    ms = (time.perf_counter() - t) * 1000
    if p.returncode != 0 or not check(p.stdout):
        sys.exit(f"failed: {' '.join(cmd)} (exit {p.returncode})\n{p.stdout[-1000:]}{p.stderr[-2000:]}")
    return ms


def pct(xs, q):
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def main():
    bench_dir = sys.argv[1]
    n = int(sys.argv[2])
    taxis = sys.argv[3]
    bw, none = os.path.join(bench_dir, "bwrap"), os.path.join(bench_dir, "none")
    os.makedirs(bench_dir, exist_ok=True)
    os.chmod(bench_dir, 0o755)
    make_repo(bw, "bwrap", taxis)
    make_repo(none, "none", taxis)
    tools = [
        ("trivial Python tool (echo)", "echo", {"text": "hello"},
         lambda out: '"hello"' in out),
        ("pandas group-by on taxis.csv (6,433 rows)", "group_and_count_by_columns",
         {"file_path": "data/taxis.csv", "group_by_columns": ["pickup_borough", "payment"],
          "include_missing": False, "limit": 100},
         lambda out: "Manhattan" in out),
    ]
    rows = []
    for label, tool, args, check in tools:
        code = os.path.join(bw, "manifests", tool, "tool.py")
        variants = [
            ("plain python3", [PY, "-c", RUNNER, code, "run", json.dumps(args)], bw),
            ("toolgen run, isolation none", [TOOLGEN, "run", tool, "--input", json.dumps(args), "--json"], none),
            ("toolgen run (bubblewrap)", [TOOLGEN, "run", tool, "--input", json.dumps(args), "--json"], bw),
        ]
        times = {v[0]: [] for v in variants}
        for v in variants:  # warm-up: page cache, matplotlib/pandas bytecode
            timed(v[1], v[2], check)
        for i in range(n):
            order = variants if i % 2 == 0 else list(reversed(variants))
            for name, cmd, cwd in order:
                times[name].append(timed(cmd, cwd, check))
        base = statistics.median(times["plain python3"])
        for name, _, _ in variants:
            med = statistics.median(times[name])
            rows.append((label, name, med, pct(times[name], 0.95), med - base, med / base))
    # Where the fixed cost goes: toolgen's own process start, and bubblewrap alone (the same
    # namespaces and a few mounts around /usr/bin/true, as the unprivileged uid toolgen uses
    # when it runs as root).
    uid = 0x70000000 + 4242

    def as_sandbox_user():
        if os.geteuid() == 0:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    def fixed(cmd, preexec=None):
        xs = []
        for _ in range(n):
            t = time.perf_counter()
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=preexec)
            xs.append((time.perf_counter() - t) * 1000)
            if p.returncode:
                sys.exit(f"failed: {' '.join(cmd)}: {p.stderr.decode()[-500:]}")
        return statistics.median(xs), pct(xs, 0.95)

    bwrap = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1",
             "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
             "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64",
             "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
             "--tmpfs", "/tmp", "--remount-ro", "/", "/usr/bin/true"]
    components = [
        ("/usr/bin/true (process start)", fixed(["/usr/bin/true"])),
        ("toolgen --version (toolgen's own start: dynamic linking)", fixed([TOOLGEN, "--version"])),
        ("bwrap with toolgen's namespaces around /usr/bin/true", fixed(bwrap, as_sandbox_user)),
    ]
    print(f"| tool | how | median ms | p95 ms | median - plain | / plain |")
    print(f"| --- | --- | ---: | ---: | ---: | ---: |")
    for label, name, med, p95, diff, ratio in rows:
        print(f"| {label} | {name} | {med:.1f} | {p95:.1f} | {diff:+.1f} | {ratio:.2f}× |")
    print()
    print("| fixed cost | median ms | p95 ms |")
    print("| --- | ---: | ---: |")
    for name, (med, p95) in components:
        print(f"| {name} | {med:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
