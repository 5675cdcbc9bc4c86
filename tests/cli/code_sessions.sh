#!/bin/sh
# Code sessions over MCP (docs/code.md#sessions) through the official TypeScript clients 1.x and
# 2.x (code_sessions.mjs): one `serve --http --toolset code` keeps a session's variables,
# imports and files across calls and forgets them after close_session, answers another
# client's call with the session as if it did not exist, and refuses a session of the other
# language; file_system (the files toolset) reads and writes the session's directory, where the
# data directories are read-only; a second server (stdio, code.sessions.idle_minutes 0.01) lets a session expire and
# says SESSION_EXPIRED with how to recover. Every session ends with its server: no sandbox is
# left behind.
. tests/lib.sh

chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
NPM=tests/npm/node_modules
[ -d "$NPM/@modelcontextprotocol/sdk" ] && [ -d "$NPM/@modelcontextprotocol/client" ] ||
    setup_failed "$NPM/@modelcontextprotocol is missing: run 'make deps'"

R=$TMP/repo
mkdir -p "$R/manifests" "$R/data"
printf 'project:\n  name: sessions-test\n  version: 1.0.0\n' >"$R/toolgen.yaml"
printf 'region,sales\nnorth,120\nsouth,95\n' >"$R/data/sales.csv"
chmod -R o+rX "$R"
S=$TMP/short
mkdir -p "$S/manifests" "$S/data"
printf 'project:\n  name: sessions-short\n  version: 1.0.0\ncode:\n  sessions:\n    idle_minutes: 0.01\n' >"$S/toolgen.yaml"

serve_pid=""
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$TMP"' EXIT
"$TG" -C "$R" serve --dev --toolset code --toolset files --http 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
serve_port "$TMP/serve.err" "$serve_pid"
[ -n "$PORT" ] || setup_failed "serve --http printed no port: $(cat "$TMP/serve.err")"

run env TG="$TG" SHORT="$S" SERVER_URL="http://127.0.0.1:$PORT/mcp" node tests/cli/code_sessions.mjs
expect_rc "the official clients 1.x and 2.x" 0
expect_out "the clients ran" "client: "
printf "%s\n" "$OUT" | grep FAIL >&2

kill -TERM "$serve_pid"
wait "$serve_pid"
RC=$?
serve_pid=""
expect_rc "serve ends cleanly with sessions open" 0
left=$(ls "$TMPDIR" | grep -c '^toolgen-call-') || true
expect_eq "no session sandbox is left behind" "$left" 0
finish code-sessions
