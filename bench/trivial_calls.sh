#!/bin/sh
# bench/trivial_calls.sh [N] — a trivial tool call through an MCP server over stdio, side by side in
# one run: `toolgen serve --dev` (in its sandbox, through the pool's command worker) and a server
# written with the official TypeScript SDK whose handler runs the same `cat` as a bare subprocess
# (bench/mcp_peer.mjs stdio). The raw client of bench/pandas_calls.py sends N calls of the
# synthetic tool (tests/synthetic_tool.yaml: `cat -- data/x.csv`) one after the other, then N
# with 8 in flight (default N 200), and reads each server's process tree PSS.
# BASE_TOOLGEN=path adds another toolgen build (e.g. before a change) as a third row.
# Not a test: run it by hand; docs/benchmarks.md has the results. Work files in $BENCH_DIR.
set -eu
N=${1:-200}
ROOT=$(pwd)
TG=${TOOLGEN:-$ROOT/bin/toolgen}
NODE=$ROOT/tests/npm/node_modules/node/bin/node
[ -x "$NODE" ] || { echo "bench/trivial_calls.sh: run 'make test-deps' first (node 22 in tests/npm)" >&2; exit 2; }
W=${BENCH_DIR:-$ROOT/bench/work/trivial}
rm -rf "$W" && mkdir -p "$W/repo/manifests/t0000" "$W/repo/data"
printf 'a,b\n1,2\n' >"$W/repo/data/x.csv"
printf 'project:\n  name: bench-trivial\n  version: 1.0.0\n' >"$W/repo/toolgen.yaml"
sed "s/@NAME@/t0000/g" tests/synthetic_tool.yaml >"$W/repo/manifests/t0000/tool.manifest.yaml"
chmod -R o+rX "$W"
cd "$W/repo"
ln -sfn "$ROOT/tests" tests
ARGS='{"file_path":"data/x.csv"}'
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg)"
export INFLIGHT=8
python3 "$ROOT/bench/pandas_calls.py" toolgen "$N" "$ARGS" t0000 "$TG" serve --dev --max-concurrency 8
[ -n "${BASE_TOOLGEN:-}" ] &&
    python3 "$ROOT/bench/pandas_calls.py" toolgen-base "$N" "$ARGS" t0000 "$BASE_TOOLGEN" serve --dev --max-concurrency 8
python3 "$ROOT/bench/pandas_calls.py" sdk-peer "$N" "$ARGS" t0000 "$NODE" "$ROOT/bench/mcp_peer.mjs" stdio 1
rm -f tests
echo "load $(cut -d' ' -f1 /proc/loadavg)"
