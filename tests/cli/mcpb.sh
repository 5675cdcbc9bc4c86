#!/bin/sh
# The emitted MCP Bundle manifest is checked by the official mcpb CLI (npm @anthropic-ai/mcpb,
# installed into tests/npm by `make test-deps`), for this repository and for every golden case.
. tests/lib.sh

MCPB=tests/npm/node_modules/.bin/mcpb
if [ ! -x "$MCPB" ]; then
    RC=0 OUT="" ERR=""
    bad "$MCPB is missing: run 'make test-deps' (it installs tests/npm with npm)"
    finish cli-mcpb
    exit 1
fi

for m in generated/mcp/manifest.json tests/golden/*/expected/generated/mcp/manifest.json; do
    [ -f "$m" ] || continue
    run "$MCPB" validate "$m"
    expect_rc "mcpb validate $m" 0
done

# The checker is real: a manifest the mcpb schema refuses fails.
printf '{"manifest_version": "0.3", "name": 3}\n' >"$TMP/bad.json"
run "$MCPB" validate "$TMP/bad.json"
if [ "$RC" -ne 0 ]; then ok; else bad "mcpb accepted a broken manifest"; fi

finish cli-mcpb
