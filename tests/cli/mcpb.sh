#!/bin/sh
# The emitted MCP Bundle manifest is checked by the official mcpb CLI (npm @anthropic-ai/mcpb,
# installed into tests/npm by `make test-deps`), and the official MCP registry's server.json by
# the registry's schema (tests/testdata/mcp-registry/), for this repository and for every golden
# case.
. tests/lib.sh

SERVER_SCHEMA=tests/testdata/mcp-registry/2025-12-11/server.schema.json
for s in generated/mcp/server.json tests/golden/*/expected/generated/mcp/server.json; do
    [ -f "$s" ] || continue
    run "$TG" validate --format-assert --schema "$SERVER_SCHEMA" "$s"
    expect_rc "the registry's schema takes $s" 0
done
# ... and refuses what the registry refuses: no package version "latest", a description over
# 100 characters, a name without its namespace
printf '{"name": "io.github.x/y", "description": "d", "version": "1.0.0", "packages":
  [{"registryType": "mcpb", "identifier": "y.mcpb", "version": "latest",
    "transport": {"type": "stdio"}}]}\n' >"$TMP/latest.json"
printf '{"name": "io.github.x/y", "version": "1.0.0", "description": "%0101d"}\n' 0 \
    >"$TMP/long.json"
printf '{"name": "y", "description": "d", "version": "1.0.0"}\n' >"$TMP/name.json"
for b in latest long name; do
    run "$TG" validate --format-assert --schema "$SERVER_SCHEMA" "$TMP/$b.json"
    expect_rc "the registry's schema refuses $b.json" 1
done

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
    expect_eq "$m is a 0.4 manifest" \
        "$(sed -n 's/^  "manifest_version": "\(.*\)",$/\1/p' "$m")" 0.4
done

# The checker is real: a manifest the mcpb schema refuses fails.
printf '{"manifest_version": "0.4", "name": 3}\n' >"$TMP/bad.json"
run "$MCPB" validate "$TMP/bad.json"
if [ "$RC" -ne 0 ]; then ok; else bad "mcpb accepted a broken manifest"; fi

finish cli-mcpb
