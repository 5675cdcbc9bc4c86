#!/bin/sh
# bench/pandas_calls.sh [N] — back-to-back calls of a pandas tool through an MCP server over stdio,
# side by side in one run: `toolgen serve --dev` (sandboxed, through its warm pool) and a server
# written with the official TypeScript SDK that runs a fresh python3 per call, no sandbox
# (bench/pandas_peer.mjs). The same raw client (bench/pandas_calls.py) sends N calls of
# group_and_count_by_columns on data/tips.csv (default 100) one right after the other and
# reports p50/p95, calls per second and the PSS of each server's whole process tree.
# PEER_PYTHON is the peer's interpreter (default /usr/bin/python3, the one toolgen's sandbox runs).
# BASE_TOOLGEN=path adds another toolgen build (e.g. before a change) as a third row.
# Not a test: run it by hand; docs/benchmarks.md has the results.
set -eu
N=${1:-100}
TG=${TOOLGEN:-$PWD/bin/toolgen}
NODE=$PWD/tests/npm/node_modules/node/bin/node
[ -x "$NODE" ] || { echo "bench/pandas_calls.sh: run 'make test-deps' first (node 22 in tests/npm)" >&2; exit 2; }
TOOL=group_and_count_by_columns
ARGS='{"file_path":"data/tips.csv","group_by_columns":["day","time"]}'
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg)"
echo "N=$N calls back to back per server, after one untimed call"
python3 bench/pandas_calls.py toolgen "$N" "$ARGS" "$TOOL" "$TG" serve --dev
[ -n "${BASE_TOOLGEN:-}" ] &&
    TOOLGEN_DATADIR=${BASE_DATADIR:-} python3 bench/pandas_calls.py toolgen-base "$N" "$ARGS" "$TOOL" "$BASE_TOOLGEN" serve --dev
PEER_PYTHON=${PEER_PYTHON:-/usr/bin/python3} python3 bench/pandas_calls.py sdk-peer "$N" "$ARGS" "$TOOL" "$NODE" bench/pandas_peer.mjs "$PWD/manifests/$TOOL" "$TOOL"
echo "load $(cut -d' ' -f1 /proc/loadavg)"
