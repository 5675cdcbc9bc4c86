#!/bin/sh
# toolgen serve: the repository's prompt templates (prompts/) as MCP prompts, and
# completion/complete, over stdio in both eras; every reply validates against the MCP schema of
# its revision (toolgen validate); a broken template is left out and named on stderr.
. tests/lib.sh

. tests/mcp/lib.sh # the message schemas per revision ($TMP/REVISION/message.json)

# session META: the requests, with META ("" or the 2026-07-28 _meta plus a comma) in params
session() {
    m=$1
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\",\"params\":{${m%,}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{$m\"name\":\"analyze_dataset\",\"arguments\":{\"file\":\"data/iris.csv\",\"question\":\"Which species is largest?\"}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/get\",\"params\":{$m\"name\":\"analyze_dataset\",\"arguments\":{}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/get\",\"params\":{$m\"name\":\"no_such_prompt\"}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"completion/complete\",\"params\":{$m\"ref\":{\"type\":\"ref/prompt\",\"name\":\"review_tool\"},\"argument\":{\"name\":\"tool\",\"value\":\"csv\"}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"completion/complete\",\"params\":{$m\"ref\":{\"type\":\"ref/prompt\",\"name\":\"analyze_dataset\"},\"argument\":{\"name\":\"file\",\"value\":\"data/ti\"}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"completion/complete\",\"params\":{$m\"ref\":{\"type\":\"ref/resource\",\"uri\":\"toolgen://generated/{tool}/output.schema.json\"},\"argument\":{\"name\":\"tool\",\"value\":\"pre\"}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"completion/complete\",\"params\":{$m\"ref\":{\"type\":\"ref/prompt\",\"name\":\"analyze_dataset\"},\"argument\":{\"name\":\"nope\",\"value\":\"\"}}}"
}

check_session() { # NAME REVISION FILE
    run "$TG" validate --schema "$TMP/$2/message.json" --jsonl --errors <"$3"
    expect_rc "$1: every reply fits the $2 schema" 0
    run cat "$3"
    expect_out "$1: prompts/list" '"name":"analyze_dataset"'
    expect_out "$1: review_tool is listed" '"name":"review_tool"'
    expect_out "$1: a generator template is served too" '{"name":"code","arguments":[{"name":"spec","required":true}'
    expect_out "$1: arguments with required" '{"name":"file","description":"The CSV file, as a path under a data directory (e.g. data/iris.csv).","required":true}'
    expect_out "$1: placeholders filled" 'Analyze the dataset `data/iris.csv`'
    expect_out "$1: an optional argument filled" 'Question to answer, if any: Which species is largest?'
    expect_out "$1: a missing required argument" '"id":3,"error":{"code":-32602,"message":"prompts/get analyze_dataset: missing required argument '"'file'"
    expect_out "$1: an unknown prompt" '"id":4,"error":{"code":-32602,"message":"Unknown prompt: no_such_prompt'
    expect_out "$1: tool names complete" '"values":["csv_column_stats"],"total":1,"hasMore":false'
    expect_out "$1: data files complete" '"values":["data/tips.csv","data/titanic.csv"],"total":2'
    expect_out "$1: the resource template's {tool} completes" '"values":["preview_file_lines"]'
    expect_out "$1: an unknown argument" '"id":8,"error":{"code":-32602'
}

M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},'
session "$M26" >"$TMP/modern.in"
run "$TG" serve --dev <"$TMP/modern.in"
expect_rc "serve (2026-07-28)" 0
n=$(ls prompts/*.md prompts/*.txt 2>/dev/null | wc -l)
expect_err "the start-up note counts the prompts" "and $n prompts"
printf '%s\n' "$OUT" >"$TMP/modern.out"
check_session "2026-07-28" 2026-07-28 "$TMP/modern.out"
expect_out "2026-07-28: prompts/list is cacheable" '"ttlMs":60000,"cacheScope":"private"'

{
    printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
    session ""
} >"$TMP/legacy.in"
run "$TG" serve --dev <"$TMP/legacy.in"
expect_rc "serve (legacy)" 0
printf '%s\n' "$OUT" >"$TMP/legacy.out"
check_session "legacy" 2025-11-25 "$TMP/legacy.out"
expect_out "legacy: the capabilities" '"prompts":{"listChanged":false},"completions":{}'
expect_not_out "legacy: no resultType" '"resultType"'

# ---- a broken template is left out, named with its place; the others are served ------------
R="$TMP/repo"
mkdir -p "$R/manifests" "$R/prompts" "$R/data"
cp toolgen.yaml "$R/"
printf -- '---\narguments:\n  - name: a\n---\nUse {{a}} and {{b}}.\n' >"$R/prompts/broken.md"
printf 'Hello {{who}}.\n' >"$R/prompts/hello.txt"
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{$M26\"name\":\"hello\",\"arguments\":{\"who\":\"world\"}}}" \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\",\"params\":{$M26\"name\":\"broken\",\"arguments\":{\"a\":\"x\"}}}" >"$TMP/r.in"
run "$TG" -C "$R" serve --dev <"$TMP/r.in"
expect_rc "serve with a broken template" 0
expect_err "the broken template is named with its line and the fix" "left out the prompt template prompts/broken.md:5: placeholder {{b}} is not one of the declared arguments; add it to arguments:"
expect_out "the good one is served" 'Hello world.'
expect_out "the broken one is unknown" '"id":2,"error":{"code":-32602,"message":"Unknown prompt: broken'

# ---- no prompts folder: an empty list, still the capability -----------------------------------
rm -r "$R/prompts"
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\",\"params\":{${M26%,}}}" >"$TMP/e.in"
run "$TG" -C "$R" serve --dev <"$TMP/e.in"
expect_rc "serve without prompts/" 0
expect_out "an empty prompt list" '"prompts":[]'

finish cli-serve-prompts
