#!/bin/sh
# inspector.sh — the official MCP Inspector's CLI mode (@modelcontextprotocol/inspector from
# tests/npm, run with the node 22 installed there; `--cli` never starts its web UI or a browser)
# against `toolgen serve --dev` on this repository, over stdio, over Streamable HTTP, and through
# the Claude Desktop style configuration the README shows: tools/list lists every tool of
# manifests/; tools/call of group_and_count_by_columns on data/tips.csv returns the counts this
# test computes itself with python3; bad arguments come back as tool errors (isError) carrying
# the error code; an unknown tool is a protocol error the Inspector names; resources/list and
# prompts/list work; the repository is left as it was.
. tests/lib.sh

NPM=tests/npm/node_modules
NODE_DIR=$(pwd)/$NPM/node/bin
INSPECTOR=$(pwd)/$NPM/.bin/mcp-inspector
REPO=$(pwd)
if [ ! -x "$NODE_DIR/node" ] || [ ! -x "$INSPECTOR" ]; then
    RC=0 OUT="" ERR=""
    bad "the MCP Inspector or node 22 is missing from $NPM: run 'make test-deps'"
    finish cli-inspector
    exit 1
fi

# The launcher starts its CLI with the `node` of PATH: the node 22 of tests/npm.
inspector() { # ARGS...: the Inspector's CLI mode, from $TMP (clients start servers elsewhere)
    (cd "$TMP" && PATH="$NODE_DIR:$PATH" "$INSPECTOR" --cli "$@")
}

# The Inspector does not pass the server's stderr on: a wrapper keeps it, for the log lines
# and for sanitizer reports.
cat >"$TMP/toolgen-logged" <<SH
#!/bin/sh
exec "$TG" "\$@" 2>>"$TMP/stdio.err"
SH
chmod +x "$TMP/toolgen-logged"
STDIO="$TMP/toolgen-logged serve -C $REPO --dev"

# json_py FILE EXPR: print a python3 expression of the JSON document d in FILE
json_py() {
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"
}

# what serving could change: the tools, their generated files, the data, the prompts (not the
# whole tree, which its author may be editing while the test runs)
git_state() {
    git -C "$REPO" status --porcelain --untracked-files=all -- manifests generated data prompts \
        2>/dev/null
}
BEFORE=$(git_state)

# The counts the tool must find, computed here: rows of data/tips.csv per (day, time), as
# "day,time,count" lines sorted by descending count, then keys.
EXPECTED=$(python3 - "$REPO/data/tips.csv" <<'PY'
import csv, sys, collections
c = collections.Counter((r["day"], r["time"]) for r in csv.DictReader(open(sys.argv[1])))
for (day, time), n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
    print(f"{day},{time},{n}")
PY
)
TOOLS=$(ls "$REPO/manifests" | sort | tr '\n' ' ')

# check_list NAME FILE: the tools/list result names every tool of manifests/
check_list() {
    got=$(json_py "$2" "' '.join(sorted(t['name'] for t in d['tools'])) + ' '")
    expect_eq "$1: tools/list names every tool of manifests/" "$got" "$TOOLS"
}

# check_counts NAME FILE: the group_and_count_by_columns result holds the expected counts
check_counts() {
    got=$(json_py "$2" "'\n'.join('%s,%s,%d' % (g['keys']['day'], g['keys']['time'], g['count'])
        for g in sorted(d['structuredContent']['groups'],
                        key=lambda g: (-g['count'], g['keys']['day'], g['keys']['time'])))")
    expect_eq "$1: counts per day and time" "$got" "$EXPECTED"
    expect_eq "$1: not an error" "$(json_py "$2" "d.get('isError', False)")" "False"
    expect_eq "$1: total rows" "$(json_py "$2" "d['structuredContent']['total_rows']")" \
        "$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1]))))' \
            "$REPO/data/tips.csv")"
    # the text block carries the serialised JSON of the same result
    expect_eq "$1: a text block holds the result" \
        "$(json_py "$2" "any(c['type'] == 'text' and c['text'].startswith('{')
            and json.loads(c['text']) == d['structuredContent'] for c in d['content'])")" "True"
}

# check_tool_error NAME FILE CODE WORD: a tool error (isError) whose JSON text block has
# error.code CODE, and whose text mentions WORD (the place to fix)
check_tool_error() {
    expect_eq "$1: isError" "$(json_py "$2" "d.get('isError')")" "True"
    got=$(json_py "$2" "[json.loads(c['text'])['error']['code'] for c in d['content']
        if c['type'] == 'text' and c['text'].startswith('{')]")
    expect_eq "$1: error code" "$got" "['$3']"
    run cat "$2"
    expect_out "$1: names the place" "$4"
}

# ---- stdio ----------------------------------------------------------------------------------
run inspector $STDIO --method tools/list
expect_rc "stdio tools/list" 0
printf '%s' "$OUT" >"$TMP/list.json"
check_list stdio "$TMP/list.json"

run inspector $STDIO --method tools/call --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv --tool-arg 'group_by_columns=["day","time"]'
expect_rc "stdio tools/call" 0
printf '%s' "$OUT" >"$TMP/call.json"
check_counts "stdio tools/call" "$TMP/call.json"

