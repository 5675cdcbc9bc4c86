#!/bin/sh
# toolgen serve --http: Streamable HTTP at /mcp for both protocol eras (headers, Origin, sessions,
# body cap, SSE progress), the official TypeScript SDK (1.x) over HTTP, every message the server
# wrote validated against its revision's schema, and several calls in flight at once over HTTP
# and over stdio: a slow tool never blocks a fast one, and --max-concurrency 1 queues them.
# Ordering is asserted by events (replies, log lines, live processes), never by timing.
. tests/lib.sh
. tests/mcp/lib.sh

NPM=tests/npm/node_modules
REQ="python3 tests/cli/http_req.py"
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

# A repository with a tool that runs until it is killed and a fast one.
REPO="$TMP/repo"
mkdir -p "$REPO/manifests/slow_tool" "$REPO/manifests/fast_tool" "$REPO/data"
echo 'a,b' >"$REPO/data/x.csv"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" tests/synthetic_tool.yaml \
    >"$REPO/manifests/slow_tool/tool.manifest.yaml"
sed -e 's/@NAME@/fast_tool/g' tests/synthetic_tool.yaml >"$REPO/manifests/fast_tool/tool.manifest.yaml"
SLOW_CALL='"method":"tools/call","params":{"name":"slow_tool","arguments":{"file_path":"data/x.csv"}'
FAST_CALL='"method":"tools/call","params":{"name":"fast_tool","arguments":{"file_path":"data/x.csv"}'

# start_http NAME ARGS...: serve REPO over HTTP on a free port; sets serve_pid and URL
start_http() {
    name=$1
    shift
    "$TG" -C "$REPO" serve --dev --http 127.0.0.1:0 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    serve_pid=$!
    serve_port "$TMP/$name.err" "$serve_pid"
    port=$PORT
    URL="http://127.0.0.1:$port/mcp"
    [ -n "$port" ] || setup_failed "$name: serve --http printed no port: $(cat "$TMP/$name.err")"
}

# post NAME REV BODY [HEADER]...: POST BODY to URL, recording the messages of revision REV
post() {
    name=$1 rev=$2 body=$3
    shift 3
    run $REQ POST "$URL" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' "$@" -d "$body" --messages "$TMP/m-$rev.jsonl"
    STATUS=$(printf '%s\n' "$OUT" | head -n 1)
}
# modern NAME METHOD BODY-PARAMS [HEADER]...: a 2026-07-28 request with the right headers
modern() {
    m_name=$1 m_method=$2 m_params=$3
    shift 3
    post "$m_name" 2026-07-28 "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"$m_method\",\"params\":{$M26$m_params}}" \
        -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $m_method" "$@"
}

# ---- the protocol over HTTP -------------------------------------------------------------------
start_http proto --progress-ms 100
touch "$TMP/m-2026-07-28.jsonl" "$TMP/m-2025-11-25.jsonl"

modern discover server/discover ""
expect_eq "2026: server/discover is 200" "$STATUS" 200
expect_out "2026: discover result" '"supportedVersions":["2026-07-28"]'
expect_not_out "2026: no session" "mcp-session-id"
modern list tools/list ""
expect_out "2026: tools/list" '"name":"fast_tool"'
modern call tools/call ',"name":"fast_tool","arguments":{"file_path":"data/x.csv"}' -H 'Mcp-Name: fast_tool'
expect_out "2026: a call as JSON" '"structuredContent":{"text":"a,b'
expect_out "2026: JSON content type" 'content-type: application/json'
modern b64 tools/call ',"name":"fast_tool","arguments":{"file_path":"data/x.csv"}' \
    -H 'Mcp-Name: =?base64?ZmFzdF90b29s?='
