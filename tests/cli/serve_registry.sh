#!/bin/sh
# The tool sources of toolgen serve (docs/mcp.md#tool-sources): by default the registry's
# promoted tools, each served from its snapshot (not the working tree) after its hashes were
# checked; --staging adds the staged candidates, marked; --dev the working tree's manifests.
# Works in a temporary git repository copied from the fixture tests/gates/repo.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
T=count_rows
R=$TMP/r
export TOOLGEN_USER=alice
G() { git -C "$R" -c user.name=tester -c user.email=tester@example.org "$@"; }
mkdir -p "$R" && cp -r tests/gates/repo/. "$R/"
printf '.toolgen/\ngenerated/\n' >"$R/.gitignore"
"$TG" -C "$R" build >/dev/null 2>&1 || echo "build failed in $R" >&2
G init -q -b main && G add -A && G commit -qm init

M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
LIST="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$M26}}"
CALL="{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"$T\",\"arguments\":{\"file_path\":\"data/small.csv\"}}}"
printf '%s\n' "$LIST" "$CALL" >"$TMP/req.in"

# -- an empty registry: nothing served, and the way on
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_rc "serve an empty registry" 0
expect_out "no tool listed" '"tools":[]'
expect_out "the call is unknown" '"id":2,"error"'
expect_err "says how to get tools" "no promoted tool yet; serve the working tree's manifests with --dev"

# -- promoted: served from the snapshot, not from the working tree
"$TG" -C "$R" stage $T >/dev/null && "$TG" -C "$R" feedback $T --output yes >/dev/null &&
    "$TG" -C "$R" feedback $T --decision Approve >/dev/null && "$TG" -C "$R" promote $T >/dev/null
expect_eq "promoted" "$(G log -1 --format=%s)" "promote $T v1.0.0"
sed -i 's/return {"rows": rows/return {"rows": rows + 100/; s/"rows": n,/"rows": n + 100,/' "$R/manifests/$T/tool.py"
run grep -c "+ 100" "$R/manifests/$T/tool.py"
expect_out "the working tree's code was changed" "1"
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_rc "serve the registry" 0
expect_out "the promoted tool is listed" "\"name\":\"$T\""
expect_out "the snapshot's code answers (3 rows, not 103)" '"structuredContent":{"rows":3,'
expect_err "says where the tools come from" "1 tool over stdio, and 0 prompts (from the registry's promoted tools)"
run "$TG" -C "$R" serve --dev <"$TMP/req.in"
expect_out "--dev runs the working tree's code" '"structuredContent":{"rows":103,'
G checkout -q -- "manifests/$T/tool.py"

# -- a staged candidate: only with --staging, marked, beside the active version as NAME_staged
sed -i 's/^version: .*/version: 1.1.0/; s/^title: .*/title: Count CSV rows again/' "$R/manifests/$T/tool.manifest.yaml"
"$TG" -C "$R" build >/dev/null 2>&1
run "$TG" -C "$R" stage $T
expect_rc "stage v1.1.0" 0
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_out "without --staging: the active version" '"title":"Count CSV rows"'
expect_not_out "without --staging: no candidate" "staged"
printf '%s\n' "$LIST" "$(printf '%s' "$CALL" | sed "s/\"name\":\"$T\"/\"name\":\"${T}_staged\"/")" >"$TMP/staged.in"
run "$TG" -C "$R" serve --staging <"$TMP/staged.in"
expect_rc "serve --staging" 0
expect_out "--staging: the promoted version is still served" '"name":"'$T'","title":"Count CSV rows"'
expect_out "--staging: the candidate beside it" '"name":"'$T'_staged","title":"[candidate v1.1.0, not approved] Count CSV rows again"'
expect_out "--staging: the description says so" '"description":"CANDIDATE v1.1.0 of '$T', staged for review, not approved by the user: use it only to review its output. The promoted version is '$T' v1.0.0.'
expect_out "--staging: _meta names state and version" '"dev.toolgen/lifecycle":{"state":"STAGED","version":"1.1.0"}'
expect_out "--staging: the candidate is callable" '"structuredContent":{"rows":3,'
expect_err "--staging: says where the tools come from" "2 tools over stdio, and 0 prompts (from the registry's promoted and staged tools)"
"$TG" -C "$R" run $T >/dev/null 2>&1
"$TG" -C "$R" feedback $T --output Yes >/dev/null && "$TG" -C "$R" feedback $T --decision Approve >/dev/null
run "$TG" -C "$R" serve --staging <"$TMP/staged.in"
expect_out "--staging: an approved candidate is not called unapproved" '"title":"[candidate v1.1.0, approved, not promoted] Count CSV rows again"'
expect_out "--staging: ... its description neither" 'approved by the user but not yet promoted'
expect_not_out "--staging: ... nowhere" 'not approved by the user'

# -- a path outside the data directories: the guidance's alternatives read as such
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"$T\",\"arguments\":{\"file_path\":\"/etc/passwd\"}}}" >"$TMP/forbidden.in"
run "$TG" -C "$R" serve <"$TMP/forbidden.in"
expect_out "a forbidden path: how to fix" 'How to fix: Copy the file into a data directory'
expect_out "... or the other way" '\n  or: Add its directory to sandbox.data_dirs in toolgen.yaml.'
expect_not_out "... said once" 'or: Or'
run "$TG" -C "$R" run $T --arg file_path=/etc/passwd
expect_err "toolgen run: the same alternatives" "  or:            Add its directory to sandbox.data_dirs"

# -- a tampered snapshot is left out, with the file and the fix
printf '# edited\n' >>"$R/registry/active/tools/$T/tool.py"
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_rc "serve with a tampered snapshot" 0
expect_out "the tampered tool is not listed" '"tools":[]'
expect_err "names the file" "registry/active/tools/$T/tool.py: SHA-256"
expect_err "says the fix" "git checkout -- registry/active/tools/$T/tool.py"
run "$TG" -C "$R" serve --staging <"$TMP/req.in"
expect_out "the intact candidate is still served" "\"name\":\"$T\""
G checkout -q -- "registry/active/tools/$T/tool.py"
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_out "restored: served again" "\"name\":\"$T\""

# -- a broken metadata file is a configuration error naming it
cp "$R/registry/active/metadata.json" "$TMP/meta.json"
printf '{"registry_version": 1}' >"$R/registry/active/metadata.json"
run "$TG" -C "$R" serve <"$TMP/req.in"
expect_rc "a metadata file that breaks its schema" 2
expect_err "names the metadata file" "registry/active/metadata.json"
cp "$TMP/meta.json" "$R/registry/active/metadata.json"

finish cli-serve-registry
