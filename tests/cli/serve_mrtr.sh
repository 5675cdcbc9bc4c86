#!/bin/sh
# toolgen serve: a tool that asks for input (toolgen_helpers.ask) — Multi Round-Trip Requests
# in 2026-07-28 (input_required, signed requestState) and elicitation/create in the legacy era,
# driven by tests/cli/serve_mrtr.mjs (raw JSON-RPC, and the official SDK 1.x client); every
# line the 2026 server wrote validates against the 2026-07-28 schema; `toolgen run` explains
# the question it cannot ask.
. tests/lib.sh

NPM=tests/npm/node_modules
if [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/sdk is missing: run 'make test-deps'"
    finish cli-serve-mrtr
    exit 1
fi

R="$TMP/repo"
mkdir -p "$R/manifests/count_column" "$R/data"
cp tests/testdata/ask_tool/tool.manifest.yaml tests/testdata/ask_tool/tool.py "$R/manifests/count_column/"
cp toolgen.yaml "$R/"
printf 'a,b\n1,2\n3,\n5,6\n' >"$R/data/x.csv"

run "$TG" -C "$R" lint
expect_rc "the asking tool lints" 0

run env TG="$TG" REPO="$R" OUT="$TMP/modern.out" node tests/cli/serve_mrtr.mjs
expect_rc "the clients" 0
expect_out "the clients ran" "client: "
expect_not_out "the clients" "FAIL"
printf '%s\n' "$OUT" | grep FAIL >&2

mkdir -p "$TMP/s"
cp tests/testdata/mcp-schema/2026-07-28/schema.json "$TMP/s/schema.json"
cat >"$TMP/s/message.json" <<'JSON'
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "anyOf": [
    {"$ref": "schema.json#/$defs/JSONRPCErrorResponse"},
    {"allOf": [
      {"$ref": "schema.json#/$defs/JSONRPCResultResponse"},
      {"if": {"properties": {"result": {"properties": {"resultType": {"const": "input_required"}}}}},
       "then": {"properties": {"result": {"$ref": "schema.json#/$defs/InputRequiredResult"}}},
       "else": {"properties": {"result": {"$ref": "schema.json#/$defs/CallToolResult"}}}},
      {"properties": {"result": {"properties": {"inputRequests": {"additionalProperties": {"properties": {"params": {"$ref": "schema.json#/$defs/ElicitRequestFormParams"}}}}}}}}
    ]}
  ]
}
JSON
n=$(grep -c . "$TMP/modern.out")
run "$TG" validate --schema "$TMP/s/message.json" --jsonl --errors <"$TMP/modern.out"
expect_rc "the $n 2026-07-28 replies fit the schema" 0
run grep -c '"resultType":"input_required"' "$TMP/modern.out"
if [ "$OUT" -ge 3 ]; then ok; else bad "input_required results written (got $OUT)"; fi

# toolgen run cannot ask: the question is a clear INVALID_INPUT
run "$TG" -C "$R" run count_column --input '{"file_path":"data/x.csv"}'
expect_rc "run: a question it cannot ask" 1
expect_err "run: says what the tool needs" "the tool needs an answer it was not given: Which column of data/x.csv should be counted?"
expect_err "run: says how to answer" "MCP client that supports elicitation"

finish cli-serve-mrtr
