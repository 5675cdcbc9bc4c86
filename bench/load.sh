#!/bin/sh
# bench/load.sh [CLIENTS] [CALLS] — toolgen serve --http under load: CLIENTS concurrent legacy
# clients (default 8), each making CALLS mixed tools/call (default 1000): a fast tool (`cat`),
# a tool that sleeps past its 1 s timeout (one call in 20), and calls cancelled while they run
# (one in 20, with notifications/cancelled). It counts protocol errors (a reply that is not a
# JSON-RPC result or error of the request, an HTTP status other than 200/202), checks after each
# quarter that no sandbox process is left besides the running calls and no zombie, and reads the
# server's memory (VmRSS; PSS of its process tree) at the start and after each quarter.
# Not a test: docs/reliability.md has the results. Work files in $BENCH_DIR.
set -eu
CLIENTS=${1:-8}
CALLS=${2:-1000}
TG=${TOOLGEN:-$PWD/bin/toolgen}
W=${BENCH_DIR:-$PWD/bench/work/load}
rm -rf "$W" && mkdir -p "$W/repo/data" "$W/repo/manifests/fast_tool" "$W/repo/manifests/slow_tool"
cp toolgen.yaml "$W/repo/"
echo 'a,b' >"$W/repo/data/x.csv"
sed 's/@NAME@/fast_tool/g' tests/synthetic_tool.yaml >"$W/repo/manifests/fast_tool/tool.manifest.yaml"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" \
    -e 's/^timeout_ms: .*/timeout_ms: 1000/' tests/synthetic_tool.yaml \
    >"$W/repo/manifests/slow_tool/tool.manifest.yaml"
grep -q '^timeout_ms' "$W/repo/manifests/slow_tool/tool.manifest.yaml" ||
    printf 'timeout_ms: 1000\n' >>"$W/repo/manifests/slow_tool/tool.manifest.yaml"
"$TG" -C "$W/repo" serve --dev --http 127.0.0.1:0 --max-concurrency 8 >"$W/serve.out" 2>"$W/serve.err" &
pid=$!
port=""
while [ -z "$port" ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$W/serve.err")
done
python3 - "$port" "$pid" "$CLIENTS" "$CALLS" <<'PY'
import http.client, json, os, subprocess, sys, threading, time
port, pid, clients, calls = (int(a) for a in sys.argv[1:])
errors, outcomes, lock = [], {"ok": 0, "timeout": 0, "cancelled": 0}, threading.Lock()

def tree(p):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,stat=,comm="], capture_output=True, text=True).stdout
    rows = [l.split(None, 3) for l in out.splitlines()]
    kids, seen = {}, [str(p)]
    for r in rows:
        kids.setdefault(r[1], []).append(r)
    found = []
    for q in seen:
        for r in kids.get(q, []):
            found.append(r); seen.append(r[0])
    return found

def pss(p):
    total = 0
    for q in [str(p)] + [r[0] for r in tree(p)]:
        try:
            for line in open(f"/proc/{q}/smaps_rollup"):
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total

def rss(p):
    for line in open(f"/proc/{p}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def post(conn, body, sid=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if sid:
        h["Mcp-Session-Id"] = sid
    conn.request("POST", "/mcp", json.dumps(body), h)
    r = conn.getresponse()
    data = r.read()
    return r.status, r.getheader("Mcp-Session-Id"), data

def reply_of(data, rid):
    text = data.decode()
    for chunk in text.split("\n"):
        chunk = chunk[6:] if chunk.startswith("data: ") else chunk
        if chunk.strip().startswith("{"):
            m = json.loads(chunk)
            if m.get("id") == rid:
                return m
    return None

def client(k, n):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    st, sid, _ = post(c, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": f"load{k}", "version": "1"}}})
    post(c, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    for i in range(1, n + 1):
        kind = "cancel" if i % 20 == 7 else "slow" if i % 20 == 13 else "fast"
        args = {"file_path": "data/x.csv"}
        body = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "fast_tool" if kind == "fast" else "slow_tool", "arguments": args}}
        if kind == "cancel":
            def cancel(rid=i):
                time.sleep(0.2)
                c2 = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                post(c2, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": rid, "reason": "load test"}}, sid)
                c2.close()
            threading.Thread(target=cancel).start()
        try:
            st, _, data = post(c, body, sid)
        except Exception as e:
            with lock: errors.append(f"client {k} call {i}: {e!r}")
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            continue
        m = reply_of(data, i) if st == 200 else None
        with lock:
            if st != 200 or m is None or ("result" not in m and "error" not in m):
                if kind == "cancel" and st in (200, 202, 503):
                    outcomes["cancelled"] += 1  # a cancelled request gets no reply
                else:
                    errors.append(f"client {k} call {i} ({kind}): HTTP {st}: {data[:200]!r}")
            elif kind == "fast" and m.get("result", {}).get("isError"):
                errors.append(f"client {k} call {i}: fast call failed: {data[:200]!r}")
            elif kind == "slow" and not (m.get("result", {}).get("isError") and b"TIMEOUT" in data):
                errors.append(f"client {k} call {i}: not a TIMEOUT: {data[:200]!r}")
            else:
                outcomes["ok" if kind == "fast" else "timeout" if kind == "slow" else "cancelled"] += 1
    c.close()

print(f"start: VmRSS {rss(pid)} kB, PSS of the tree {pss(pid)} kB")
t0 = time.time()
for q in range(4):
    ts = [threading.Thread(target=client, args=(k, calls // 4)) for k in range(clients)]
    for t in ts: t.start()
    for t in ts: t.join()
    time.sleep(1.5)  # the pool's replacement workers settle
    kids = tree(pid)
    zombies = [r for r in kids if r[2].startswith("Z")]
    print(f"after {(q + 1) * clients * calls // 4} calls ({time.time() - t0:.0f} s): VmRSS {rss(pid)} kB, "
          f"PSS {pss(pid)} kB, {len(kids)} processes under serve (warm workers), {len(zombies)} zombies")
print(f"outcomes: {outcomes}; protocol errors: {len(errors)}")
for e in errors[:10]:
    print("  ", e)
PY
kill $pid
wait $pid 2>/dev/null || true
sleep 1
left=$(pgrep -f "$W/" | grep -v "^$$\$" || true)
echo "after serve ended: ${left:-no} processes of it left"