expect_eq "2026: a base64 Mcp-Name is decoded" "$STATUS" 200
M26P='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"t1"}'
post progress 2026-07-28 "{\"jsonrpc\":\"2.0\",\"id\":7,$FAST_CALL,$M26P}}" \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: fast_tool'
expect_out "2026: progress asks for an event stream" 'content-type: text/event-stream'
expect_out "2026: progress starts" '"progressToken":"t1","progress":0,"message":"started"'
expect_out "2026: progress finishes" '"message":"finished"'
expect_out "2026: the reply ends the stream" '"id":7,"result":{"content"'
modern mismatch tools/call ',"name":"fast_tool","arguments":{}' -H 'Mcp-Name: slow_tool'
expect_eq "2026: Mcp-Name mismatch is 400" "$STATUS" 400
expect_out "2026: HeaderMismatch" '"code":-32020'
expect_out "2026: the error names the header" "Mcp-Name header value 'slow_tool'"
post noname 2026-07-28 "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{$M26}}" \
    -H 'MCP-Protocol-Version: 2026-07-28'
expect_eq "2026: a missing Mcp-Method is 400" "$STATUS" 400
expect_out "2026: missing header named" 'the Mcp-Method header is required'
post version 2026-07-28 "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{$M26}}" \
    -H 'MCP-Protocol-Version: 2025-11-25' -H 'Mcp-Method: tools/list'
expect_eq "2026: MCP-Protocol-Version must match the body" "$STATUS" 400
modern ping ping ""
expect_eq "2026: an unknown method is 404" "$STATUS" 404
expect_out "2026: ... with -32601 and the id" '"id":7,"error":{"code":-32601'
post nometa 2026-07-28 '{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{}}' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover'
expect_eq "2026: a request without _meta is 400" "$STATUS" 400
expect_out "2026: ... -32602 with its id" '"id":10,"error":{"code":-32602'

