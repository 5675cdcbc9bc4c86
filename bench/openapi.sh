#!/bin/sh
# bench/openapi.sh [DOC] — `toolgen init --from-openapi` on a large real document (default
# tests/testdata/openapi/api.github.com.json, GitHub's REST API): the drafting time (best and
# median of 5 runs into a fresh folder), the tool count, the longest name, and the size of the
# `tools/list` result in tokens (approximated as characters / 4 of the compact JSON) — after
# inlining (generated/mcp/tools.json of a build of the drafts), and before: the same tools with
# their schemas as the document writes them, $refs unresolved, plus components/ once (what a
# server could send if clients resolved references). Also the same for --read-only.
# Not a test: docs/benchmarks.md has the results. Work files in $BENCH_DIR.
set -eu
DOC=${1:-tests/testdata/openapi/api.github.com.json}
TG=${TOOLGEN:-$PWD/bin/toolgen}
W=${BENCH_DIR:-$PWD/bench/work/openapi}
rm -rf "$W" && mkdir -p "$W"
draft_times() { # OPTIONS...: 5 timed runs into a fresh folder, prints "best median" in ms
    for i in 1 2 3 4 5; do
        rm -rf "$W/t"
        python3 -c 'import subprocess,sys,time
t=time.perf_counter(); subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
print(round((time.perf_counter()-t)*1000))' "$TG" init --from-openapi "$DOC" "$W/t" "$@"
    done | sort -n | awk '{a[NR]=$1} END {print a[1], a[3]}'
}
report() { # LABEL FOLDER
    "$TG" -C "$2" build >/dev/null 2>&1
    python3 - "$DOC" "$2" "$1" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1])) if sys.argv[1].endswith(".json") else None
folder, label = sys.argv[2], sys.argv[3]
tools = json.load(open(os.path.join(folder, "generated/mcp/tools.json")))["tools"]
after = len(json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False))
names = [t["name"] for t in tools]
before = None
if doc is not None:
    methods = ("get",) if label == "--read-only" else ("get", "put", "post", "delete", "patch")
    raw = {}
    for path, item in doc["paths"].items():
        for m in methods:
            if m in item:
                op = item[m]
                ok = sorted(k for k in op.get("responses", {}) if k.startswith("2"))
                raw[(m, path)] = {"parameters": item.get("parameters", []) + op.get("parameters", []),
                                  "requestBody": op.get("requestBody"),
                                  "response": op["responses"][ok[0]] if ok else None}
    slim = []
    for t in tools:  # the same name, title and description; schemas as the document has them
        slim.append({"name": t["name"], "title": t.get("title"), "description": t["description"]})
    per_op = sum(len(json.dumps(v, separators=(",", ":"), ensure_ascii=False)) for v in raw.values())
    comps = len(json.dumps(doc.get("components", {}), separators=(",", ":"), ensure_ascii=False))
    before = len(json.dumps({"tools": slim}, separators=(",", ":"), ensure_ascii=False)) + per_op + comps
ins = sum(len(json.dumps(t.get("inputSchema"), separators=(",", ":"), ensure_ascii=False)) for t in tools)
outs = sum(len(json.dumps(t.get("outputSchema"), separators=(",", ":"), ensure_ascii=False)) for t in tools)
comps_only = len(json.dumps(doc.get("components", {}), separators=(",", ":"), ensure_ascii=False)) if doc else 0
print(f"{label}: inputSchema ~{ins // 4} tokens, outputSchema ~{outs // 4} tokens in all; the document's components ~{comps_only // 4} tokens")
print(f"{label}: {len(tools)} tools, longest name {max(map(len, names))}, "
      f"unique {len(set(names)) == len(names)}; tools/list {after} chars = ~{after // 4} tokens "
      f"(~{after // 4 // len(tools)} per tool) after inlining"
      + (f"; ~{before // 4} tokens before (schemas with $refs + components once)" if before else ""))
PY
}
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "document: $DOC ($(wc -c <"$DOC") bytes)"
echo "draft all (ms, best median): $(draft_times)"
echo "draft --read-only (ms, best median): $(draft_times --read-only)"
"$TG" init --from-openapi "$DOC" "$W/all" >/dev/null 2>"$W/all.err"
report "all" "$W/all"
"$TG" init --from-openapi "$DOC" "$W/ro" --read-only >/dev/null 2>&1
report "--read-only" "$W/ro"
grep -o 'cut' "$W/all.err" >/dev/null && grep 'cut' "$W/all.err" || echo "no \$ref was cut"
