#!/bin/sh
# toolgen serve --dev --http: the tool set follows the working tree while serving, and the
# clients hear of it (docs/mcp.md#list-changes): a legacy session's GET stream gets
# notifications/tools/list_changed, a 2026-07-28 subscriptions/listen stream the notifications
# it asked for. Calls in flight when the tool set is replaced — even the tool they call taken
# away — finish with the snapshot they started with (under SANITIZE=1 this is the
# use-after-free and leak check). Then the official SDK clients over HTTP (serve_http_live.mjs).
# Ordering is asserted by events (stream contents, replies), never by timing.
. tests/lib.sh
. tests/mcp/lib.sh

NPM=tests/npm/node_modules
REQ="python3 tests/cli/http_req.py"
STREAM="python3 tests/cli/http_stream.py"
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
ACCEPT='Accept: application/json, text/event-stream'

# a_tool stays; gate_tool runs until data/go has content, and goes away while it runs; b_tool
# and c_tool come while serving
R="$TMP/repo"
mkdir -p "$R/manifests/a_tool" "$R/manifests/gate_tool" "$R/data" "$TMP/spare_b" "$TMP/spare_c"
cp toolgen.yaml "$R/"
sed 's/@NAME@/a_tool/g' tests/synthetic_tool.yaml >"$R/manifests/a_tool/tool.manifest.yaml"
sed -e 's/@NAME@/gate_tool/g' \
    -e "s/^  argv: .*/  argv: [sh, -c, 'until [ -s \"\$1\" ]; do sleep 0.05; done; cat -- \"\$1\"', gate, '{file_path}']/" \
    tests/synthetic_tool.yaml >"$R/manifests/gate_tool/tool.manifest.yaml"
sed 's/@NAME@/b_tool/g' tests/synthetic_tool.yaml >"$TMP/spare_b/tool.manifest.yaml"
sed 's/@NAME@/c_tool/g' tests/synthetic_tool.yaml >"$TMP/spare_c/tool.manifest.yaml"
: >"$R/data/go"
echo 'a,b' >"$R/data/x.csv"

streams=""
serve_pid=""
cleanup_streams() {
    for p in $streams $serve_pid; do kill "$p" 2>/dev/null; done
}
trap 'cleanup_streams; [ -n "$KEEP" ] || rm -rf "$TMP"' EXIT

# start_http NAME: serve R over HTTP on a free port; sets serve_pid and URL
start_http() {
    "$TG" -C "$R" serve --dev --http 127.0.0.1:0 --max-concurrency 6 >"$TMP/$1.out" 2>"$TMP/$1.err" &
    serve_pid=$!
    serve_port "$TMP/$1.err" "$serve_pid"
    URL="http://127.0.0.1:$PORT/mcp"
    [ -n "$PORT" ] || setup_failed "$1: serve --http printed no port: $(cat "$TMP/$1.err")"
}
# stream NAME METHOD [ARGS]...: holds an event stream open in the background into $TMP/NAME.ev
stream() {
    s_name=$1
    shift
    $STREAM "$TMP/$s_name.ev" "$@" &
    streams="$streams $!"
}
# modern METHOD PARAMS [HEADER]...: a 2026-07-28 request with the right headers
modern() {
    m_method=$1 m_params=$2
    shift 2
    run $REQ POST "$URL" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $m_method" "$@" \
        -d "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"$m_method\",\"params\":{$M26$m_params}}"
    STATUS=$(printf '%s\n' "$OUT" | head -n 1)
}
has() { grep -q "$2" "$TMP/$1.ev" 2>/dev/null; }

# ---- the streams ------------------------------------------------------------------------------
start_http live
run $REQ POST "$URL" -H 'Content-Type: application/json' -H "$ACCEPT" -d "$INIT"
SID=$(printf '%s\n' "$OUT" | sed -n 's/^mcp-session-id: \([0-9a-f]*\).*/\1/p')
expect_out "legacy: tools.listChanged over HTTP" '"tools":{"listChanged":true}'
expect_out "legacy: resources.listChanged over HTTP" '"resources":{"subscribe":false,"listChanged":true}'
modern server/discover ""
expect_out "2026: tools.listChanged over HTTP" '"tools":{"listChanged":true}'

stream get GET "$URL" -H "Mcp-Session-Id: $SID" -H 'Accept: text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-11-25'
wait_for has get '^comment'
run cat "$TMP/get.ev"
expect_out "legacy: GET with the session opens its stream" 'status 200'
run $REQ GET "$URL" -H "Mcp-Session-Id: $SID" -H 'Accept: text/event-stream'
expect_eq "legacy: a second GET stream of the session is 409" "$(printf '%s\n' "$OUT" | head -n 1)" 409
run $REQ GET "$URL" -H "Mcp-Session-Id: 0123" -H 'Accept: text/event-stream'
expect_eq "legacy: GET of an unknown session is 404" "$(printf '%s\n' "$OUT" | head -n 1)" 404
run $REQ GET "$URL" -H "Mcp-Session-Id: $SID" -H 'Accept: application/json'
expect_eq "legacy: GET that does not accept an event stream is 406" "$(printf '%s\n' "$OUT" | head -n 1)" 406
run $REQ GET "$URL" -H 'Accept: text/event-stream'
expect_eq "GET without a session is 405" "$(printf '%s\n' "$OUT" | head -n 1)" 405
expect_out "... naming subscriptions/listen for 2026-07-28 clients" 'subscriptions/listen'

