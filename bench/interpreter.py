#!/usr/bin/python3
"""The code toolset against a warm Jupyter kernel, plain python3 and a cold sandboxed call.

Driven by bench/interpreter.sh; results in docs/benchmarks.md ("The code interpreter"). One
`toolgen serve --dev --toolset code` over stdio (JSON-RPC lines, the 2025-06-18 era after
`initialize`), one warm ipykernel (jupyter_client's BlockingKernelClient) and plain processes,
all timed by this one client the same way: wall time of the whole round trip, after warm-up,
rounds interleaved so that drift on a shared machine hits every row alike.

Workloads (the same source text everywhere):
  stmt     `x = 1`
  pandas   import pandas, read tips.csv (embedded in the program: a one-shot python_execute
           sees no host files, docs/code.md#how-a-program-runs), group by day, mean, print
  new      the first call of a new interpreter: create_session + its first `x = 1`
           (toolgen), start_kernel + wait_for_ready + the first `x = 1` (Jupyter)

Usage: interpreter.py BENCH_DIR FAST SLOW   (iterations of the cheap and the expensive rows)
"""

import io
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLGEN = os.environ.get("TOOLGEN", os.path.join(ROOT, "bin", "toolgen"))
PY = os.environ.get("PYTHON", "/usr/bin/python3")
# ipykernel's debugpy prints notes on the kernel's stderr without this (no effect on timing)
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
ROUNDS = int(os.environ.get("ROUNDS", "10"))
SETTLE = float(os.environ.get("SETTLE", "0.5"))  # s after a row that leaves work behind
# s after a one-shot call, which goes through the pool: a model's think time, during which the
# replacement worker imports numpy, pandas and matplotlib (docs/sandbox.md#the-warm-pool)
ONESHOT_SETTLE = float(os.environ.get("ONESHOT_SETTLE", "1.0"))

STMT = "x = 1"
with open(os.path.join(ROOT, "data", "tips.csv")) as f:
    TIPS = f.read()
PANDAS = ('import io\nimport pandas as pd\nCSV = """' + TIPS + '"""\n'
          'df = pd.read_csv(io.StringIO(CSV))\n'
          'print(df.groupby("day")["total_bill"].mean().round(2).to_string())\n')
IMPORT_ONLY = "import pandas as pd\n"
# Node.js (node_execute): a statement, and the same group-by in plain JavaScript
NODE_STMT = "let x = 1;"
NODE_GROUPBY = ("const CSV = " + json.dumps(TIPS) + ";\n"
                "const rows = CSV.trim().split('\\n').map((l) => l.replace(/\"/g, '').split(','));\n"
                "const [cols, ...lines] = rows;\n"
                "const day = cols.indexOf('day'), bill = cols.indexOf('total_bill');\n"
                "const sums = {};\n"
                "for (const f of lines) { "
                "const s = sums[f[day]] || (sums[f[day]] = [0, 0]); s[0] += +f[bill]; s[1]++; }\n"
                "for (const d of Object.keys(sums).sort()) "
                "console.log(d, (sums[d][0] / sums[d][1]).toFixed(2));\n")


def expected_pandas():
    import pandas as pd
    df = pd.read_csv(io.StringIO(TIPS))
    return df.groupby("day")["total_bill"].mean().round(2).to_string()


