#!/bin/sh
# toolgen serve --http beyond loopback: refused to start without TOOLGEN_SERVE_TOKEN (or with a
# short one); with it, every request must carry `Authorization: Bearer TOKEN` (401 with
# WWW-Authenticate otherwise), the official SDK client connects with the header, and tool code
# does not see the token. On loopback a token that is set is asked for too (docs/mcp.md#authentication).
. tests/lib.sh

R=$TMP/repo
mkdir -p "$R/manifests/show_env" "$R/data"
echo a >"$R/data/x.csv"
cp toolgen.yaml "$R/"
sed -e 's/@NAME@/show_env/g' -e "s/^  argv: .*/  argv: [sh, -c, env, '{file_path}']/" \
    tests/synthetic_tool.yaml >"$R/manifests/show_env/tool.manifest.yaml"
TOKEN=tok-$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')

run env -u TOOLGEN_SERVE_TOKEN "$TG" -C "$R" serve --dev --http 0.0.0.0:0
expect_rc "beyond loopback without a token: refused" 2
expect_err "the refusal names the variable" "set TOOLGEN_SERVE_TOKEN"
expect_err "and the alternative" "bind to 127.0.0.1"
run env TOOLGEN_SERVE_TOKEN=short "$TG" -C "$R" serve --dev --http 0.0.0.0:0
expect_rc "a short token: refused" 2
expect_err "the refusal says why" "shorter than 16 characters"

# start ADDR: serve R on ADDR:0 with the token; sets pid and PORT
start() {
    TOOLGEN_SERVE_TOKEN=$TOKEN "$TG" -C "$R" serve --dev --http "$1:0" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    PORT=""
    wait_for port_seen || true
    [ -n "$PORT" ] || setup_failed "serve --http $1:0 printed no port: $(cat "$TMP/err")"
}
port_seen() {
    PORT=$(sed -n 's|.*listening on http://[^ ]*:\([0-9][0-9]*\)/mcp.*|\1|p' "$TMP/err")
    [ -n "$PORT" ] || ! kill -0 "$pid" 2>/dev/null
}

# the raw checks: every method, without, with a wrong and with the right token
raw() {
    python3 - "$PORT" "$TOKEN" <<'PY'
import http.client, json, sys
port, token = int(sys.argv[1]), sys.argv[2]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
def req(method, auth=None, body=None, session=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if auth is not None:
        h["Authorization"] = auth
    if session:
        h["Mcp-Session-Id"] = session
    c.request(method, "/mcp", json.dumps(body) if body else None, h)
    r = c.getresponse()
    data = r.read()
    out = (r.status, r.getheader("WWW-Authenticate"), r.getheader("Mcp-Session-Id"), data)
    c.close()
    return out
res = {}
st, www, _, body = req("POST", None, INIT)
res["none"] = st
res["www"] = www
res["says"] = "Authorization: Bearer" in json.loads(body)["error"]["message"]
res["wrong"] = req("POST", "Bearer " + token[:-1] + "x", INIT)[0]
res["other_scheme"] = req("POST", "Basic " + token, INIT)[0]
st, _, sid, _ = req("POST", "Bearer " + token, INIT)
res["right"] = st
res["lower_scheme"] = req("POST", "bearer " + token, INIT)[0]
res["get_without"] = req("GET", None, session=sid)[0]
res["delete_without"] = req("DELETE", None, session=sid)[0]
res["delete_with"] = req("DELETE", "Bearer " + token, session=sid)[0]
print(json.dumps(res))
PY
}

start 0.0.0.0
run raw
expect_rc "the raw client ran" 0
J=$OUT
f() { printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
expect_eq "no token: 401" "$(f none)" 401
expect_eq "401 names the scheme" "$(f www)" 'Bearer realm="toolgen serve"'
expect_eq "the error says what to send" "$(f says)" True
expect_eq "a wrong token: 401" "$(f wrong)" 401
expect_eq "another scheme: 401" "$(f other_scheme)" 401
expect_eq "the token: 200" "$(f right)" 200
expect_eq "the scheme in any case" "$(f lower_scheme)" 200
expect_eq "GET without the token: 401" "$(f get_without)" 401
expect_eq "DELETE without the token: 401" "$(f delete_without)" 401
expect_eq "DELETE with it ends the session" "$(f delete_with)" 200

# the official SDK (1.x) client sends the header; tool code does not see the token
cat >"$TMP/client.mjs" <<'JS'
import { pathToFileURL } from 'node:url';
const sdk = (p) => import(pathToFileURL(`${process.env.NPM}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const url = new URL(process.env.URL);
const c = new Client({ name: 'auth-test', version: '1' });
await c.connect(new StreamableHTTPClientTransport(url, {
  requestInit: { headers: { Authorization: `Bearer ${process.env.TOKEN}` } } }));
const r = await c.callTool({ name: 'show_env', arguments: { file_path: 'data/x.csv' } });
console.log(JSON.stringify({ tools: (await c.listTools()).tools.length, env: r.structuredContent.text }));
await c.close();
let refused = false;
try {
  await new Client({ name: 'no-token', version: '1' }).connect(new StreamableHTTPClientTransport(url));
} catch (e) { refused = /401|Unauthorized/i.test(String(e)); if (!refused) console.error(String(e)); }
console.log(JSON.stringify({ refused }));
JS
run env NPM="$PWD/tests/npm/node_modules" URL="http://127.0.0.1:$PORT/mcp" TOKEN="$TOKEN" \
    tests/npm/node_modules/node/bin/node "$TMP/client.mjs"
expect_rc "the SDK client ran" 0
expect_out "the SDK client with the token lists the tools" '{"tools":1'
expect_out "its call ran" 'PATH='
expect_not_out "tool code does not see the token" "$TOKEN"
expect_not_out "nor its name" "TOOLGEN_SERVE_TOKEN"
expect_out "the SDK client without it is refused with 401" '{"refused":true}'
kill "$pid"
wait "$pid" 2>/dev/null

# on loopback a token that is set is asked for as well
start 127.0.0.1
run raw
J=$OUT
expect_eq "loopback with a token set: 401 without it" "$(f none)" 401
expect_eq "loopback: 200 with it" "$(f right)" 200
kill "$pid"
wait "$pid" 2>/dev/null

finish cli-serve-http-auth
