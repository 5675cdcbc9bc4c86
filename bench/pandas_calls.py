"""bench/pandas_calls.py LABEL N ARGS_JSON TOOL CMD... — a raw MCP client over stdio (JSON lines,
one process): starts the server CMD, initializes, calls TOOL with ARGS_JSON N times one right
after the other (after one untimed call), then reads the proportional set size (PSS) of the
server's whole process tree (the server and every process below it: sandboxes, workers) and
prints one JSON line: p50/p95/min of the round trips in ms, calls per second over the stream,
the PSS in MiB; with INFLIGHT=K also the calls per second of N more calls with K outstanding
at all times. Used by bench/pandas_calls.sh and bench/trivial_calls.sh."""
import json
import os
import subprocess
import sys
import time


def tree(pid):
    """pid and every process below it."""
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def pss_mib(pid):
    total = 0
    for p in tree(pid):
        try:
            with open("/proc/%d/smaps_rollup" % p) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024.0


def main():
    label, n, args, tool, cmd = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), \
        sys.argv[4], sys.argv[5:]
    srv = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    ids = [0]

    def rpc(method, params):
        ids[0] += 1
        srv.stdin.write((json.dumps({"jsonrpc": "2.0", "id": ids[0], "method": method,
                                     "params": params}) + "\n").encode())
        srv.stdin.flush()
        while True:
            msg = json.loads(srv.stdout.readline())
            if msg.get("id") == ids[0]:
                if "error" in msg or msg.get("result", {}).get("isError"):
                    sys.exit("%s: %s failed: %s" % (label, method, json.dumps(msg)[:300]))
                return msg

    rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}})
    srv.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    srv.stdin.flush()
    call = {"name": tool, "arguments": args}
    rpc("tools/call", call)  # untimed: the first call (a worker's start is not the stream's)
    lat = []
    start = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        rpc("tools/call", call)
        lat.append((time.perf_counter() - t) * 1e3)
    took = time.perf_counter() - start
    inflight = int(os.environ.get("INFLIGHT", "1"))
    burst = None
    if inflight > 1:  # then N calls with INFLIGHT outstanding at all times: calls per second
        sent = done = 0
        start = time.perf_counter()
        while done < n:
            while sent < n and sent - done < inflight:
                ids[0] += 1
                sent += 1
                srv.stdin.write((json.dumps({"jsonrpc": "2.0", "id": ids[0], "method": "tools/call",
                                             "params": call}) + "\n").encode())
            srv.stdin.flush()
            msg = json.loads(srv.stdout.readline())
            if "id" in msg:
                if "error" in msg or msg.get("result", {}).get("isError"):
                    sys.exit("%s: a call in flight failed: %s" % (label, json.dumps(msg)[:300]))
                done += 1
        burst = n / (time.perf_counter() - start)
    pss = pss_mib(srv.pid)
    srv.stdin.close()
    srv.wait()
    lat.sort()
    print(json.dumps({"label": label, "p50": lat[len(lat) // 2], "p95": lat[int(len(lat) * 0.95)],
                      "min": lat[0], "calls_per_s": n / took, "pss_mib": pss,
                      "calls_per_s_inflight": burst, "inflight": inflight}))


if __name__ == "__main__":
    main()
