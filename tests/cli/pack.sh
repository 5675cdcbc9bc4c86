#!/bin/sh
# toolgen pack: the MCP Bundle (.mcpb) is accepted by the official mcpb CLI (info, unpack,
# validate, clean; verify finds a well-formed but unsigned archive), holds what the server
# needs (the unpacked bundle serves and runs a call with no other toolgen around), carries
# toolgen.yaml's project fields, and refuses tools that reach an external service without a
# privacy policy; a blank optional user_config (the literal ${user_config.NAME}) counts as unset.
. tests/lib.sh

MCPB=tests/npm/node_modules/.bin/mcpb
if [ ! -x "$MCPB" ]; then
    RC=0 OUT="" ERR=""
    bad "$MCPB is missing: run 'make deps'"
    finish cli-pack
    exit 1
fi
MCPB=$(pwd)/$MCPB

R="$TMP/repo"
mkdir -p "$R/manifests"
cp -r manifests/preview_file_lines manifests/get_exchange_rate "$R/manifests/"
cp -r data prompts toolgen.yaml "$R/"

run "$TG" -C "$R" pack
expect_rc "pack before build" 2
expect_err "pack says to build first" "generated/mcp/manifest.json is missing or unreadable: run \`toolgen build\` first"

run "$TG" -C "$R" build
expect_rc "build" 0
run "$TG" -C "$R" pack
expect_rc "an external service without a privacy policy" 2
expect_err "it names the tool and the fix" "toolgen.yaml: get_exchange_rate reaches an external service, and a bundle must then name its privacy policy: add project.privacy_policies"
if [ -e "$R/toolgen-examples-0.1.0.mcpb" ]; then bad "a refused pack wrote a file"; else ok; fi

cat >>"$R/toolgen.yaml" <<'YAML'
  long_description: |
    # Example tools
    Inspect CSV files and look up exchange rates.
  license: MIT
  repository: https://example.org/toolgen-examples.git
  homepage: https://example.org/toolgen-examples
  privacy_policies: [https://example.org/exchange-rates/privacy]
YAML
run "$TG" -C "$R" lint
expect_rc "the project fields lint" 0
run "$TG" -C "$R" build
expect_rc "build with the project fields" 0
run "$TG" -C "$R" pack
expect_rc "pack" 0
expect_out "pack says where" "toolgen-examples-0.1.0.mcpb ("
B="$R/toolgen-examples-0.1.0.mcpb"

run "$MCPB" info "$B"
expect_rc "mcpb info" 0
expect_out "mcpb info reads it" "Size:"
run "$MCPB" verify "$B"
expect_err "mcpb verify: a well-formed archive, unsigned" "not signed"
run "$MCPB" unpack "$B" "$TMP/un"
expect_rc "mcpb unpack" 0
run "$MCPB" validate "$TMP/un/manifest.json"
expect_rc "mcpb validate of the packed manifest" 0
cp "$B" "$TMP/clean.mcpb"
run "$MCPB" clean "$TMP/clean.mcpb"
expect_rc "mcpb clean" 0

run python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.testzip() or "intact", len(z.namelist()))' "$B"
expect_rc "Python's zipfile reads it" 0
expect_out "every CRC checks" "intact"

run cat "$TMP/un/manifest.json"
expect_out "long_description" '"long_description": "# Example tools\nInspect CSV files and look up exchange rates.\n"'
expect_out "license" '"license": "MIT"'
expect_out "repository" '"url": "https://example.org/toolgen-examples.git"'
expect_out "homepage" '"homepage": "https://example.org/toolgen-examples"'
expect_out "privacy_policies" '"https://example.org/exchange-rates/privacy"'
expect_out "the bundle's own toolgen" '"command": "${__dirname}/bin/toolgen"'
expect_out "the bundle's repository" '"${__dirname}/repo"'
expect_not_out "no repository setting" '"repository": {
      "type": "directory"'
expect_out "the credential setting stays" '"exchange_api_token"'
if [ -x "$TMP/un/bin/toolgen" ]; then ok; else bad "bin/toolgen is not executable after unpack"; fi
for f in share/toolgen/schemas/tool.manifest.schema.json share/toolgen/runtime/runner.py \
         repo/toolgen.yaml repo/manifests/preview_file_lines/tool.manifest.yaml \
         repo/data/iris.csv repo/prompts/analyze_dataset.md; do
    if [ -f "$TMP/un/$f" ]; then ok; else bad "the bundle lacks $f"; fi
done

# the unpacked bundle serves on its own: its toolgen finds its data files beside it, and a
# call runs; a blank credential is unset
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"preview_file_lines\",\"arguments\":{\"file_path\":\"data/iris.csv\",\"lines\":1}}}" >"$TMP/call.in"
run env -u TOOLGEN_DATADIR EXCHANGE_API_TOKEN='${user_config.exchange_api_token}' \
    "$TMP/un/bin/toolgen" -C "$TMP/un/repo" serve --dev <"$TMP/call.in"
expect_rc "the bundle's server" 0
expect_out "a call through the bundle" '"structuredContent":{"text":"sepal_length,sepal_width,petal_length,petal_width,species"}'
expect_err "a blank user_config is unset" "EXCHANGE_API_TOKEN was left blank in the bundle's settings: unset"
expect_err "it serves both tools" "2 tools over stdio"

# a malformed project field is refused with its place
cp "$R/toolgen.yaml" "$TMP/good.yaml"
sed -i 's|^  privacy_policies: .*|  privacy_policies: https://example.org/not-a-list|' "$R/toolgen.yaml"
run "$TG" -C "$R" pack -o "$TMP/bad.mcpb"
expect_rc "privacy_policies that is not a list" 2
expect_err "it names the key and the fix" "/project/privacy_policies: must be a list of URLs"
if [ -e "$TMP/bad.mcpb" ]; then bad "a refused pack wrote a file"; else ok; fi
cp "$TMP/good.yaml" "$R/toolgen.yaml"

# -o, and the same repository gives the same bytes
run "$TG" -C "$R" pack -o "$TMP/again.mcpb"
expect_rc "pack -o" 0
if cmp -s "$B" "$TMP/again.mcpb"; then ok; else bad "two packs of the same repository differ"; fi
run "$TG" pack --bogus
expect_rc "unknown option" 2
run "$TG" help pack
expect_out "help pack" "MCP Bundle"

finish cli-pack
