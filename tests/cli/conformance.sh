#!/bin/sh
# conformance.sh — the official MCP conformance suite (@modelcontextprotocol/conformance from
# tests/npm, run with the node 22 binary installed there) against `toolgen serve --http` on the
# fixture repository tests/mcp/conformance-repo, for both revisions: --requirements 2026-07-28
# and --requirements 2025-11-25. The scenarios that fail must be exactly those listed in
# tests/mcp/conformance-known-failures.txt: a listed scenario that passes fails the test (take it
# off the list), and so does an unlisted one that fails.
. tests/lib.sh

NPM=tests/npm/node_modules
NODE_DIR=$(pwd)/$NPM/node/bin
SUITE=$(pwd)/$NPM/.bin/conformance
KNOWN=tests/mcp/conformance-known-failures.txt
REPO=tests/mcp/conformance-repo
if [ ! -x "$NODE_DIR/node" ] || [ ! -x "$SUITE" ]; then
    bad "the conformance suite or node 22 is missing from $NPM: run 'make test-deps'"
    finish cli-conformance
    exit 1
fi

# the server, on a port of its choosing
"$TG" -C "$REPO" serve --dev --http 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null; rm -rf "$TMP"; exit 130' INT
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null; rm -rf "$TMP"; exit 143' TERM
serve_port "$TMP/serve.err" "$serve_pid"
port=$PORT
[ -n "$port" ] || setup_failed "serve --http did not say which port it listens on: $(cat "$TMP/serve.err")"

for rev in 2026-07-28 2025-11-25; do
    PATH="$NODE_DIR:$PATH" "$SUITE" server --url "http://127.0.0.1:$port/mcp" \
        --requirements "$rev" -o "$TMP/results-$rev" >"$TMP/suite-$rev.txt" 2>&1
    # "✓ name: ..." / "✗ name: ..." per scenario, before the summary
    ran=$(grep -c '^[✓✗] ' "$TMP/suite-$rev.txt")
    if [ "$ran" -lt 20 ]; then
        RC=1 OUT=$(tail -20 "$TMP/suite-$rev.txt") ERR=""
        bad "$rev: the suite ran $ran scenarios"
        continue
    fi
    ok
    sed -n 's/^✗ \([^:]*\):.*/\1/p' "$TMP/suite-$rev.txt" | sort -u >"$TMP/failed-$rev"
    awk -v r="$rev" '$1 == r {print $2}' "$KNOWN" | sort -u >"$TMP/known-$rev"
    for s in $(comm -23 "$TMP/failed-$rev" "$TMP/known-$rev"); do
        RC=1 OUT=$(grep -A3 "\"$s\"" "$TMP"/results-"$rev"/server-"$s"-*/checks.json 2>/dev/null | head -20)
        ERR=""
        bad "$rev: scenario $s fails and is not in $KNOWN"
    done
    for s in $(comm -13 "$TMP/failed-$rev" "$TMP/known-$rev"); do
        if grep -q "^✓ $s:" "$TMP/suite-$rev.txt"; then
            RC=0 OUT="" ERR=""
            bad "$rev: scenario $s passes now: take it off $KNOWN"
        else
            RC=0 OUT="" ERR=""
            bad "$rev: scenario $s is listed in $KNOWN but did not run"
        fi
    done
    [ -z "$(comm -3 "$TMP/failed-$rev" "$TMP/known-$rev")" ] && ok
    echo "conformance $rev: $(grep -c '^✓ ' "$TMP/suite-$rev.txt") scenarios pass," \
         "$(wc -l <"$TMP/failed-$rev") known failures" >&2
done

# the server stayed up through both runs and ends cleanly on SIGTERM
if kill -0 $serve_pid 2>/dev/null; then ok; else bad "serve --http died during the suite"; fi
kill -TERM $serve_pid
wait $serve_pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM" 0
run cat "$TMP/serve.err"
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-conformance
