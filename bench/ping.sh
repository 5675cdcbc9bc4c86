#!/bin/sh
# bench/ping.sh [COUNT] — what one message costs `toolgen serve --dev` over stdio, with 1 tool and
# with 1,001 (the change check runs before every message: docs/mcp.md#list-changes), side by side
# with a server written with the official TypeScript SDK (bench/mcp_peer.mjs stdio) serving as
# many tools. A raw client (Python, one process, JSON lines) sends COUNT pings (default 2000) one
# after the other and reports the p50 and mean round trip, then the same for `tools/list`.
# BASE_TOOLGEN=path adds another toolgen build (e.g. before a change) as a third column.
# Not a test: run it by hand; docs/benchmarks.md has the results. Work files in $BENCH_DIR.
set -eu
COUNT=${1:-2000}
TG=${TOOLGEN:-$PWD/bin/toolgen}
NODE=$PWD/tests/npm/node_modules/node/bin/node
[ -x "$NODE" ] || NODE=node
W=${BENCH_DIR:-$PWD/bench/work/ping}
rm -rf "$W" && mkdir -p "$W"

repo() { # repo N: a --dev repository with N synthetic tools
    r=$W/repo$1
    mkdir -p "$r/data" && cp toolgen.yaml "$r/" && echo a > "$r/data/x.csv"
    i=0
    while [ $i -lt "$1" ]; do
        name=$(printf 't%04d' $i)
        mkdir -p "$r/manifests/$name"
        sed "s/@NAME@/$name/g" tests/synthetic_tool.yaml >"$r/manifests/$name/tool.manifest.yaml"
        i=$((i + 1))
    done
    echo "$r"
}

measure() { # measure LABEL CMD...: the client's line for the server CMD
    python3 - "$COUNT" "$@" <<'PY'
import json, statistics, subprocess, sys, time
count, label, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def rpc(i, method, params=None):
    msg = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        msg["params"] = params
    p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit(f"{label}: the server ended")
        if json.loads(line).get("id") == i:
            return
rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "ping-bench", "version": "1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
out = []
for method, n in (("ping", count), ("tools/list", max(count // 20, 20))):
    t = []
    for i in range(n):
        t0 = time.perf_counter(); rpc(i + 1, method); t.append(time.perf_counter() - t0)
    out.append(f"{method} p50 {statistics.median(t)*1e3:.3f} ms mean {statistics.mean(t)*1e3:.3f} ms")
p.stdin.close(); p.wait()
print(f"{label}: " + "; ".join(out))
PY
}

for n in 1 1001; do
    r=$(repo $n)
    echo "== $n tools"
    measure "toolgen" sh -c 'cd "$1" && exec "$2" serve --dev' - "$r" "$TG"
    [ -n "${BASE_TOOLGEN:-}" ] &&
        measure "toolgen (BASE_TOOLGEN)" sh -c 'cd "$1" && exec "$2" serve --dev' - "$r" "$BASE_TOOLGEN"
    measure "SDK peer" "$NODE" bench/mcp_peer.mjs stdio "$n"
done
