#!/bin/sh
# The built-in toolsets (docs/toolsets.md): each is a toolgen repository that builds and tests
# itself (a frozen build with generated/ unchanged); `serve --toolset NAME` and serve.toolsets
# serve one beside a repository's tools, first in the list; an unknown name or a wrong config
# value is a usage error naming the fix; the official TypeScript clients 1.x and 2.x call it.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root

for set in toolsets/*/; do
    run "$TG" -C "$set" check
    expect_rc "toolset $set: its generated/ is what its manifests make" 0
done

R=$TMP/repo
mkdir -p "$R/manifests" "$R/data"
cp -r manifests/preview_file_lines "$R/manifests/"
printf 'project:\n  name: toolsets-test\n  version: 1.0.0\n' >"$R/toolgen.yaml"
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
{
    echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$M26}}"
    echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"calculator\",\"arguments\":{\"expression\":\"percentile([1, 2, 3, 4], 25) * 4\"}}}"
} >"$TMP/req.jsonl"
names() { python3 -c "import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get('id') == 1: print(' '.join(t['name'] for t in m['result']['tools']))"; }
value() { python3 -c "import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get('id') == 2: print(m['result']['structuredContent']['value'])"; }

run "$TG" -C "$R" serve --dev --toolset calculator <"$TMP/req.jsonl"
expect_rc "serve --toolset calculator" 0
expect_eq "the toolset's tools first, then the repository's" "$(printf '%s\n' "$OUT" | names)" \
    "calculator preview_file_lines"
expect_eq "the calculator computes" "$(printf '%s\n' "$OUT" | value)" 7.0
expect_err "stderr names the toolset" "toolgen: serve: toolset calculator: 1 tool"

run "$TG" -C "$R" serve --dev --toolset no_such_set </dev/null
expect_rc "an unknown toolset" 2
expect_err "names it and the installed ones" "no built-in toolset 'no_such_set' (installed: calculator"
run "$TG" -C "$R" serve --dev --toolset ../../etc </dev/null
expect_rc "a toolset name is not a path" 2

# serve.toolsets in toolgen.yaml does what --toolset does
printf 'serve:\n  toolsets: [calculator]\n' >>"$R/toolgen.yaml"
run "$TG" -C "$R" serve --dev <"$TMP/req.jsonl"
expect_rc "serve.toolsets" 0
expect_eq "serve.toolsets: the calculator is served" "$(printf '%s\n' "$OUT" | value)" 7.0
sed -i 's/toolsets: \[calculator\]/toolsets: calculator/' "$R/toolgen.yaml"
run "$TG" -C "$R" serve --dev </dev/null
expect_rc "serve.toolsets not a list" 2
expect_err "names the key" "/serve/toolsets"
sed -i '/^serve:/,$d' "$R/toolgen.yaml"

# a repository tool of the same name is hidden while the toolset is served
mkdir -p "$R/manifests/calculator"
sed 's/@NAME@/calculator/g' tests/synthetic_tool.yaml >"$R/manifests/calculator/tool.manifest.yaml"
run "$TG" -C "$R" serve --dev --toolset calculator <"$TMP/req.jsonl"
expect_eq "the toolset's calculator hides the repository's" "$(printf '%s\n' "$OUT" | value)" 7.0
rm -r "$R/manifests/calculator"

# the code toolset over MCP: a failing program is an error result that still carries its
# output, error guidance and resource analysis; a chart comes back as an image and a link
python3 - "$TMP/code.jsonl" <<'PY'
import json, sys
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
calls = [{"code": "print('before')\nprint(undefined_name)"},
         {"code": "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
                  "plt.plot([1, 2, 3])\nplt.savefig('line.png')", "packages": ["matplotlib"]}]
with open(sys.argv[1], "w") as f:
    for i, args in enumerate(calls, 1):
        f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "_meta": meta, "name": "python_execute", "arguments": args}}) + "\n")
PY
run "$TG" -C "$R" serve --dev --toolset code <"$TMP/code.jsonl"
expect_rc "serve --toolset code" 0
J=$(printf '%s\n' "$OUT" | python3 -c "import json,sys
out = {}
for l in sys.stdin:
    m = json.loads(l); r = m['result']; sc = r.get('structuredContent') or {}
    out[m['id']] = [r.get('isError'), sc.get('stdout'), (sc.get('error_guidance') or {}).get('error_type'),
                    sorted({c['type'] for c in r['content']})]
print(json.dumps(out))")
expect_eq "a failing program: an error result with its output and guidance" \
    "$(printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin)['1'][:3])")" \
    "[True, 'before\\n', 'NameError']"
expect_eq "a chart: an image block and a link to the file" \
    "$(printf '%s' "$J" | python3 -c "import json,sys; v=json.load(sys.stdin)['2']; print(v[0], 'image' in v[3], 'resource_link' in v[3])")" \
    "False True True"

# a one-shot node_execute program under serve runs in the pool worker serve started for it
# (docs/sandbox.md#the-warm-pool): the call waits for that worker, whose call folder is
# /work/c0 (a cold call's is /work); its failure is reported as a cold call reports it
run python3 - "$TG" "$R" <<'PY'
import json, subprocess, sys
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
p = subprocess.Popen([sys.argv[1], "-C", sys.argv[2], "serve", "--dev", "--toolset", "code"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "_meta": meta, "name": "node_execute",
    "arguments": {"code": "console.log(process.cwd());\nmissing();"}}}) + "\n")
p.stdin.flush()
r = json.loads(p.stdout.readline())["result"]
p.stdin.close()
p.wait()
sc = r.get("structuredContent") or {}
print(json.dumps([r.get("isError"), sc.get("stdout"), sc.get("returnCode"),
                  (sc.get("error_guidance") or {}).get("message"), sc.get("stderr")]))
PY
expect_rc "serve --toolset code: node_execute" 0
expect_eq "node_execute under serve: run in a pool worker, failing as a cold call does" \
    "$(printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)[:4])")" \
    "[True, '/work/c0\\n', 1, 'ReferenceError: missing is not defined (line 2)']"
expect_out "node_execute under serve: the program's frame in stderr" "([code]:2:1)"

NPM=tests/npm/node_modules
for sdk in 1 2; do
    pkg=sdk
    [ $sdk = 2 ] && pkg=client
    if [ ! -d "$NPM/@modelcontextprotocol/$pkg" ]; then
        RC=0 OUT="" ERR=""
        bad "$NPM/@modelcontextprotocol/$pkg is missing: run 'make deps'"
        continue
    fi
    run env TG="$TG" REPO="$R" SDK=$sdk node tests/cli/toolsets.mjs
    expect_rc "the official client $sdk.x" 0
    expect_out "the official client $sdk.x ran" "client: "
    printf '%s\n' "$OUT" | grep FAIL >&2
done
finish cli-toolsets
