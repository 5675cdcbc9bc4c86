#!/bin/sh
# toolgen pack: the MCP Bundle (.mcpb) serves the promoted tools only — the working tree's
# manifests (--dev), the candidates (--staging) and the workflow (--workflow) only when asked
# for, and said so —; it is accepted by the official mcpb CLI (info, unpack, validate, clean;
# verify finds a well-formed but unsigned archive), holds what the server needs (the unpacked
# bundle serves and runs a call with no other toolgen around), carries toolgen.yaml's project
# fields, and refuses tools that reach an external service without a privacy policy; a blank
# optional user_config (the literal ${user_config.NAME}) counts as unset.
. tests/lib.sh

MCPB=tests/npm/node_modules/.bin/mcpb
if [ ! -x "$MCPB" ]; then
    RC=0 OUT="" ERR=""
    bad "$MCPB is missing: run 'make test-deps'"
    finish cli-pack
    exit 1
fi
MCPB=$(pwd)/$MCPB

R="$TMP/repo"
mkdir -p "$R/manifests"
cp -r manifests/preview_file_lines manifests/get_exchange_rate "$R/manifests/"
cp -r data prompts "$R/"
grep -v privacy_policies toolgen.yaml >"$R/toolgen.yaml"

run "$TG" -C "$R" pack
expect_rc "nothing promoted: nothing to pack" 2
expect_err "pack says why and what to do" "the registry has no promoted tool: a bundle serves the tools the user approved. Promote one first"
expect_err "... or --dev, said to be unreviewed" "or pack --dev to ship the working tree's manifests unreviewed"
if [ -e "$R/dist" ]; then bad "a refused pack left dist/"; else ok; fi

run "$TG" -C "$R" build
expect_rc "build" 0
run "$TG" -C "$R" pack --dev
expect_rc "an external service without a privacy policy" 2
expect_err "it names the tool and the fix" "toolgen.yaml: get_exchange_rate reaches an external service, and a bundle must then name its privacy policy: add project.privacy_policies"
if [ -e "$R/dist/toolgen-examples-0.1.0.mcpb" ]; then bad "a refused pack wrote a file"; else ok; fi

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
run "$TG" -C "$R" pack --dev
expect_rc "pack --dev" 0
expect_out "pack --dev says the tools are unreviewed" "the bundle serves --dev: every tool of the working tree's manifests that lints, reviewed or not (nobody approved them): 2 tools (get_exchange_rate v0.1.0, preview_file_lines v1.0.0)"
expect_out "pack says where" "dist/toolgen-examples-0.1.0.mcpb ("
B="$R/dist/toolgen-examples-0.1.0.mcpb"
expect_out "pack prints the bundle's SHA-256, for the registry entry" \
    "toolgen pack: sha256 $(sha256sum "$B" | cut -d' ' -f1) (fileSha256"
# the registry entry the build wrote names the bundle; its namespace is the home page's
grep -q '"name": "org.example/toolgen-examples"' "$R/generated/mcp/server.json" &&
    grep -q '"identifier": "toolgen-examples-0.1.0.mcpb"' "$R/generated/mcp/server.json" && ok ||
    bad "server.json: $(cat "$R/generated/mcp/server.json")"

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
expect_out "the bundle serves the manifests, as asked" '"serve",
        "--dev",
        "--no-workflow"'
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
run "$TG" -C "$R" pack --dev -o "$TMP/bad.mcpb"
expect_rc "privacy_policies that is not a list" 2
expect_err "it names the key and the fix" "/project/privacy_policies: must be a list of URLs"
if [ -e "$TMP/bad.mcpb" ]; then bad "a refused pack wrote a file"; else ok; fi
cp "$TMP/good.yaml" "$R/toolgen.yaml"

# -o, and the same repository gives the same bytes
run "$TG" -C "$R" pack --dev -o "$TMP/again.mcpb"
expect_rc "pack -o" 0
if cmp -s "$B" "$TMP/again.mcpb"; then ok; else bad "two packs of the same repository differ"; fi
# -- the default bundle: the promoted tools only. preview_file_lines is promoted;
# get_exchange_rate stays an unreviewed draft and is neither served nor shipped.
G() { git -C "$R" "$@"; }
G init -q && G config user.name T && G config user.email t@example.org && G add -A && G commit -qm init
P=preview_file_lines
"$TG" -C "$R" stage $P >/dev/null && "$TG" -C "$R" feedback $P --output yes >/dev/null &&
    "$TG" -C "$R" feedback $P --decision Approve >/dev/null && "$TG" -C "$R" promote $P >/dev/null
expect_eq "promoted" "$(G log -1 --format=%s)" "promote $P v1.0.0"
# unzip BUNDLE DIR; then bundle_serve DIR < requests: runs the server as the bundle's manifest says
unzip_bundle() {
    rm -rf "$2" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2" &&
        chmod +x "$2/bin/toolgen"
}
bundle_args() {
    python3 -c 'import json, sys; c = json.load(open(sys.argv[1] + "/manifest.json"))["server"]["mcp_config"]; print("\n".join(a.replace("${__dirname}", sys.argv[1]) for a in c["args"]))' "$1"
}
bundle_serve() {
    d=$1
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <<EOF2
$(bundle_args "$d")
EOF2
    env -u TOOLGEN_DATADIR "$d/bin/toolgen" "$@"
}
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$M26}}" >"$TMP/list.in"

