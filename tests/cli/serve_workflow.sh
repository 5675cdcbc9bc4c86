#!/bin/sh
# The tool lifecycle as MCP tools (docs/mcp.md#the-workflow-over-mcp): off unless toolgen.yaml
# says serve: {workflow: true}; then an end-to-end session of the official TypeScript SDK client
# (tests/cli/serve_workflow.mjs) in a temporary git repository with the built-in generator,
# and the promotion commit it leaves.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
NPM=tests/npm/node_modules
if [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "$NPM/@modelcontextprotocol/sdk is missing: run 'make test-deps'"
    finish cli-serve-workflow
    exit 1
fi
R=$TMP/r
sh tests/newgen/make_repo.sh "$R"
sed -i 's/provider: openai/provider: builtin/' "$R/toolgen.yaml"
unset TG_FAKE_KEY OPENAI_API_KEY ANTHROPIC_API_KEY
export TOOLGEN_USER=alice
G() { git -C "$R" -c user.name=tester -c user.email=tester@example.org "$@"; }
printf '.toolgen/\ngenerated/\n' >"$R/.gitignore"
G init -q -b main && G add -A && G commit -qm init

M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$M26}}" >"$TMP/list.in"

# -- off by default
run "$TG" -C "$R" serve <"$TMP/list.in"
expect_rc "workflow off: serve" 0
expect_not_out "workflow off: no generate_tool" "generate_tool"

# -- a wrong value is a configuration error naming the key
printf 'serve:\n  workflow: yes please\n' >>"$R/toolgen.yaml"
run "$TG" -C "$R" serve <"$TMP/list.in"
expect_rc "serve.workflow not a boolean" 2
expect_err "names the key" "serve/workflow"
sed -i 's/workflow: yes please/workflow: true/' "$R/toolgen.yaml"
G commit -qam "serve the workflow"

# -- the session
run env TG="$TG" REPO="$R" node tests/cli/serve_workflow.mjs
expect_rc "the SDK client's session" 0
expect_out "the client ran" "client: "
expect_not_out "the client" "FAIL"
printf '%s\n' "$OUT" | grep FAIL >&2
expect_eq "three promotion commits" "$(G log --format=%s -3 | tr "\n" ,)" "promote min_total_bill_by_time v0.1.0,promote max_total_bill_by_day v0.1.0,promote mean_tip_by_day v0.1.0,"
run G log -3 --format=%B
expect_out "the approval verbatim" "Approval: Approve"
expect_out "who approved" "Approved-By: alice"
expect_out "through the client's form" "Approved-Via: mcp-elicitation"
run G log -1 --format=%B
expect_not_out "approved on the command line: no Approved-Via" "Approved-Via"
run "$TG" -C "$R" check
run cat "$R/.toolgen/metrics.json"
expect_out "metrics: the promotions counted" '"promoted": 3'

# -- a served tool named like a workflow tool is hidden while the workflow is on
mkdir -p "$R/manifests/promote_tool"
sed 's/^name: .*/name: promote_tool/' "$R/manifests/group_and_count_by_columns/tool.manifest.yaml" \
    >"$R/manifests/promote_tool/tool.manifest.yaml"
cp "$R/manifests/group_and_count_by_columns/tool.py" "$R/manifests/promote_tool/"
run "$TG" -C "$R" serve --dev <"$TMP/list.in"
expect_rc "serve --dev with a tool named promote_tool" 0
expect_eq "listed once: the workflow's" "$(printf '%s' "$OUT" | grep -o '"name":"promote_tool"' | wc -l)" 1
expect_out "the workflow's promote_tool" '"title":"Promote an approved tool"'

finish cli-serve-workflow