class Serve:
    """toolgen serve over stdio; every request's server-side duration from its log line."""

    def __init__(self, repo, err_path, wrap=()):
        self.err_path = err_path
        argv = [*wrap, TOOLGEN, "-C", repo, "serve", "--dev", "--toolset", "code"]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(err_path, "w"))
        self.n = 0
        r = self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "interpreter-bench", "version": "1"}})
        if "result" not in r:
            sys.exit(f"initialize failed: {r}")
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def rpc(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("toolgen serve ended; its stderr: " + open(self.err_path).read()[-2000:])
            d = json.loads(line)
            if d.get("id") == self.n:
                return d

    def call(self, name, args):
        """(ms, structuredContent, isError, request id)"""
        t0 = time.perf_counter()
        d = self.rpc("tools/call", {"name": name, "arguments": args})
        ms = (time.perf_counter() - t0) * 1e3
        res = d.get("result") or {}
        failed = bool(res.get("isError")) or "error" in d
        return ms, res.get("structuredContent") or {}, failed, self.n

    def server_ms(self):
        """id -> duration_ms from the server's log lines"""
        out = {}
        with open(self.err_path) as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    continue
                if "id" in d and "duration_ms" in d:
                    out[d["id"]] = d["duration_ms"]
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class Kernel:
    """A Jupyter kernel (ipykernel) and a BlockingKernelClient: execute, then wait for the
    execute_reply on shell and the idle status on iopub (all output collected), as
    execute_interactive does."""

    def __init__(self):
        from jupyter_client.manager import KernelManager
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel()
        self.kc = self.km.blocking_client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def execute(self, code, store_history=True):
        kc = self.kc
        mid = kc.execute(code, store_history=store_history)
        out, reply, idle = [], None, False
        while reply is None:
            m = kc.get_shell_msg(timeout=60)
            if m["parent_header"].get("msg_id") == mid and m["msg_type"] == "execute_reply":
                reply = m["content"]
        while not idle:
            m = kc.get_iopub_msg(timeout=60)
            if m["parent_header"].get("msg_id") != mid:
                continue
            if m["msg_type"] == "stream":
                out.append(m["content"]["text"])
            elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                idle = True
        if reply.get("status") != "ok":
            sys.exit(f"the kernel failed: {reply}")
        return "".join(out)

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def proc(argv, want=None):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or (want is not None and want not in r.stdout):
        sys.exit(f"{argv[:4]} failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-1000:]}")


def pct(v, q):
    v = sorted(v)
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def main():
    bench_dir, fast, slow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    repo = os.path.join(bench_dir, "repo")
    codedir = os.path.join(bench_dir, "code")
    want = expected_pandas()
    srv = Serve(repo, os.path.join(bench_dir, "serve.err"))
    kern = Kernel()
    sid = None

    # --- rows: name -> (iterations, fn returning ms); fns check their answers
    samples = {}
    extra = {}  # name -> list of (executionTime, cpu ms, server ms id)

    def tg_exec(args, check=None, row=None, tool="python_execute"):
        ms, sc, err, rid = srv.call(tool, args)
        if err or not sc.get("success") or (check and check not in sc.get("stdout", "")):
            sys.exit(f"{tool} {args.get('code', '')[:30]!r} failed: "
                     f"{json.dumps(sc)[:1500]}")
        if row:
            ra = sc.get("resource_analysis", {})
            extra.setdefault(row, []).append((sc.get("executionTime"),
                                              ra.get("cpu", {}).get("consumed"), rid))
        return ms

    def session_stmt():
        return tg_exec({"code": STMT, "session_id": sid}, row="session_stmt")

    def session_pandas():
        return tg_exec({"code": PANDAS, "session_id": sid}, want, row="session_pandas")

    def oneshot(code, check, row, tool="python_execute"):
        def call():
            ms = tg_exec({"code": code}, check, row=row, tool=tool)
            time.sleep(ONESHOT_SETTLE)
            return ms
        return call

    def cold_run(tool, code, check, row):
        """`toolgen run TOOL`: a new toolgen process and a cold sandbox; its executionTime and
        CPU recorded as the server's rows are."""
        argv = [TOOLGEN, "-C", codedir, "run", tool, "--json", "--arg", "code=" + code]

        def call():
            t0 = time.perf_counter()
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            ms = (time.perf_counter() - t0) * 1e3
            sc = json.loads(r.stdout or "{}").get("result") or {}
            if r.returncode != 0 or not sc.get("success") or check not in sc.get("stdout", ""):
                sys.exit(f"{argv[:5]} failed ({r.returncode}): {r.stdout[-500:]} {r.stderr[-500:]}")
            extra.setdefault(row, []).append(
                (sc.get("executionTime"), sc.get("resource_analysis", {}).get("cpu", {})
                 .get("consumed"), None))
            return ms
        return call

    def pooled_tool():
        ms, sc, err, rid = srv.call("group_and_count_by_columns",
                                    {"file_path": "data/tips.csv", "group_by_columns": ["day"]})
        if err or sc.get("total_rows") != 244:
            sys.exit(f"group_and_count_by_columns failed: {json.dumps(sc)[:1000]}")
        extra.setdefault("pool_tool", []).append((None, None, rid))
        time.sleep(SETTLE)  # the pool's replacement worker imports pandas off the path
        return ms

    def new_session():
        t0 = time.perf_counter()
        ms_c, sc, err, rid_c = srv.call("create_session", {"runtime": "python"})
        if err or "session_id" not in sc:
            sys.exit(f"create_session failed: {sc}")
        ms_f, sc2, err2, rid_f = srv.call("python_execute",
                                          {"code": STMT, "session_id": sc["session_id"]})
        total = (time.perf_counter() - t0) * 1e3
        if err2 or not sc2.get("success"):
            sys.exit(f"a new session's first call failed: {sc2}")
        srv.call("close_session", {"session_id": sc["session_id"]})
        samples.setdefault("new_create", []).append(ms_c)
        samples.setdefault("new_first", []).append(ms_f)
        extra.setdefault("new_create", []).append((None, None, rid_c))
        extra.setdefault("new_first", []).append((sc2.get("executionTime"), None, rid_f))
        time.sleep(SETTLE)
        return total

    def jupyter_new():
        t0 = time.perf_counter()
        k = Kernel()
        t1 = time.perf_counter()
        k.execute(STMT)
        total = (time.perf_counter() - t0) * 1e3
        samples.setdefault("jnew_start", []).append((t1 - t0) * 1e3)
        k.close()
        time.sleep(SETTLE)
        return total

    def jupyter_pandas(store_history=True):
        out = kern.execute(PANDAS, store_history)
        if want not in out:
            sys.exit(f"the kernel printed {out!r}")

    cold_stmt = [TOOLGEN, "-C", codedir, "run", "python_execute", "--json", "--arg", "code=" + STMT]
    cold_pandas = [TOOLGEN, "-C", codedir, "run", "python_execute", "--json",
                   "--arg", "code=" + PANDAS]
    rows = [
        # (key, fast?, fn)
        ("session_stmt", True, session_stmt),
        ("jupyter_stmt", True, lambda: timed(lambda: kern.execute(STMT))),
        ("jupyter_stmt_nohist", True, lambda: timed(lambda: kern.execute(STMT, False))),
        ("plain_stmt", True, lambda: timed(lambda: proc([PY, "-c", STMT]))),
        ("oneshot_stmt", True, oneshot(STMT, None, "oneshot_stmt")),
        ("cold_stmt", True, lambda: timed(lambda: proc(cold_stmt, '"success": true'))),
        ("session_pandas", True, session_pandas),
        ("jupyter_pandas", True, lambda: timed(jupyter_pandas)),
        ("jupyter_pandas_nohist", True, lambda: timed(lambda: jupyter_pandas(False))),
        ("oneshot_pandas", False, oneshot(PANDAS, want, "oneshot_pandas")),
        ("oneshot_import", False, oneshot(IMPORT_ONLY, None, "oneshot_import")),
        ("pool_tool", False, pooled_tool),
        ("plain_pandas", False, lambda: timed(lambda: proc([PY, "-c", PANDAS], want))),
        ("cold_pandas", False, lambda: timed(lambda: proc(cold_pandas, '"success": true'))),
        ("oneshot_node_stmt", True, oneshot(NODE_STMT, None, "oneshot_node_stmt",
                                             "node_execute")),
        ("cold_node_stmt", True, cold_run("node_execute", NODE_STMT, "", "cold_node_stmt")),
        ("oneshot_node_groupby", False, oneshot(NODE_GROUPBY, "Thur 17.68",
                                                "oneshot_node_groupby", "node_execute")),
        ("cold_node_groupby", False, cold_run("node_execute", NODE_GROUPBY, "Thur 17.68",
                                              "cold_node_groupby")),
        ("new_session", False, new_session),
        ("jupyter_new", False, jupyter_new),
    ]
    only = os.environ.get("ONLY")
    if only:
        rows = [r for r in rows if r[0] in only.split(",")]

    # --- warm-up: a session with pandas imported, the kernel with pandas imported, the pool's
    # worker ready, every row run twice untimed
    ms, sc, err, _ = srv.call("create_session", {"runtime": "python"})
    if err:
        sys.exit(f"create_session failed: {sc}")
    sid = sc["session_id"]
    kern.execute(IMPORT_ONLY)
    for _ in range(2):
        for key, _, fn in rows:
            fn()
    samples.clear()
    extra.clear()
    warm_end_id = srv.n

    # --- measured rounds, interleaved
    t_start = time.time()
    for r in range(ROUNDS):
        for key, is_fast, fn in rows:
            n = fast if is_fast else slow
            k = n // ROUNDS + (1 if r < n % ROUNDS else 0)
            for _ in range(k):
                ms = fn()
                samples.setdefault(key, []).append(ms)
    elapsed = time.time() - t_start

    srv.call("close_session", {"session_id": sid})
    kern.close()
    srv.close()
    server = srv.server_ms()

    res = {"elapsed_s": elapsed, "rows": {}, "server_ms": {}, "execution_ms": {}, "cpu_ms": {}}
    for key, v in samples.items():
        res["rows"][key] = {"n": len(v), "p50": statistics.median(v), "p90": pct(v, 0.9),
                            "min": min(v)}
    for key, v in extra.items():
        sm = [server[i] for _, _, i in v if i is not None and i in server and i > warm_end_id]
        if sm:
            res["server_ms"][key] = statistics.median(sm)
        et = [e for e, _, _ in v if e is not None]
        if et:
            res["execution_ms"][key] = statistics.median(et)
        cpu = [c for _, c, _ in v if c is not None]
        if cpu:
            res["cpu_ms"][key] = statistics.median(cpu)
    json.dump(res, open(os.path.join(bench_dir, "results.json"), "w"), indent=1)
    report(res)


LABELS = {
    "session_stmt": "toolgen: python_execute in a warm session (tools/call over stdio)",
    "jupyter_stmt": "Jupyter: warm ipykernel, execute round trip (default: store_history)",
    "jupyter_stmt_nohist": "Jupyter: the same with store_history=False",
    "plain_stmt": "plain `python3 -c` subprocess",
    "oneshot_stmt": "toolgen: python_execute one-shot (fresh sandbox, in serve)",
    "cold_stmt": "toolgen: `toolgen run python_execute` (cold process + sandbox)",
    "session_pandas": "toolgen: python_execute in a warm session (pandas loaded)",
    "jupyter_pandas": "Jupyter: warm ipykernel (pandas loaded)",
    "jupyter_pandas_nohist": "Jupyter: the same with store_history=False",
    "oneshot_pandas": "toolgen: python_execute one-shot, no session (in serve)",
    "oneshot_import": "  stage: one-shot `import pandas` only",
    "pool_tool": "toolgen: repository pandas tool through the warm pool "
                 "(group_and_count_by_columns)",
    "plain_pandas": "plain `python3 -c` subprocess",
    "cold_pandas": "toolgen: `toolgen run python_execute` (cold process + sandbox)",
    "oneshot_node_stmt": "toolgen: node_execute one-shot (in serve: a pool worker)",
    "cold_node_stmt": "toolgen: `toolgen run node_execute` (cold process + sandbox)",
    "oneshot_node_groupby": "toolgen: node_execute one-shot (in serve: a pool worker)",
    "cold_node_groupby": "toolgen: `toolgen run node_execute` (cold process + sandbox)",
    "new_session": "toolgen: create_session + first python_execute",
    "new_create": "  of which create_session",
    "new_first": "  of which the first python_execute",
    "jupyter_new": "Jupyter: start_kernel + wait_for_ready + first execute",
    "jnew_start": "  of which start_kernel + wait_for_ready",
}
GROUPS = [
    ("`x = 1`", ["session_stmt", "jupyter_stmt", "jupyter_stmt_nohist", "plain_stmt",
                 "oneshot_stmt", "cold_stmt"], "jupyter_stmt"),
    ("pandas group-by (tips.csv, mean by day)",
     ["oneshot_pandas", "oneshot_import", "session_pandas", "jupyter_pandas",
      "jupyter_pandas_nohist", "pool_tool", "plain_pandas", "cold_pandas"], "jupyter_pandas"),
    ("Node.js `let x = 1;`", ["oneshot_node_stmt", "cold_node_stmt"], "cold_node_stmt"),
    ("Node.js group-by (tips.csv in the program, mean by day)",
     ["oneshot_node_groupby", "cold_node_groupby"], "cold_node_groupby"),
    ("first call of a new interpreter", ["new_session", "new_create", "new_first",
                                         "jupyter_new", "jnew_start"], "jupyter_new"),
]


def report(res):
    rows = res["rows"]
    print(f"measured in {res['elapsed_s']:.0f} s, load {open('/proc/loadavg').read().split()[0]}"
          " at the end")
    print()
    print("p50 ÷ ref: over the group's Jupyter kernel row; for Node.js, over the cold "
          "`toolgen run node_execute`")
    print()
    print("| workload | row | n | p50 ms | p90 ms | min ms | p50 ÷ ref | server ms p50 "
          "| executionTime p50 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for title, keys, ref in GROUPS:
        for k in keys:
            if k not in rows:
                continue
            r = rows[k]
            ratio = f"{r['p50'] / rows[ref]['p50']:.2f}×" if ref in rows and not \
                k.startswith("j") else ""
            sm = res["server_ms"].get(k)
            et = res["execution_ms"].get(k)
            print(f"| {title} | {LABELS[k]} | {r['n']} | {r['p50']:.2f} | {r['p90']:.2f} | "
                  f"{r['min']:.2f} | {ratio} | {'' if sm is None else f'{sm:.2f}'} | "
                  f"{'' if et is None else f'{et:g}'} |")
    print()
    goals = []
    if "session_stmt" in rows:
        p = rows["session_stmt"]["p50"]
        goals.append(("warm session p50 <= 10 ms", p <= 10, f"{p:.2f} ms"))
        for j, how in (("jupyter_stmt", "default"), ("jupyter_stmt_nohist", "store_history=False")):
            if j in rows:
                q = p / rows[j]["p50"]
                goals.append((f"warm session <= 1.0x Jupyter's round trip ({how})", q <= 1.0,
                              f"{q:.2f}x"))
    if "oneshot_pandas" in rows:
        p = rows["oneshot_pandas"]["p50"]
        goals.append(("one-shot pandas p50 <= 25 ms", p <= 25, f"{p:.2f} ms"))
    if "new_session" in rows:
        p = rows["new_session"]["p50"]
        goals.append(("first call of a new session (create + first call) p50 <= 150 ms",
                      p <= 150, f"{p:.2f} ms"))
    for name, ok, val in goals:
        print(f"goal {'MET   ' if ok else 'MISSED'} {name}: {val}")
    if res["cpu_ms"]:
        print("tool CPU ms p50 (resource_analysis.cpu.consumed): " +
              ", ".join(f"{k} {v:g}" for k, v in res["cpu_ms"].items()))


def stages():
    """STAGES=1: where a one-shot python_execute's wall time goes, from the server's own
    execve / exit events under strace (--seccomp-bpf: only those two system calls stop) and the
    client's send and receive times on the same clock; medians over N calls of each program."""
    bench_dir, n = sys.argv[1], int(sys.argv[3])
    trace = os.path.join(bench_dir, "serve.strace")
    srv = Serve(os.path.join(bench_dir, "repo"), os.path.join(bench_dir, "serve.err"),
                ("strace", "-f", "--seccomp-bpf", "-ttt", "-e", "trace=execve,exit_group",
                 "-o", trace))
    marks = []
    for label, code in (("`x = 1`", STMT), ("pandas group-by", PANDAS)):
        for i in range(n + 2):
            t0 = time.time()
            ms, sc, err, _ = srv.call("python_execute", {"code": code})
            t1 = time.time()
            if err or not sc.get("success"):
                sys.exit(f"python_execute failed: {json.dumps(sc)[:1000]}")
            if i >= 2:  # two untimed calls first
                marks.append((label, t0, t1))
            time.sleep(SETTLE)
    srv.close()
    ev = []
    with open(trace) as f:
        for line in f:
            parts = line.split(None, 2)
            if len(parts) < 3:
                continue
            ts, what = float(parts[1]), parts[2]
            if what.startswith('execve("/usr/bin/bwrap"'):
                ev.append((ts, "bwrap"))
            elif what.startswith('execve("' + PY + '"'):
                ev.append((ts, "python"))
            elif what.startswith("+++ exited"):
                ev.append((ts, "exit"))
    names = ["request sent → execve(bwrap): arguments, the call's directory, fork",
             "execve(bwrap) → execve(python3): namespaces, mounts",
             "the interpreter: start, runner, program, exit",
             "last exit → reply received: teardown, classification, resource analysis, result"]
    table = {}
    for label, t0, t1 in marks:
        e = [x for x in ev if t0 <= x[0] <= t1]
        bw = [t for t, k in e if k == "bwrap"]
        py = [t for t, k in e if k == "python"]
        ex = [t for t, k in e if k == "exit"]
        if not (bw and py and ex):
            continue
        d = [bw[0] - t0, py[0] - bw[0], ex[-1] - py[0], t1 - ex[-1]]
        for i, v in enumerate(d):
            table.setdefault(label, [[] for _ in names])[i].append(v * 1e3)
    labels = list(table)
    print(f"one-shot python_execute under strace, medians of {n} calls each, load "
          f"{open('/proc/loadavg').read().split()[0]}")
    print()
    print("| stage | " + " | ".join(f"{k} ms" for k in labels) + " |")
    print("| --- |" + " ---: |" * len(labels))
    for i, name in enumerate(names):
        print(f"| {name} | " + " | ".join(f"{statistics.median(table[k][i]):.1f}"
                                          for k in labels) + " |")


if __name__ == "__main__":
    stages() if os.environ.get("STAGES") else main()