# legacy era: a session from initialize, required afterwards, ended by DELETE
post init 2025-11-25 "$INIT"
expect_eq "legacy: initialize is 200" "$STATUS" 200
SID=$(printf '%s\n' "$OUT" | sed -n 's/^mcp-session-id: \([0-9a-f]*\).*/\1/p')
# hex: a random nonce and the session's state, signed (docs/scale.md#legacy-sessions)
if [ ${#SID} -gt 64 ]; then ok; else bad "legacy: initialize gives a session id ($SID)"; fi
post initialized 2025-11-25 '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $SID"
expect_eq "legacy: a notification is 202" "$STATUS" 202
post list 2025-11-25 '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' -H "Mcp-Session-Id: $SID" \
    -H 'MCP-Protocol-Version: 2025-11-25'
expect_out "legacy: tools/list in the session" '"id":2,"result":{"tools"'
post call 2025-11-25 "{\"jsonrpc\":\"2.0\",\"id\":3,$FAST_CALL,\"_meta\":{\"progressToken\":5}}}" \
    -H "Mcp-Session-Id: $SID"
expect_out "legacy: progress on the call's stream" '"progressToken":5,"progress":0'
expect_out "legacy: the call's result" '"id":3,"result":{"content"'
post nosession 2025-11-25 '{"jsonrpc":"2.0","id":4,"method":"tools/list"}'
expect_eq "legacy: no session id is 400" "$STATUS" 400
expect_out "legacy: ... saying how to start" '"id":4,"error":{"code":-32602'
post unknown 2025-11-25 '{"jsonrpc":"2.0","id":5,"method":"tools/list"}' -H 'Mcp-Session-Id: 0123'
expect_eq "legacy: an unknown session is 404" "$STATUS" 404
post badversion 2025-11-25 '{"jsonrpc":"2.0","id":6,"method":"tools/list"}' -H "Mcp-Session-Id: $SID" \
    -H 'MCP-Protocol-Version: 1999-01-01'
expect_eq "legacy: an unsupported MCP-Protocol-Version is 400" "$STATUS" 400
run $REQ DELETE "$URL" -H "Mcp-Session-Id: $SID"
expect_eq "legacy: DELETE ends the session" "$(printf '%s\n' "$OUT" | head -n 1)" 200
post after 2025-11-25 '{"jsonrpc":"2.0","id":7,"method":"tools/list"}' -H "Mcp-Session-Id: $SID"
expect_eq "legacy: the ended session is 404" "$STATUS" 404

# the transport itself
post parse 2025-11-25 '{"jsonrpc":'
expect_eq "malformed JSON is 400" "$STATUS" 400
expect_out "... with -32700" '"code":-32700'
run $REQ POST "$URL" --body-bytes 5000000
expect_eq "a body over the cap is 413" "$(printf '%s\n' "$OUT" | head -n 1)" 413
expect_out "... saying the cap" 'longer than 4194304 bytes'
run $REQ GET "$URL"
expect_eq "GET is 405 (no server-initiated stream)" "$(printf '%s\n' "$OUT" | head -n 1)" 405
expect_out "... with Allow" 'allow: POST, DELETE'
run $REQ POST "http://127.0.0.1:$port/other" -d '{}'
expect_eq "another path is 404" "$(printf '%s\n' "$OUT" | head -n 1)" 404
run $REQ POST "$URL" -H 'Origin: http://evil.example.com' -d "$INIT"
expect_eq "a foreign Origin is 403 (DNS rebinding)" "$(printf '%s\n' "$OUT" | head -n 1)" 403
expect_out "... saying what to do" '--allow-origin'
run $REQ POST "$URL" --raw-host "evil.example.com:$port" -d "$INIT"
expect_eq "a foreign Host is 403 (DNS rebinding)" "$(printf '%s\n' "$OUT" | head -n 1)" 403
post origin 2025-11-25 "$INIT" -H "Origin: http://localhost:$port"
expect_eq "a loopback Origin is accepted" "$STATUS" 200
kill -TERM $serve_pid
wait $serve_pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM" 0
validate_log "HTTP 2026-07-28 messages" 2026-07-28 "$TMP/m-2026-07-28.jsonl"
validate_log "HTTP legacy messages" 2025-11-25 "$TMP/m-2025-11-25.jsonl"
run grep -c '"method":"tools/call"' "$TMP/proto.err"
if [ "$OUT" -ge 4 ]; then ok; else bad "a log line per call over HTTP (got $OUT)"; fi
run grep -c 'data/x.csv' "$TMP/proto.err"
expect_eq "the HTTP log holds no arguments" "$OUT" 0

run env TOOLGEN_SERVE_TOKEN=a-token-long-enough-here "$TG" -C "$REPO" serve --dev --http 256.0.0.1:0
expect_rc "an address that cannot be bound" 3
expect_err "... is named" "256.0.0.1"

# ---- concurrency over HTTP: a fast call is answered while a slow one runs ---------------------
start_http conc --max-concurrency 2
$REQ POST "$URL" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: slow_tool' -d "{\"jsonrpc\":\"2.0\",\"id\":1,$SLOW_CALL,$M26}}" >"$TMP/slow.http" 2>&1 &
slow_pid=$!
# the slow call's own process (its `sleep`), not any child: warm workers start with the server
slow="" children=""
slow_runs() {
    slow=$(descendant_named "$serve_pid" sleep)
    children="$(children_of "$serve_pid") $slow"
    [ -n "$slow" ]
}
wait_for slow_runs
if [ -n "$slow" ]; then ok; else bad "HTTP: the slow call's sandbox never started"; fi
modern fast tools/call ',"name":"fast_tool","arguments":{"file_path":"data/x.csv"}' -H 'Mcp-Name: fast_tool'
expect_out "HTTP: the fast call is answered while the slow one runs" '"structuredContent":{"text":"a,b'
if kill -0 "$slow" 2>/dev/null; then ok; else bad "HTTP: the slow call was no longer running"; fi
kill -TERM $serve_pid
wait $serve_pid
RC=$?
expect_rc "HTTP: SIGTERM with a call in flight ends cleanly" 0
wait $slow_pid
run cat "$TMP/slow.http"
expect_out "HTTP: the interrupted call gets 503" "503"
left=""
for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
expect_eq "HTTP: SIGTERM kills the call's processes (and the server's other children)" "$left" ""

# ---- concurrency over stdio -------------------------------------------------------------------
# start_stdio NAME ARGS...: serve REPO on a FIFO held open on fd 3; sets serve_pid
start_stdio() {
    name=$1
    shift
    rm -f "$TMP/in"
    mkfifo "$TMP/in"
    "$TG" -C "$REPO" serve --dev "$@" <"$TMP/in" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    serve_pid=$!
    exec 3>"$TMP/in"
}
replied() { grep -q "\"id\":$2,\"result\"" "$TMP/$1.out"; }

start_stdio stdio
printf '%s\n' "$INIT" "{\"jsonrpc\":\"2.0\",\"id\":2,$SLOW_CALL}}" >&3
wait_for slow_runs
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":3,$FAST_CALL}}" '{"jsonrpc":"2.0","id":4,"method":"ping"}' >&3
wait_for replied stdio 3
run cat "$TMP/stdio.out"
expect_out "stdio: the fast call is answered while the slow one runs" '"id":3,"result"'
expect_not_out "stdio: the slow call has no reply yet" '"id":2,'
if kill -0 "$slow" 2>/dev/null; then ok; else bad "stdio: the slow call was no longer running"; fi
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}' >&3
exec 3>&-
wait $serve_pid
RC=$?
expect_rc "stdio: serve ends at the end of stdin" 0
run cat "$TMP/stdio.out"
expect_not_out "stdio: the cancelled slow call gets no reply" '"id":2,'
expect_out "stdio: ping answered" '"id":4,"result"'
validate_log "stdio concurrent session" 2025-11-25 "$TMP/stdio.out"

# --max-concurrency 1: the fast call waits in the queue until the slow one ends (cancelled)
start_stdio queue --max-concurrency 1
printf '%s\n' "$INIT" "{\"jsonrpc\":\"2.0\",\"id\":2,$SLOW_CALL}}" >&3
wait_for slow_runs
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":3,$FAST_CALL}}" '{"jsonrpc":"2.0","id":4,"method":"ping"}' >&3
replied_ping() { grep -q '"id":4,"result"' "$TMP/queue.out"; }
wait_for replied_ping
run cat "$TMP/queue.out"
expect_out "queue: other requests are answered while calls wait" '"id":4,"result"'
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}' >&3
wait_for replied queue 3
exec 3>&-
wait $serve_pid
run cat "$TMP/queue.out"
expect_out "queue: the queued call runs once the slot is free" '"id":3,"result"'
# in the log, the slow call ends (cancelled) before the queued one is answered
order=$(sed -n 's/.*"id":\([23]\),"method":"tools\/call".*"status":"\([a-z_]*\)".*/\1:\2/p' "$TMP/queue.err" | tr '\n' ' ')
expect_eq "queue: one call at a time, in order" "$order" "2:cancelled 3:ok "

