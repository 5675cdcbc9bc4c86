#!/bin/sh
# The tasks extension of 2026-07-28 (docs/mcp.md#tasks) over stdio and over Streamable HTTP, on
# the conformance fixture repository: tests/cli/serve_tasks.mjs says what each run checks; over
# HTTP the server's log then shows each task's runs.
. tests/lib.sh

NPM=tests/npm/node_modules
NODE_DIR=$(pwd)/$NPM/node/bin
if [ ! -x "$NODE_DIR/node" ]; then
    RC=0 OUT="" ERR=""
    bad "node 22 is missing from $NPM: run 'make test-deps'"
    finish cli-serve-tasks
    exit 1
fi
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/repo
cp -r tests/mcp/conformance-repo "$R"
# with the workflow's tools, whose long calls may be tasks too
sed -i 's/^serve:$/serve:\n  workflow: true/' "$R/toolgen.yaml"
grep -q '^  workflow: true$' "$R/toolgen.yaml" || setup_failed "could not turn the workflow on"

"$TG" -C "$R" serve --dev --http 127.0.0.1:0 >"$TMP/http.out" 2>"$TMP/http.err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 130' INT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 143' TERM
serve_port "$TMP/http.err" $pid
port=$PORT
[ -n "$port" ] || setup_failed "serve --http printed no port: $(cat "$TMP/http.err")"

for url in "" "http://127.0.0.1:$port/mcp"; do
    where=${url:+HTTP}
    run env PATH="$NODE_DIR:$PATH" TG="$TG" REPO="$R" SERVER_URL="$url" node tests/cli/serve_tasks.mjs
    expect_rc "the client over ${where:-stdio}" 0
    expect_out "the client over ${where:-stdio} ran" "client: "
    printf '%s\n' "$OUT" | grep FAIL >&2
done

# a task's runs are logged as calls of their own, under the run's id
run grep -c '"id":"toolgen-task-[0-9a-f]*-1","method":"tools/call","tool":"slow_compute"' "$TMP/http.err"
expect_rc "the HTTP server logged the tasks' runs" 0
run grep -c '"tool":"slow_compute".*"status":"cancelled"' "$TMP/http.err"
expect_rc "the cancelled run is logged as cancelled" 0

kill -TERM $pid
wait $pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM, tasks and all" 0
run cat "$TMP/http.err"
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-serve-tasks
