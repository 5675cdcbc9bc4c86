#!/bin/sh
# toolgen serve over stdio: the official MCP TypeScript SDK (tests/cli/serve_client.mjs) lists
# and calls every example tool; every message the server wrote validates against the MCP
# schema of its revision (checked with toolgen validate); stdout carries protocol messages
# only; hostile input, a closed stdin in the middle of a call, usage errors.
. tests/lib.sh

NPM=tests/npm/node_modules
if [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/sdk is missing: run 'make test-deps'"
    finish cli-serve
    exit 1
fi

# the message schemas per revision, validate_log and children_of
. tests/mcp/lib.sh

# ---- the official SDK as the client --------------------------------------------------------
GOLDEN=$(ls generated/*/golden/*.request.json)
export GOLDEN
start_services # the http tools' golden calls go to stand-ins of their services
SERVER_CMD="'$TG' serve --dev --page-size 2 2>'$TMP/sdk.err' | tee '$TMP/sdk.out'"
# the server the client cancels a never-ending call on (see serve_client.mjs): a repository
# with a tool that runs until it is killed and a fast one
CREPO="$TMP/cancelrepo"
mkdir -p "$CREPO/manifests/slow_tool" "$CREPO/manifests/fast_tool" "$CREPO/data"
echo 'a,b' >"$CREPO/data/x.csv"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" tests/synthetic_tool.yaml \
    >"$CREPO/manifests/slow_tool/tool.manifest.yaml"
sed -e 's/@NAME@/fast_tool/g' tests/synthetic_tool.yaml >"$CREPO/manifests/fast_tool/tool.manifest.yaml"
SLOW_CMD="'$TG' -C '$CREPO' serve --dev 2>'$TMP/cancel.err'"
export SERVER_CMD SLOW_CMD
run node tests/cli/serve_client.mjs
expect_rc "the SDK client" 0
expect_out "the SDK client" "client: "
expect_not_out "the SDK client" "FAIL"
validate_log "SDK session" 2025-11-25 "$TMP/sdk.out"
# one log line per request on stderr, without the arguments
run grep -c '"method":"tools/call"' "$TMP/sdk.err"
if [ "$OUT" -ge 9 ]; then ok; else bad "a log line per tools/call (got $OUT)"; fi
run grep -c 'data/iris.csv' "$TMP/sdk.err"
expect_eq "the log holds no arguments" "$OUT" 0
# the log line is written once the call's sandbox is gone, which may be after the client ended:
# wait for it, then check it is the one line and the next call's is ok
wait_for grep -q '"status":"cancelled"' "$TMP/cancel.err"
run grep -c '"tool":"slow_tool".*"status":"cancelled"' "$TMP/cancel.err"
expect_eq "the call the client cancelled is logged as cancelled" "$OUT" 1
run grep -c '"tool":"fast_tool".*"status":"ok"' "$TMP/cancel.err"
expect_eq "the call after the cancelled one is logged ok" "$OUT" 1

# ---- raw messages: both eras, hostile input -------------------------------------------------
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
{
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$M26}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$M26}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/iris.csv\",\"lines\":2}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{$M26}}"
    printf '%s\n' '{"jsonrpc":"2.0","id":6,"method":"tools/list"}'
    printf '%s\n' '{"jsonrpc":"2.0","id":7,"method":' 'garbage' '[]'
    printf '{"jsonrpc":"2.0","id":8,"method":"ping","x":"\377"}\n'
    printf '%s\n' '{"jsonrpc":"2.0","id":"a\ud800","method":"ping"}'
    head -c 3000 /dev/zero | tr '\0' 'x'; printf '\n'
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"server/discover\",\"params\":{$M26}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"resources/list\",\"params\":{$M26}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"resources/read\",\"params\":{$M26,\"uri\":\"toolgen://generated/preview_file_lines/output.schema.json\"}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"resources/templates/list\",\"params\":{$M26}}"
} >"$TMP/raw.in"
run "$TG" serve --dev --max-message 2000 <"$TMP/raw.in"
expect_rc "serve ends cleanly at the end of stdin" 0
printf '%s\n' "$OUT" >"$TMP/raw.out"
validate_log "raw 2026-07-28 session" 2026-07-28 "$TMP/raw.out"
run grep -c . "$TMP/raw.out"
expect_eq "one reply per request" "$OUT" 16
run cat "$TMP/raw.out"
expect_out "discover" '"supportedVersions":["2026-07-28"]'
expect_out "list results are cacheable" '"ttlMs":'
expect_out "a 2026 call result" '"id":3,"result":{"content"'
expect_out "unsupported version" '"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}'
expect_out "ping is gone in 2026-07-28" '"id":5,"error":{"code":-32601'
expect_out "legacy request before initialize" '"id":6,"error":{"code":-32602'
expect_out "parse error" '"code":-32700'
expect_out "an id with half a surrogate pair: refused, not changed" 'half of a UTF-16 surrogate pair'
expect_out "batch" 'batches are not supported'
expect_out "oversized" 'longer than 2000 bytes'
expect_out "still serving after all that" '"id":9,"result":{"supportedVersions"'

# ---- stdout carries protocol messages only ---------------------------------------------------
run "$TG" serve --dev </dev/null
expect_rc "serve with nothing to read" 0
expect_eq "nothing on stdout" "$OUT" ""
expect_err "the start-up note goes to stderr" "tools over stdio"

# A repository whose one tool runs until it is killed, so a call is surely in flight when the
# test closes stdin or signals the server (no race with a tool that might finish first).
SLOW="$TMP/slowrepo"
mkdir -p "$SLOW/manifests/slow_tool" "$SLOW/data"
echo 'a,b' >"$SLOW/data/x.csv"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" tests/synthetic_tool.yaml \
    >"$SLOW/manifests/slow_tool/tool.manifest.yaml"
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
CALL='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_tool","arguments":{"file_path":"data/x.csv"}}}'

# start_slow_call NAME: serve on a FIFO held open on fd 3, send initialize + the call, and wait
# until the call's own process (its `sleep`) runs below the server — not merely a child, since
# warm workers start with the server; sets serve_pid and children (the server's children and
# the call's process)
start_slow_call() {
    rm -f "$TMP/in"
    mkfifo "$TMP/in"
    "$TG" -C "$SLOW" serve --dev <"$TMP/in" >"$TMP/$1.out" 2>"$TMP/$1.err" &
    serve_pid=$!
    exec 3>"$TMP/in"
    printf '%s\n%s\n' "$INIT" "$CALL" >&3
    children=""
    wait_for call_running
}
call_running() {
    slow=$(descendant_named "$serve_pid" sleep)
    children="$(children_of "$serve_pid") $slow"
    [ -n "$slow" ]
}
serve_ended() { ! kill -0 "$serve_pid" 2>/dev/null; }

# ---- stdin closed in the middle of a call: the call is killed, no process is left ----------
start_slow_call eof
exec 3>&-
wait $serve_pid
RC=$?
expect_rc "serve ends when stdin closes mid-call" 0
run cat "$TMP/eof.out"
expect_out "initialize was answered" '"id":1,"result"'
expect_not_out "the cancelled call gets no reply" '"id":2'
# the sandbox the call ran in (serve's children while it ran) is gone, reaped
if [ -z "$slow" ]; then
    bad "no sandbox process seen while the call ran (serve pid $serve_pid)"
else
    left=""
    for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
    expect_eq "the call's processes are killed" "$left" ""
fi
run cat "$TMP/eof.err"
expect_not_out "no crash" "AddressSanitizer"

# ---- SIGTERM in the middle of a call: the call is killed, the server ends --------------------
start_slow_call term
kill -TERM "$serve_pid"
if wait_for serve_ended; then ok; else bad "serve is still running $HANG_S s after SIGTERM"; fi
exec 3>&-
if [ -z "$slow" ]; then
    bad "no sandbox process seen while the call ran (SIGTERM case)"
else
    left=""
    for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
    expect_eq "SIGTERM kills the call's processes" "$left" ""
fi
wait $serve_pid
run cat "$TMP/term.out"
expect_not_out "the interrupted call gets no reply" '"id":2'

# ---- read-only mode and usage -----------------------------------------------------------------
run "$TG" help serve
expect_rc "help serve" 0
expect_out "help names --read-only" "--read-only"
expect_out "help names --http" "--http HOST:PORT"
expect_out "help names --max-concurrency" "--max-concurrency"
expect_out "help names --peer" "--peer URL"
run "$TG" serve --http 127.0.0.1
expect_rc "--http without a port" 2
expect_err "--http says what it expects" "expected HOST:PORT"
run "$TG" serve --http 127.0.0.1:99999
expect_rc "--http with a port out of range" 2
run "$TG" serve --max-concurrency 0
expect_rc "--max-concurrency 0" 2
expect_err "--max-concurrency says its range" "from 1 to 256"
run "$TG" serve --staging --dev
expect_rc "--staging with --dev" 2
expect_err "--staging with --dev says why" "exclude each other"
run "$TG" serve --page-size 0
expect_rc "--page-size 0" 2
run "$TG" serve --peer 10.0.0.12:8080
expect_rc "--peer without a URL" 2
expect_err "--peer says what it expects" "expected another instance's URL"
run "$TG" serve --bogus
expect_rc "unknown option" 2
run "$TG" --help
expect_out "toolgen --help lists serve" "serve"

finish cli-serve
