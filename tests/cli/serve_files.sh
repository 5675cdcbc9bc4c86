#!/bin/sh
# The files a call writes (docs/mcp.md#files-a-call-wrote) belong to the client whose call
# wrote them: over HTTP another legacy session neither lists nor reads them; a stateless
# request's files are listed to no one and read through their unguessable URI; and a file name
# that is not UTF-8 never puts invalid JSON on the wire (stdio and HTTP).
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/repo
mkdir -p "$R/manifests/writer" "$R/data"
echo 'a,b' >"$R/data/x.csv"
printf 'project:\n  name: files-test\n  version: 1.0.0\n' >"$R/toolgen.yaml"
# a command tool that writes a file with a good name and one whose name is not UTF-8
sed -e 's/@NAME@/writer/g' \
    -e "s|^  argv: .*|  argv: [python3, -c, \"open(b'bad\\\\\\\\xff\\\\\\\\nname.txt', 'w').write('x'); open('good.txt', 'w').write('y'); print(open('{file_path}').read(), end='')\"]|" \
    tests/synthetic_tool.yaml >"$R/manifests/writer/tool.manifest.yaml"
run "$TG" -C "$R" lint
expect_rc "the writer tool lints" 0

M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
CALL='"method":"tools/call","params":{"name":"writer","arguments":{"file_path":"data/x.csv"}'
{
    echo "{\"jsonrpc\":\"2.0\",\"id\":1,$CALL,$M26}}"
    echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/list\",\"params\":{$M26}}"
} >"$TMP/req.jsonl"
"$TG" -C "$R" serve --dev <"$TMP/req.jsonl" >"$TMP/out.bin" 2>"$TMP/err"
check_utf8() { python3 -c "import json,sys
n = 0
for line in open(sys.argv[1], 'rb'):
    json.loads(line.decode('utf-8', 'strict')); n += 1
print(n)" "$1" 2>&1; }
expect_eq "stdio: every line is valid UTF-8 JSON" "$(check_utf8 "$TMP/out.bin")" 2
# (the listing is answered while the call runs: only the call's reply is looked at here)
run python3 -c "import json,sys
for line in open(sys.argv[1], 'rb'):
    m = json.loads(line)
    if m.get('id') == 1:
        print([c['uri'].rsplit('/', 1)[1] for c in m['result']['content'] if c['type'] == 'resource_link'])" "$TMP/out.bin"
expect_eq "stdio: the call links its one UTF-8-named file" "$OUT" "['good.txt']"

# -- HTTP: two legacy sessions and stateless requests
"$TG" -C "$R" serve --dev --http 127.0.0.1:0 >"$TMP/http.out" 2>"$TMP/http.err" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
port="" i=0
while [ -z "$port" ] && [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$TMP/http.err")
    i=$((i + 1))
done
run python3 - "http://127.0.0.1:$port/mcp" <<'PY'
import http.client, json, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
def post(msg, session=None, modern=False):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        h["Mcp-Session-Id"] = session
    if modern:
        h.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": msg["method"]})
        if msg["method"] == "tools/call":
            h["Mcp-Name"] = msg["params"]["name"]
        if msg["method"] == "resources/read":
            h["Mcp-Name"] = msg["params"]["uri"]
        msg["params"]["_meta"] = META
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    c.request("POST", u.path, json.dumps(msg), h)
    r = c.getresponse()
    raw = r.read()
    body = json.loads(raw.decode("utf-8", "strict")) if raw else None  # strict: valid UTF-8
    return body, r.getheader("Mcp-Session-Id")
def session():
    _, sid = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid
call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "writer", "arguments": {"file_path": "data/x.csv"}}}
def artifact_uris(result):
    return [c["uri"] for c in result["content"] if c.get("type") == "resource_link"]
def listed(sid=None, modern=False):
    r, _ = post({"jsonrpc": "2.0", "id": 3, "method": "resources/list", "params": {}}, sid, modern)
    return [x["uri"] for x in r["result"]["resources"] if x["uri"].startswith("toolgen://artifacts/")]
def readable(uri, sid=None, modern=False):
    r, _ = post({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": uri}},
                sid, modern)
    return "result" in r
a, b = session(), session()
res, _ = post(dict(call), a)
uris = artifact_uris(res["result"])
out = {"a_links": len(uris), "a_lists": sorted(listed(a)) == sorted(uris),
       "b_lists": listed(b), "a_reads": all(readable(x, a) for x in uris),
       "b_reads": any(readable(x, b) for x in uris)}
res, _ = post(dict(call, params=dict(call["params"])), modern=True)
anon = artifact_uris(res["result"])
out.update({"anon_links": len(anon), "anon_listed": listed(modern=True) + listed(b),
            "anon_read_by_uri": all(readable(x, modern=True) for x in anon)})
print(json.dumps(out))
PY
expect_rc "the HTTP client ran" 0
J=$OUT
f() { printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
expect_eq "HTTP: the call links its one UTF-8-named file" "$(f a_links)" 1
expect_eq "HTTP: its session lists it" "$(f a_lists)" True
expect_eq "HTTP: another session does not list it" "$(f b_lists)" "[]"
expect_eq "HTTP: its session reads it" "$(f a_reads)" True
expect_eq "HTTP: another session cannot read it" "$(f b_reads)" False
expect_eq "HTTP: a stateless call links its file" "$(f anon_links)" 1
expect_eq "HTTP: a stateless call's file is listed to no one" "$(f anon_listed)" "[]"
expect_eq "HTTP: read through its unguessable URI" "$(f anon_read_by_uri)" True
kill $pid
wait $pid 2>/dev/null
finish cli-serve-files
