#!/bin/sh
# bench/mcp.sh [N] — toolgen serve --http against a minimal server written with the official MCP
# TypeScript SDK (bench/mcp_peer.mjs), side by side, both serving N tools (default 1000) whose
# handler runs `cat -- data/x.csv` as a subprocess (toolgen: in its bubblewrap sandbox, as every
# call; the peer: a bare child process). The same client (bench/mcp_client.mjs, SDK 1.x over
# Streamable HTTP, node 22 from tests/npm) measures for each: time from start to the first
# tools/list, tools/list latency (every page), sequential tools/call throughput and p50/p95, the
# same with 8 calls in flight, and the server's resident memory. toolgen is measured twice: with
# --dev (the working tree's manifests) and serving the registry (every tool staged, approved and
# promoted first, as a user would: one commit each; REGISTRY=0 skips that, which takes about a
# tenth of a second per tool). Not a test: run it by hand; docs/benchmarks.md has the results.
# Work files in $BENCH_DIR (default bench/work/mcp/).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
N=${1:-1000}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
[ -x "$TG" ] || make >/dev/null
NODE=$ROOT/tests/npm/node_modules/node/bin/node
[ -x "$NODE" ] || { echo "bench/mcp.sh: run 'make test-deps' first (node 22 in tests/npm)" >&2; exit 2; }
WORK=${BENCH_DIR:-$ROOT/bench/work/mcp}
rm -rf "$WORK/repo"
mkdir -p "$WORK/repo/manifests" "$WORK/repo/data"
printf 'a,b\n1,2\n' >"$WORK/repo/data/x.csv"
printf 'sepal_length,sepal_width' >"$WORK/repo/data/iris.csv" # the tools' example, for promotion
printf 'project:\n  name: bench-mcp\n  version: 1.0.0\n' >"$WORK/repo/toolgen.yaml"
i=0
while [ $i -lt "$N" ]; do
    name=$(printf 't%04d' $i)
    mkdir -p "$WORK/repo/manifests/$name"
    sed "s/@NAME@/$name/g" tests/synthetic_tool.yaml >"$WORK/repo/manifests/$name/tool.manifest.yaml"
    i=$((i + 1))
done
cp bench/mcp_peer.mjs "$WORK/peer.mjs"

# both servers read data/x.csv relative to the repository; the peer runs from it
cd "$WORK/repo"
ln -sfn "$ROOT/tests" tests
"$NODE" "$ROOT/bench/mcp_client.mjs" toolgen http://127.0.0.1:18731/mcp \
    "$TG" serve --dev --http 127.0.0.1:18731 --max-concurrency 8 --page-size "$N" >"$WORK/toolgen.json"
if [ "${REGISTRY:-1}" = 1 ]; then
    # the registry: built, committed, then each tool through the lifecycle (docs/lifecycle.md)
    G() { git -c user.name=bench -c user.email=bench@example.org "$@"; }
    printf '.toolgen/\ngenerated/\ntests\n' >.gitignore
    "$TG" build >/dev/null
    rm -rf .git && G init -q -b main && G add -A && G commit -qm init
    for m in manifests/*/; do
        t=$(basename "$m")
        TOOLGEN_USER=bench "$TG" stage "$t" >/dev/null &&
            TOOLGEN_USER=bench "$TG" feedback "$t" --output yes >/dev/null &&
            TOOLGEN_USER=bench "$TG" feedback "$t" --decision Approve >/dev/null &&
            TOOLGEN_USER=bench "$TG" promote "$t" >/dev/null || { echo "bench/mcp.sh: cannot promote $t" >&2; exit 1; }
    done
    "$NODE" "$ROOT/bench/mcp_client.mjs" toolgen-registry http://127.0.0.1:18733/mcp \
        "$TG" serve --http 127.0.0.1:18733 --max-concurrency 8 --page-size "$N" >"$WORK/registry.json"
else
    cp "$WORK/toolgen.json" "$WORK/registry.json"
    echo "bench/mcp.sh: REGISTRY=0: the registry column repeats --dev" >&2
fi
"$NODE" "$ROOT/bench/mcp_client.mjs" sdk-peer http://127.0.0.1:18732/mcp \
    "$NODE" "$WORK/peer.mjs" 18732 "$N" >"$WORK/peer.json"
rm -f tests
cd "$ROOT"
python3 - "$WORK/toolgen.json" "$WORK/registry.json" "$WORK/peer.json" <<'PY'
import json, sys
a, r, b = (json.load(open(f)) for f in sys.argv[1:4])
rows = [("tools listed", "tools", ""), ("time to first tools/list (ms)", "first_list_ms", "low"),
        ("tools/list p50 (ms)", "list_p50_ms", "low"), ("tools/list p95 (ms)", "list_p95_ms", "low"),
        ("sequential tools/call (calls/s)", "seq_calls_per_s", "high"),
        ("sequential p50 (ms)", "seq_p50_ms", "low"), ("sequential p95 (ms)", "seq_p95_ms", "low"),
        ("8-way tools/call (calls/s)", "conc8_calls_per_s", "high"),
        ("8-way p50 (ms)", "conc8_p50_ms", "low"), ("8-way p95 (ms)", "conc8_p95_ms", "low"),
        ("resident memory after the run (MB)", "rss_mb", "low"), ("peak resident memory (MB)", "peak_rss_mb", "low")]
print("| measure | toolgen --dev | toolgen registry | SDK peer | --dev ÷ peer | registry ÷ peer |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for label, key, _ in rows:
    x, z, y = a[key], r[key], b[key]
    q = lambda v: f"{v / y:.2f}" if y else ""
    print(f"| {label} | {x} | {z} | {y} | {q(x)} | {q(z)} |")
PY
