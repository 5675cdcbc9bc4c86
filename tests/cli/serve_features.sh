#!/bin/sh
# What MCP offers beyond tools and text, through the official TypeScript SDK clients — 1.x
# (legacy era) and 2.x (2026-07-28) — over stdio and over Streamable HTTP, on the conformance
# fixture repository: tests/cli/serve_features.mjs says what each run checks.
. tests/lib.sh

NPM=tests/npm/node_modules
NODE_DIR=$(pwd)/$NPM/node/bin
if [ ! -x "$NODE_DIR/node" ] || [ ! -d "$NPM/@modelcontextprotocol/client" ] ||
   [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "node 22 and the SDK clients are missing from $NPM: run 'make test-deps'"
    finish cli-serve-features
    exit 1
fi
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/repo
cp -r tests/mcp/conformance-repo "$R"

"$TG" -C "$R" serve --dev --http 127.0.0.1:0 --progress-ms 200 >"$TMP/http.out" 2>"$TMP/http.err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 130' INT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 143' TERM
serve_port "$TMP/http.err" $pid
port=$PORT
[ -n "$port" ] || setup_failed "serve --http printed no port: $(cat "$TMP/http.err")"

for sdk in 1 2; do
    for url in "" "http://127.0.0.1:$port/mcp"; do
        where=${url:+HTTP}
        run env PATH="$NODE_DIR:$PATH" SDK=$sdk TG="$TG" REPO="$R" SERVER_URL="$url" \
            node tests/cli/serve_features.mjs
        expect_rc "the ${sdk}.x client over ${where:-stdio}" 0
        expect_out "the ${sdk}.x client over ${where:-stdio} ran" "client: "
        printf '%s\n' "$OUT" | grep FAIL >&2
        if [ "$sdk" = 1 ] && [ -z "$url" ]; then
            n=$(printf '%s\n' "$ERR" | grep '"tool":"test_input_required_result_elicitation"' |
                grep -c '"status":"cancelled"')
            expect_eq "stdio: the call cancelled while it waited is logged as cancelled" "$n" 1
        fi
    done
done
n=$(grep '"tool":"test_input_required_result_elicitation"' "$TMP/http.err" | grep -c '"status":"cancelled"')
expect_eq "HTTP: the call cancelled while it waited is logged as cancelled" "$n" 1

kill -TERM $pid
wait $pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM" 0
run cat "$TMP/http.err"
expect_not_out "no sanitizer report" "Sanitizer"
finish cli-serve-features