# ---- the official SDK client over HTTP --------------------------------------------------------
if [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/sdk is missing: run 'make test-deps'"
else
    # the server the client cancels a never-ending call on (see serve_client.mjs)
    start_http sdkslow
    sdkslow_pid=$serve_pid SLOW_URL=$URL
    export SLOW_URL
    start_services # the http tools' golden calls go to stand-ins of their services
    "$TG" serve --dev --page-size 2 --http 127.0.0.1:0 >"$TMP/sdk.out" 2>"$TMP/sdk.err" &
    serve_pid=$!
    serve_port "$TMP/sdk.err" "$serve_pid"
    port=$PORT
    GOLDEN=$(ls generated/*/golden/*.request.json)
    SERVER_URL="http://127.0.0.1:$port/mcp" MESSAGES="$TMP/sdk.jsonl"
    export GOLDEN SERVER_URL MESSAGES
    run node tests/cli/serve_client.mjs
    expect_rc "the SDK client over HTTP" 0
    expect_out "the SDK client over HTTP" "client: "
    expect_not_out "the SDK client over HTTP" "FAIL"
    validate_log "SDK session over HTTP" 2025-11-25 "$TMP/sdk.jsonl"
    # the log line is written once the call's sandbox is gone, which may be after the client
    # ended: wait for it (bounded), then check it is the one line and the next call's is ok
    wait_for grep -q '"status":"cancelled"' "$TMP/sdkslow.err"
    run grep -c '"tool":"slow_tool".*"status":"cancelled"' "$TMP/sdkslow.err"
    expect_eq "HTTP: the call the client cancelled is logged as cancelled" "$OUT" 1
    wait_for grep -q '"tool":"fast_tool".*"status":"ok"' "$TMP/sdkslow.err"
    run grep -c '"tool":"fast_tool".*"status":"ok"' "$TMP/sdkslow.err"
    expect_eq "HTTP: the call after the cancelled one is logged ok" "$OUT" 1
    kill -TERM $serve_pid $sdkslow_pid
    wait $serve_pid $sdkslow_pid
fi
run cat "$TMP"/*.err
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-serve-http
