#!/bin/sh
# toolgen serve --dev: the tool set is read again when the manifests change while serving,
# and clients are told (legacy list_changed, 2026-07-28 subscriptions/listen), driven by
# tests/cli/serve_watch.mjs.
. tests/lib.sh

R="$TMP/repo"
mkdir -p "$R/manifests/a_tool" "$R/data" "$TMP/spare"
cp toolgen.yaml "$R/"
sed 's/@NAME@/a_tool/g' tests/synthetic_tool.yaml >"$R/manifests/a_tool/tool.manifest.yaml"
sed 's/@NAME@/b_tool/g' tests/synthetic_tool.yaml >"$TMP/spare/tool.manifest.yaml"

run env TG="$TG" REPO="$R" SPARE="$TMP/spare" node tests/cli/serve_watch.mjs
expect_rc "the client" 0
expect_out "the client ran" "client: "
expect_not_out "the client" "FAIL"
printf '%s\n' "$OUT" | grep FAIL >&2
expect_err "the log names the notifications sent" '"method":"notifications/tools/list_changed"'

finish cli-serve-watch
