#!/bin/sh
# Streamable HTTP beyond the basics (docs/mcp.md#streamable-http): a legacy session that never
# opened a GET stream hears of a list change on its next response (an event stream carrying the
# notification, then the reply); Mcp-Param-* headers of x-mcp-header parameters are checked
# against the body (HeaderMismatch, -32020); and a legacy call's event stream, cut while the
# call runs, is resumed with GET and Last-Event-ID: the events after that id, then the reply —
# by raw HTTP (python's http.client), and by the official SDK 1.x client through a proxy that
# cuts its call's connection (serve_http_resume.mjs). Ordered by events, not timing.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/repo
mkdir -p "$R/manifests/a_tool" "$R/manifests/gate_tool" "$R/manifests/header_tool" "$R/data" \
    "$TMP/spare"
printf 'project:\n  name: resume-test\n  version: 1.0.0\n' >"$R/toolgen.yaml"
echo 'a,b' >"$R/data/x.csv"
: >"$R/data/go"
sed 's/@NAME@/a_tool/g' tests/synthetic_tool.yaml >"$R/manifests/a_tool/tool.manifest.yaml"
sed 's/@NAME@/b_tool/g' tests/synthetic_tool.yaml >"$TMP/spare/tool.manifest.yaml"
# gate_tool runs until data/go has content
sed -e 's/@NAME@/gate_tool/g' \
    -e "s/^  argv: .*/  argv: [sh, -c, 'until [ -s \"\$1\" ]; do sleep 0.05; done; cat -- \"\$1\"', gate, '{file_path}']/" \
    tests/synthetic_tool.yaml >"$R/manifests/gate_tool/tool.manifest.yaml"
cp -r tests/mcp/conformance-repo/manifests/test_header_param/. "$R/manifests/header_tool/"
sed -i 's/^name: test_header_param/name: header_tool/' "$R/manifests/header_tool/tool.manifest.yaml"
run "$TG" -C "$R" lint
expect_rc "the tools lint" 0

"$TG" -C "$R" serve --dev --http 127.0.0.1:0 --progress-ms 200 >"$TMP/http.out" 2>"$TMP/http.err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$TMP"' EXIT
serve_port "$TMP/http.err" $pid
port=$PORT
[ -n "$port" ] || setup_failed "serve --http printed no port: $(cat "$TMP/http.err")"

run python3 - "http://127.0.0.1:$port/mcp" "$R" "$TMP/spare" <<'PY'
import http.client, json, os, shutil, sys, time, urllib.parse
HANG_S = int(os.environ.get("HANG_S", "300"))  # tests/lib.sh: the bound on a hang
url, repo, spare = sys.argv[1], sys.argv[2], sys.argv[3]
u = urllib.parse.urlsplit(url)
fails = 0
def check(cond, name, why=""):
    global fails
    if not cond:
        fails += 1
        print(f"FAIL {name}: {why}")
def request(method, msg=None, headers=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=HANG_S)
    c.request(method, u.path, json.dumps(msg) if msg is not None else None, h)
    return c, c.getresponse()
def events(raw):
    out = []
    for block in raw.decode().split("\n\n"):
        ev = {k: v for k, _, v in (l.partition(": ") for l in block.split("\n") if l and not l.startswith(":"))}
        if "data" in ev:
            ev["data"] = json.loads(ev["data"]) if ev["data"] else None
            out.append(ev)
    return out
def post(msg, session=None, extra=None):
    h = dict(extra or {})
    if session:
        h["Mcp-Session-Id"] = session
    c, r = request("POST", msg, h)
    raw = r.read()
    ctype = r.getheader("Content-Type") or ""
    body = events(raw) if ctype.startswith("text/event-stream") else (json.loads(raw) if raw else None)
    return r.status, ctype, body, r.getheader("Mcp-Session-Id")

# -- a legacy session without a GET stream hears of a list change on its next response
_, _, _, sid = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
shutil.copytree(spare, os.path.join(repo, "manifests", "b_tool"))
seen = None
for i in range(HANG_S * 10):  # the change is seen by the server's next checks: wait for it
    status, ctype, body, _ = post({"jsonrpc": "2.0", "id": 100 + i, "method": "ping"}, sid)
    if ctype.startswith("text/event-stream"):
        seen = body
        break
    time.sleep(0.1)
check(seen is not None, "the next response after the change is an event stream")
methods = [e["data"].get("method") or ("reply %s" % e["data"].get("id")) for e in seen or []]
check(methods[:1] == ["notifications/tools/list_changed"] and methods[-1].startswith("reply"),
      "the missed list_changed, then the reply", methods)
