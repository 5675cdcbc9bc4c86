#!/bin/sh
# toolgen serve over stdio with the official TypeScript client 2.x (@modelcontextprotocol/client,
# protocol revision 2026-07-28), driven by tests/cli/serve_client2.mjs on a copy of this
# repository with a tool that asks and one that runs until cancelled.
. tests/lib.sh

NPM=tests/npm/node_modules
if [ ! -d "$NPM/@modelcontextprotocol/client" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/client is missing: run 'make test-deps'"
    finish cli-serve-client2
    exit 1
fi

R="$TMP/repo"
mkdir -p "$R/manifests/count_column" "$R/manifests/slow_tool" "$TMP/spare"
cp -r manifests/* "$R/manifests/"
cp -r data prompts toolgen.yaml "$R/"
cp tests/testdata/ask_tool/tool.manifest.yaml tests/testdata/ask_tool/tool.py "$R/manifests/count_column/"
sed -e 's/@NAME@/slow_tool/g' -e "s/^  argv: .*/  argv: [sleep, '600']/" tests/synthetic_tool.yaml \
    >"$R/manifests/slow_tool/tool.manifest.yaml"
sed 's/@NAME@/zz_added/g' tests/synthetic_tool.yaml >"$TMP/spare/tool.manifest.yaml"
printf 'a,b\n1,2\n3,\n5,6\n' >"$R/data/x.csv"

GOLDEN=$(ls generated/*/golden/*.request.json)
HTTP_TOOLS=$(grep -l 'runtime: http' manifests/*/tool.manifest.yaml | sed 's|manifests/\([^/]*\)/.*|\1|')
run env TG="$TG" REPO="$R" SPARE="$TMP/spare" GOLDEN="$GOLDEN" HTTP_TOOLS="$HTTP_TOOLS" \
    node tests/cli/serve_client2.mjs
expect_rc "the 2.x client" 0
expect_out "the 2.x client ran" "client: "
expect_not_out "the 2.x client" "FAIL"
printf '%s\n' "$OUT" | grep FAIL >&2
n=$(printf '%s\n' "$ERR" | grep '"tool":"slow_tool"' | grep -c '"status":"cancelled"')
expect_eq "the cancelled call is logged as cancelled" "$n" 1
expect_err "the 2.x client spoke 2026-07-28" '"method":"tools/list","era":"2026-07-28"'
case "$ERR" in *'"era":"legacy"'*) bad "a legacy request was logged" ;; *) ok ;; esac

finish cli-serve-client2
