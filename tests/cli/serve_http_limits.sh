#!/bin/sh
# Streamable HTTP under pressure (docs/mcp.md#streamable-http): a legitimate client is served
# while 500 connections are open that send nothing or a byte at a time; legacy sessions are
# capped (initialize beyond the cap gets 503 until one ends) and end when idle; a request that
# reuses the id of one still in flight in its session is refused. Waits are for events, each
# bounded by a generous limit that only guards against a hang.
. tests/lib.sh
chmod 755 "$TMP"
R=$TMP/repo
mkdir -p "$R/manifests" "$R/data"
echo 'a,b' >"$R/data/x.csv"
printf 'project:\n  name: limits-test\n  version: 1.0.0\n' >"$R/toolgen.yaml"
mkdir -p "$R/manifests/fast_tool" "$R/manifests/slow_tool"
sed -e 's/@NAME@/fast_tool/g' tests/synthetic_tool.yaml >"$R/manifests/fast_tool/tool.manifest.yaml"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" tests/synthetic_tool.yaml \
    >"$R/manifests/slow_tool/tool.manifest.yaml"

# start NAME ARGS...: serve R over HTTP; sets pid_NAME and port_NAME
start() {
    name=$1
    shift
    "$TG" -C "$R" serve --dev --http 127.0.0.1:0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    eval "pid_$name=\$!"
    p="" i=0
    while [ -z "$p" ] && [ $i -lt 100 ]; do
        sleep 0.1
        p=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$TMP/$name.err")
        i=$((i + 1))
    done
    eval "port_$name=$p"
}
start a                   # the defaults
start b --session-idle 1  # sessions that end after a second without a request
trap 'kill $pid_a $pid_b 2>/dev/null; rm -rf "$TMP"' EXIT
run python3 - "$port_a" "$port_b" <<'PY'
import http.client, json, socket, sys, threading, time
port, port_b = int(sys.argv[1]), int(sys.argv[2])
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
HANG = 60  # seconds: a bound against a hang, not a speed claim
def post(msg, session=None, modern=True, timeout=HANG, to=None):
    h = {"Content-Type": "application/json", "Accept": "application/json"}
    if session:
        h["Mcp-Session-Id"] = session
    if modern:
        h.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": msg["method"]})
        if msg["method"] == "tools/call":
            h["Mcp-Name"] = msg["params"]["name"]
        msg = dict(msg, params=dict(msg.get("params", {}), _meta=META))
    c = http.client.HTTPConnection("127.0.0.1", to or port, timeout=timeout)
    c.request("POST", "/mcp", json.dumps(msg), h)
    r = c.getresponse()
    raw = r.read()
    c.close()
    return r.status, (json.loads(raw) if raw else None), r.getheader("Mcp-Session-Id")
out = {}
# 250 idle connections and 250 that dribble a request line a byte at a time
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(250)]
slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(250)]
stop = threading.Event()
def dribble():
    while not stop.is_set():
        for s in slow:
            try:
                s.send(b"P")
            except OSError:
                pass
        stop.wait(0.5)
t = threading.Thread(target=dribble)
t.start()
st, body, _ = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
out["list_served"] = st == 200 and len(body["result"]["tools"]) == 2
st, body, _ = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "fast_tool", "arguments": {"file_path": "data/x.csv"}}})
out["call_served"] = st == 200 and body["result"].get("isError") is False
stop.set()
t.join()
for s in idle + slow:
    s.close()
def initialize(to=None):
    return post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}, modern=False, to=to)
# idle expiry (--session-idle 1): a session that sends nothing for longer ends (404); each
# probe is spaced beyond the idle time, as a probe renews a session that is still alive
st, _, sid = initialize(port_b)
deadline = time.time() + HANG
gone = False
while not gone and time.time() < deadline:
    time.sleep(1.5)
    st, _, _ = post({"jsonrpc": "2.0", "id": 9, "method": "ping"}, session=sid, modern=False,
                    to=port_b)
    gone = st == 404
out["idle_session_ends"] = gone
# legacy sessions: the cap, then one freed by DELETE
sessions, refused = [], None
for _ in range(1100):
    st, _, sid = initialize()
    if st != 200:
        refused = st
        break
    sessions.append(sid)
out["sessions_before_cap"] = len(sessions)
out["refused_status"] = refused
c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
c.request("DELETE", "/mcp", headers={"Mcp-Session-Id": sessions[0]})
c.getresponse().read()
c.close()
st, _, _ = initialize()
out["after_delete"] = st
# a request reusing the id of one still in flight in its session: refused (-32600)
st, _, sid = initialize(port_b)
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session=sid, modern=False,
     to=port_b)
slow = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
    "name": "slow_tool", "arguments": {"file_path": "data/x.csv"}, "_meta": {"progressToken": "t"}}}
c = http.client.HTTPConnection("127.0.0.1", port_b, timeout=HANG)
c.request("POST", "/mcp", json.dumps(slow), {"Content-Type": "application/json",
          "Accept": "application/json, text/event-stream", "Mcp-Session-Id": sid})
r = c.getresponse()
# its first events: the priming one (an id, no data), then the call's first notification
first = b""
while b"data: {" not in first:
    line = r.readline()
    if not line:
        break
    first += line
started = b"data: {" in first  # the call runs: it is in flight
st, body, _ = post(dict(slow, params={"name": "slow_tool",
                                      "arguments": {"file_path": "data/x.csv"}}),
                   session=sid, modern=False, to=port_b)
out["duplicate_refused"] = started and st == 400 and body["error"]["code"] == -32600
c.close()  # a legacy stream may be resumed: the slow call runs on until the server stops
print(json.dumps(out))
PY
expect_rc "the client ran" 0
J=$OUT
f() { printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
expect_eq "tools/list is answered while 500 connections idle or dribble" "$(f list_served)" True
expect_eq "a call is answered meanwhile" "$(f call_served)" True
expect_eq "1024 legacy sessions at most" "$(f sessions_before_cap)" 1024
expect_eq "initialize beyond the cap: 503" "$(f refused_status)" 503
expect_eq "a DELETE makes room" "$(f after_delete)" 200
expect_eq "an idle session ends" "$(f idle_session_ends)" True
expect_eq "a duplicate id in flight is refused" "$(f duplicate_refused)" True
kill $pid_a $pid_b
wait $pid_a $pid_b 2>/dev/null
finish cli-serve-http-limits