status, ctype, body, _ = post({"jsonrpc": "2.0", "id": 999, "method": "ping"}, sid)
check(ctype.startswith("application/json"), "owed once: the following response is plain JSON", ctype)

# -- Mcp-Param-* headers of x-mcp-header parameters (2026-07-28)
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
def call26(args, param=None):
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "header_tool"}
    if param is not None:
        h["Mcp-Param-Region"] = param
    return post({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "_meta": META, "name": "header_tool", "arguments": args}}, extra=h)
status, _, body, _ = call26({"region": "eu-west1"}, "eu-west1")
check(status == 200 and body["result"]["isError"] is False, "matching Mcp-Param-Region", body)
status, _, body, _ = call26({"region": "Hello"}, "=?base64?SGVsbG8=?=")
check(status == 200 and body["result"]["isError"] is False, "a Base64 value decoded", body)
for value, why in ((None, "missing"), ("us-east1", "different"), ("=?base64?SGVsbG8?=", "bad Base64")):
    status, _, body, _ = call26({"region": "Hello" if why == "bad Base64" else "eu-west1"}, value)
    check(status == 400 and body["error"]["code"] == -32020 and "Mcp-Param-Region" in body["error"]["message"],
          f"HeaderMismatch: {why}", (status, body))
# -- a legacy call's event stream, cut while the call runs, resumed with GET and Last-Event-ID
def read_event(resp):
    ev = {}
    while True:
        line = resp.readline()
        if not line:
            return None
        line = line.decode().rstrip("\n")
        if not line:
            if ev.get("data"):  # (a priming event has an id and empty data)
                ev["data"] = json.loads(ev["data"])
                return ev
            ev = {}
            continue
        if line.startswith(":"):
            continue
        k, _, v = line.partition(": ")
        ev[k] = v
call = {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {
    "name": "gate_tool", "arguments": {"file_path": "data/go"}, "_meta": {"progressToken": "p"}}}
c, r = request("POST", call, {"Mcp-Session-Id": sid})
check(r.getheader("Content-Type", "").startswith("text/event-stream"), "the call answers on a stream")
first = read_event(r)
check(first and first.get("id") and first["data"].get("method") == "notifications/progress",
      "its events carry ids", first)
c.sock.close()  # the connection is lost while the call runs
c2, r2 = request("GET", None, {"Mcp-Session-Id": sid, "Last-Event-ID": first["id"]})
check(r2.status == 200, "GET with Last-Event-ID resumes the stream", r2.status)
nxt = read_event(r2)  # a progress event the call sent after the last one the client had
check(nxt and nxt["data"].get("method") == "notifications/progress" and nxt["id"] != first["id"]
      and nxt["id"].split("-")[0] == first["id"].split("-")[0], "the events after it, on the same stream",
      (first, nxt))
with open(os.path.join(repo, "data", "go"), "w") as f:
    f.write("a,b\n")
reply = None
while True:
    ev = read_event(r2)
    if ev is None:
        break
    if ev["data"].get("id") == 42:
        reply = ev
check(reply and reply["data"]["result"]["isError"] is False, "the call's reply comes on the resumed stream",
      reply)
status, _, body, _ = post({"jsonrpc": "2.0", "id": 43, "method": "ping"}, sid)
check(status == 200, "the session goes on", status)
c3, r3 = request("GET", None, {"Mcp-Session-Id": sid, "Last-Event-ID": "999-1"})
body = json.loads(r3.read())
check(r3.status == 404 and "Last-Event-ID" in body["error"]["message"], "an unknown event id: 404", body)
print(f"resume: {fails} failed")
PY
expect_rc "the raw client" 0
expect_out "the raw client ran" "resume: 0 failed"
printf '%s\n' "$OUT" | grep FAIL >&2

# the official SDK 1.x client resumes a stream a proxy cut (serve_http_resume.mjs)
NPM=tests/npm/node_modules
: >"$R/data/go"
run env PATH="$(pwd)/$NPM/node/bin:$PATH" SERVER_URL="http://127.0.0.1:$port/mcp" GO="$R/data/go" \
    node tests/cli/serve_http_resume.mjs
expect_rc "the SDK client resumes" 0
expect_out "the SDK client ran" "client: "
printf '%s\n' "$OUT" | grep FAIL >&2
n=$(grep '"tool":"gate_tool"' "$TMP/http.err" | grep -c '"status":"cancelled"')
expect_eq "no call was cancelled by a lost stream" "$n" 0

kill -TERM $pid
wait $pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM" 0
run cat "$TMP/http.err"
expect_not_out "no sanitizer report" "Sanitizer"
finish cli-serve-http-resume