LISTEN="{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\",\"params\":{$M26,\"notifications\":{\"toolsListChanged\":true,\"promptsListChanged\":true}}}"
stream listen POST "$URL" \
    -H 'Content-Type: application/json' -H "$ACCEPT" -H 'MCP-Protocol-Version: 2026-07-28' \
    -H 'Mcp-Method: subscriptions/listen' -d "$LISTEN"
wait_for has listen acknowledged
run sed -n 2p "$TMP/listen.ev"
expect_out "2026: the listen stream starts with the acknowledgement" '"method":"notifications/subscriptions/acknowledged"'
expect_out "... tagged with the subscription id" '"io.modelcontextprotocol/subscriptionId":"sub-1"'
expect_out "... honouring only what changes" '"notifications":{"toolsListChanged":true}}'
modern subscriptions/listen ''
expect_out "2026: a listen without a filter is -32602" '"id":7,"error":{"code":-32602'
expect_out "... naming what is missing" 'params.notifications'

# ---- calls in flight while the tool set is replaced -------------------------------------------
for i in 1 2 3 4; do
    M26P="\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"progressToken\":\"g$i\"}"
    stream "call$i" POST "$URL" -H 'Content-Type: application/json' -H "$ACCEPT" \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: gate_tool' \
        -d "{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{$M26P,\"name\":\"gate_tool\",\"arguments\":{\"file_path\":\"data/go\"}}}"
done
all_started() { has call1 '"started"' && has call2 '"started"' && has call3 '"started"' && has call4 '"started"'; }
wait_for all_started
if all_started; then ok; else bad "four calls of gate_tool run at once"; fi

# gate_tool goes away and b_tool comes while the four calls run
rm -r "$R/manifests/gate_tool"
cp -r "$TMP/spare_b" "$R/manifests/b_tool"
wait_for has get 'tools/list_changed'
wait_for has listen 'tools/list_changed'
run cat "$TMP/get.ev"
expect_out "legacy: list_changed on the GET stream" '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}'
expect_out "legacy: resources list_changed on the GET stream" 'notifications/resources/list_changed'
run cat "$TMP/listen.ev"
expect_out "2026: list_changed on the listen stream, with its id" '"method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}'
expect_not_out "2026: only what the subscription asked for" 'resources/list_changed'
modern tools/list ""
expect_out "2026: tools/list without a restart shows the new set" '"name":"a_tool"'
expect_out "... with b_tool" '"name":"b_tool"'
expect_not_out "... without gate_tool" '"name":"gate_tool"'
run $REQ POST "$URL" -H 'Content-Type: application/json' -H "$ACCEPT" -H "Mcp-Session-Id: $SID" \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
expect_out "legacy: tools/list in the session shows b_tool" '"name":"b_tool"'
modern tools/call ',"name":"gate_tool","arguments":{"file_path":"data/go"}' -H 'Mcp-Name: gate_tool'
expect_out "a new call of the tool that went away is refused" 'Unknown tool: gate_tool'
if has call1 '"result"' || has call2 '"result"'; then bad "the calls waited for data/go"; else ok; fi

echo go >"$R/data/go"
all_ended() { has call1 '^end' && has call2 '^end' && has call3 '^end' && has call4 '^end'; }
wait_for all_ended
for i in 1 2 3 4; do
    run cat "$TMP/call$i.ev"
    expect_out "call $i finishes with the tool it started with" "\"id\":$i,\"result\":{\"content\""
    expect_out "call $i: its result, checked against the old snapshot's output schema" '"structuredContent":{"text":"go"},"isError":false'
done

# DELETE ends the session's stream; SIGTERM ends the subscription with its result
run $REQ DELETE "$URL" -H "Mcp-Session-Id: $SID"
wait_for has get '^end'
if has get '^end'; then ok; else bad "DELETE ends the session's GET stream"; fi
kill -TERM "$serve_pid"
wait "$serve_pid"
RC=$?
serve_pid=""
expect_rc "serve ends cleanly with a listen stream open" 0
wait_for has listen '^end'
run cat "$TMP/listen.ev"
expect_out "2026: at shutdown the listen request gets its result" '"id":"sub-1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}'
grep -h '^{' "$TMP/listen.ev" "$TMP"/call*.ev >"$TMP/m-2026.jsonl"
grep -h '^{' "$TMP/get.ev" >"$TMP/m-legacy.jsonl"
validate_log "the 2026-07-28 stream messages" 2026-07-28 "$TMP/m-2026.jsonl"
validate_log "the GET stream messages" 2025-11-25 "$TMP/m-legacy.jsonl"
run grep -c '"method":"notifications/tools/list_changed".*"status":"sent"' "$TMP/live.err"
expect_eq "a log line per notification sent (GET and listen)" "$OUT" 2

# ---- the official SDK clients over HTTP -------------------------------------------------------
if [ ! -d "$NPM/@modelcontextprotocol/sdk" ] || [ ! -d "$NPM/@modelcontextprotocol/client" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/sdk or client is missing: run 'make test-deps'"
else
    start_http sdk
    run env SERVER_URL="$URL" REPO="$R" SPARE="$TMP/spare_c" node tests/cli/serve_http_live.mjs
    expect_rc "the SDK clients over HTTP" 0
    expect_out "the SDK clients ran" "client: "
    expect_not_out "the SDK clients" "FAIL"
    printf '%s\n' "$OUT" | grep FAIL >&2
    kill -TERM "$serve_pid"
    wait "$serve_pid"
    RC=$?
    serve_pid=""
    expect_rc "serve ends cleanly after the SDK clients" 0
fi
run cat "$TMP"/*.err
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-serve-http-live
