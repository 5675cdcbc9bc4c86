#!/bin/sh
# bench/instr.sh OLD NEW [N] — instructions, not seconds: two toolgen binaries side by side on
# the workloads of bench/noop.sh and bench/mcp.sh, counted by `valgrind --tool=callgrind`
# (repeatable whatever else the machine runs; docs/benchmarks.md). OLD and NEW are toolgen
# binaries inside their source trees (each finds its runtime files beside it). N synthetic
# tools (default 1000), as bench/noop.sh and bench/mcp.sh make them.
#
#   noop   `toolgen build` with nothing to do (gates off, as bench/noop.sh), after a first build
#   list   `toolgen serve --dev` over stdio: initialize, then 20 tools/list of all N tools
#   calls  the same server: initialize, then 20 tools/call of one tool (`cat` in the sandbox);
#          only the server process is counted, not the sandboxed child
#   http   `toolgen serve --dev --http` (bench/mcp.sh's transport): 20 tools/list, then 20
#          tools/call, sent one at a time by a small Python client, until SIGTERM
#
# Prints a table: workload, OLD, NEW, change. Work files in $BENCH_DIR (default
# bench/work/instr/, git-ignored). Not a test: run it by hand.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/instr.sh OLD NEW [N]" >&2; exit 2; }
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OLD=$1 NEW=$2 N=${3:-1000}
command -v valgrind >/dev/null || { echo "bench/instr.sh: needs valgrind" >&2; exit 2; }
WORK=${BENCH_DIR:-$ROOT/bench/work/instr}
rm -rf "$WORK"
mkdir -p "$WORK"

# the repository: N synthetic command tools, as bench/noop.sh and bench/mcp.sh
R=$WORK/repo
mkdir -p "$R/manifests" "$R/data"
printf 'a,b\n1,2\n' >"$R/data/x.csv"
printf 'project:\n  name: bench-instr\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"
i=0
while [ $i -lt "$N" ]; do
    name=$(printf 't%05d' $i)
    mkdir -p "$R/manifests/$name"
    sed "s/@NAME@/$name/g" tests/synthetic_tool.yaml >"$R/manifests/$name/tool.manifest.yaml"
    i=$((i + 1))
done

M='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"instr","version":"1"}}}'
{
    echo "$INIT"
    i=1
    while [ $i -le 20 ]; do
        echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/list\",\"params\":{$M}}"
        i=$((i + 1))
    done
} >"$WORK/list.jsonl"
{
    echo "$INIT"
    i=1
    while [ $i -le 20 ]; do
        echo "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{$M,\"name\":\"t00000\",\"arguments\":{\"file_path\":\"data/x.csv\"}}}"
        i=$((i + 1))
    done
} >"$WORK/calls.jsonl"

# count BIN LABEL INPUT CMD...: the instructions of BIN's own process with INPUT on stdin
# (forked children write files of their own, under their pids, and are not counted)
count() {
    bin=$1 label=$2 input=$3
    shift 3
    rm -f "$WORK/cg.$label".*
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$label.%p" "$bin" "$@" \
        <"$input" >"$WORK/$label.out" 2>"$WORK/$label.err" &
    pid=$!
    wait $pid || true
    sed -n 's/^summary: //p' "$WORK/cg.$label.$pid" | awk '{print $1}'
}

# count_http BIN LABEL DIR: the instructions of `serve --http` over the client's session
count_http() {
    bin=$1 label=$2 dir=$3
    rm -f "$WORK/cg.$label".*
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$label.%p" "$bin" -C "$dir" serve \
        --dev --http 127.0.0.1:0 --page-size "$N" >"$WORK/$label.out" 2>"$WORK/$label.err" &
    pid=$!
    port="" i=0
    while [ -z "$port" ] && [ $i -lt 600 ]; do
        sleep 0.1
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$WORK/$label.err")
        i=$((i + 1))
    done
    python3 - "$port" <<'PY'
import http.client, json, sys
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
def post(i, method, params, name=None):
    h = {"Content-Type": "application/json", "Accept": "application/json",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if name:
        h["Mcp-Name"] = name
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=600)
    c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                          "params": dict(params, _meta=META)}), h)
    c.getresponse().read()
    c.close()
for i in range(20):
    post(i, "tools/list", {})
for i in range(20):
    post(100 + i, "tools/call", {"name": "t00000", "arguments": {"file_path": "data/x.csv"}},
         "t00000")
PY
    kill -TERM $pid
    wait $pid || true
    sed -n 's/^summary: //p' "$WORK/cg.$label.$pid" | awk '{print $1}'
}

row() { # LABEL OLD_COUNT NEW_COUNT
    awk -v l="$1" -v a="$2" -v b="$3" \
        'BEGIN { printf "| %s | %.2f M | %.2f M | %+.2f %% |\n", l, a / 1e6, b / 1e6, (b - a) * 100 / a }'
}

# each binary builds its own copy first, so that its no-op has nothing to do
cp -r "$R" "$WORK/old" && mv "$R" "$WORK/new"
"$OLD" -C "$WORK/old" build >/dev/null 2>&1
"$NEW" -C "$WORK/new" build >/dev/null 2>&1
echo "| workload (N = $N) | old | new | change |"
echo "| --- | ---: | ---: | ---: |"
row "build, no-op" "$(count "$OLD" noop.old /dev/null -C "$WORK/old" build)" \
    "$(count "$NEW" noop.new /dev/null -C "$WORK/new" build)"
row "serve: 20 tools/list" \
    "$(count "$OLD" list.old "$WORK/list.jsonl" -C "$WORK/old" serve --dev --page-size "$N")" \
    "$(count "$NEW" list.new "$WORK/list.jsonl" -C "$WORK/new" serve --dev --page-size "$N")"
row "serve: 20 tools/call" \
    "$(count "$OLD" calls.old "$WORK/calls.jsonl" -C "$WORK/old" serve --dev)" \
    "$(count "$NEW" calls.new "$WORK/calls.jsonl" -C "$WORK/new" serve --dev)"
row "serve --http: 20 tools/list, 20 tools/call" "$(count_http "$OLD" http.old "$WORK/old")" \
    "$(count_http "$NEW" http.new "$WORK/new")"