run "$TG" -C "$R" pack -o "$TMP/reg.mcpb"
expect_rc "pack" 0
# the default output, dist/, is a build product git does not see
run "$TG" -C "$R" pack
expect_out "pack writes into dist/" "$R/dist/toolgen-examples-0.1.0.mcpb ("
expect_eq "git does not see the bundle" "$(G status --porcelain --untracked-files=all | grep -c -e dist/ -e mcpb)" 0
expect_out "pack says what the bundle serves" "the bundle serves the promoted tools of the registry: 1 tool ($P v1.0.0)"
expect_not_out "no workflow to mention" "workflow"
unzip_bundle "$TMP/reg.mcpb" "$TMP/reg"
if [ -e "$TMP/reg/repo/manifests" ]; then bad "the default bundle ships the working tree's manifests"; else ok; fi
if [ -f "$TMP/reg/repo/registry/active/tools/$P/spec.json" ]; then ok; else bad "the bundle lacks the promoted snapshot"; fi
run python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print([t["name"] for t in m["tools"]], m["server"]["mcp_config"]["args"])' "$TMP/reg/manifest.json"
expect_out "its manifest lists the promoted tool only, and runs serve on the registry" "['$P'] ['-C', '\${__dirname}/repo', 'serve', '--no-workflow']"
run bundle_serve "$TMP/reg" <"$TMP/list.in"
expect_rc "the bundle's server" 0
expect_err "it serves the promoted tool" "1 tool over stdio, and 8 prompts (from the registry's promoted tools)"
expect_not_out "not the draft" "get_exchange_rate"
run bundle_serve "$TMP/reg" <"$TMP/call.in"
expect_out "a call of the promoted tool through the bundle" '"structuredContent":{"text":"sepal_length,sepal_width,petal_length,petal_width,species"}'

# -- --staging: the candidates too, marked, and said so
mkdir -p "$R/manifests/group_and_count_by_columns"
cp manifests/group_and_count_by_columns/* "$R/manifests/group_and_count_by_columns/"
"$TG" -C "$R" build >/dev/null && "$TG" -C "$R" stage group_and_count_by_columns >/dev/null
run "$TG" -C "$R" pack -o "$TMP/reg2.mcpb"
expect_out "without --staging: no candidate" "the bundle serves the promoted tools of the registry: 1 tool ($P v1.0.0)"
run "$TG" -C "$R" pack --staging -o "$TMP/st.mcpb"
expect_rc "pack --staging" 0
expect_out "pack --staging says so" "the bundle serves --staging: the promoted tools and the candidates awaiting the user's approval, marked as such: 2 tools (group_and_count_by_columns v1.0.0 (STAGED), $P v1.0.0)"
unzip_bundle "$TMP/st.mcpb" "$TMP/st"
run cat "$TMP/st/manifest.json"
expect_out "the bundle's manifest marks the candidate" '"description": "[candidate v1.0.0, not approved] Group the rows'
expect_out "its server serves the candidates" '"--staging",'
run bundle_serve "$TMP/st" <"$TMP/list.in"
expect_err "the bundle's server serves both" "2 tools over stdio"

# -- the workflow: only with --workflow, and said so
run "$TG" -C "$R" pack --workflow -o "$TMP/wf.mcpb"
expect_rc "--workflow without serve.workflow" 2
expect_err "it says what to add" "add \`serve: {workflow: true}\` first"
printf 'serve:\n  workflow: true\n' >>"$R/toolgen.yaml"
run "$TG" -C "$R" pack -o "$TMP/nowf.mcpb"
expect_rc "pack of a repository with the workflow on" 0
expect_out "pack says the workflow is left out" "toolgen.yaml turns the workflow on; the bundle leaves it out (pack --workflow keeps it)"
unzip_bundle "$TMP/nowf.mcpb" "$TMP/nowf"
run bundle_serve "$TMP/nowf" <"$TMP/list.in"
expect_out "the bundle's server lists the promoted tool" "\"name\":\"$P\""
expect_not_out "and no workflow tool" "promote_tool"
run "$TG" -C "$R" pack --workflow -o "$TMP/wf.mcpb"
expect_rc "pack --workflow" 0
expect_out "pack --workflow says so" "--workflow: the agent can also generate, stage and promote tools in the bundle"
unzip_bundle "$TMP/wf.mcpb" "$TMP/wf"
run bundle_serve "$TMP/wf" <"$TMP/list.in"
expect_out "the bundle's server offers the workflow" '"name":"promote_tool"'
run "$TG" pack --dev --staging
expect_rc "--dev and --staging" 2

run "$TG" pack --bogus
expect_rc "unknown option" 2
run "$TG" help pack
expect_out "help pack" "MCP Bundle"

finish cli-pack