# a column the file does not have: the tool's own error, with the columns it does have
run inspector $STDIO --method tools/call --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv --tool-arg 'group_by_columns=["region"]'
expect_rc "stdio bad column: a result, not a failure" 0
printf '%s' "$OUT" >"$TMP/bad-column.json"
check_tool_error "stdio bad column" "$TMP/bad-column.json" INVALID_INPUT "Available columns: total_bill"

# a required argument missing: refused before the tool runs, naming the property
run inspector $STDIO --method tools/call --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv
expect_rc "stdio missing argument: a result, not a failure" 0
printf '%s' "$OUT" >"$TMP/missing.json"
check_tool_error "stdio missing argument" "$TMP/missing.json" INVALID_INPUT "group_by_columns"

# a file outside the data directories
run inspector $STDIO --method tools/call --tool-name group_and_count_by_columns \
    --tool-arg file_path=../../etc/passwd --tool-arg 'group_by_columns=["day"]'
expect_rc "stdio file outside the repository: a result, not a failure" 0
printf '%s' "$OUT" >"$TMP/outside.json"
expect_eq "stdio file outside the repository: isError" \
    "$(json_py "$TMP/outside.json" "d.get('isError')")" "True"

# a tool that does not exist is a protocol error: the Inspector fails and says which tool
run inspector $STDIO --method tools/call --tool-name no_such_tool --tool-arg a=1
expect_rc "stdio unknown tool" 1
expect_err "stdio unknown tool: named" "Unknown tool: no_such_tool"

run inspector $STDIO --method resources/list
expect_rc "stdio resources/list" 0
expect_out "stdio resources/list: the tool's schema" \
    "toolgen://generated/group_and_count_by_columns/input.schema.json"
run inspector $STDIO --method prompts/list
expect_rc "stdio prompts/list" 0
expect_out "stdio prompts/list: the analyze_dataset prompt" '"name": "analyze_dataset"'

# the server logged one line per request, and nothing else went wrong on its stderr
run cat "$TMP/stdio.err"
expect_out "stdio: the server logged the call" '"method":"tools/call"'
expect_not_out "stdio: no sanitizer report" "Sanitizer"

# ---- the client configuration of the README (Claude Desktop's format, absolute paths) -------
cat >"$TMP/claude_desktop_config.json" <<JSON
{
  "mcpServers": {
    "toolgen": {
      "command": "$TMP/toolgen-logged",
      "args": ["serve", "-C", "$REPO", "--dev"]
    }
  }
}
JSON
run inspector --config "$TMP/claude_desktop_config.json" --server toolgen --method tools/list
expect_rc "config tools/list" 0
printf '%s' "$OUT" >"$TMP/config-list.json"
check_list config "$TMP/config-list.json"
# and with "--read-only" added, as the README says: the example tools are all read-only, so
# the call still runs
sed 's/"--dev"\]/"--dev", "--read-only"]/' "$TMP/claude_desktop_config.json" >"$TMP/ro.json"
run inspector --config "$TMP/ro.json" --server toolgen --method tools/call \
    --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv --tool-arg 'group_by_columns=["day","time"]'
expect_rc "config --read-only tools/call" 0
printf '%s' "$OUT" >"$TMP/ro-call.json"
check_counts "config --read-only tools/call" "$TMP/ro-call.json"

# ---- Streamable HTTP --------------------------------------------------------------------------
"$TG" -C "$REPO" serve --dev --http 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
serve_port "$TMP/serve.err" "$serve_pid"
port=$PORT
[ -n "$port" ] || setup_failed "serve --http did not say which port it listens on: $(cat "$TMP/serve.err")"
URL="http://127.0.0.1:$port/mcp"

run inspector "$URL" --transport http --method tools/list
expect_rc "http tools/list" 0
printf '%s' "$OUT" >"$TMP/http-list.json"
check_list http "$TMP/http-list.json"

run inspector "$URL" --transport http --method tools/call \
    --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv --tool-arg 'group_by_columns=["day","time"]'
expect_rc "http tools/call" 0
printf '%s' "$OUT" >"$TMP/http-call.json"
check_counts "http tools/call" "$TMP/http-call.json"

run inspector "$URL" --transport http --method tools/call \
    --tool-name group_and_count_by_columns \
    --tool-arg file_path=data/tips.csv --tool-arg 'group_by_columns=["region"]'
expect_rc "http bad column: a result, not a failure" 0
printf '%s' "$OUT" >"$TMP/http-bad.json"
check_tool_error "http bad column" "$TMP/http-bad.json" INVALID_INPUT "Available columns: total_bill"

# the transport is found from the /mcp path without --transport
run inspector "$URL" --method resources/list
expect_rc "http resources/list" 0
expect_out "http resources/list: the tool's schema" \
    "toolgen://generated/group_and_count_by_columns/input.schema.json"
run inspector "$URL" --method prompts/list
expect_rc "http prompts/list" 0
expect_out "http prompts/list: the analyze_dataset prompt" '"name": "analyze_dataset"'

if kill -0 $serve_pid 2>/dev/null; then ok; else bad "serve --http died during the Inspector's calls"; fi
kill -TERM $serve_pid
wait $serve_pid
RC=$?
expect_rc "serve --http ends cleanly on SIGTERM" 0
run cat "$TMP/serve.err"
expect_not_out "http: no sanitizer report" "Sanitizer"

# nothing in the repository changed
expect_eq "the repository is left as it was" "$(git_state)" "$BEFORE"

finish cli-inspector
