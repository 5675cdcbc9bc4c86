#!/bin/sh
# While generate_tool works, toolgen serve answers everything else (docs/mcp.md#concurrency):
# over Streamable HTTP with the workflow on, a generation whose model (tests/newgen/fake_llm.py
# on loopback) holds its first answer until the test releases it; meanwhile tools/list and a
# call of another tool are answered, each within a second. Ordering is by events: the model
# cannot answer before the release, which comes after both answers.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/r
sh tests/newgen/make_repo.sh "$R"
python3 tests/newgen/script.py "$TMP/script.json"
python3 - "$TMP/script.json" "$TMP/release" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["intent"][0]["wait_file"] = sys.argv[2]
json.dump(s, open(sys.argv[1], "w"))
EOF
: >"$TMP/llm.jsonl"
python3 tests/newgen/fake_llm.py "$TMP/script.json" "$TMP/llm.jsonl" "$TMP/llm.port" &
llm_pid=$!
serve_pid=""
stop_all() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    kill "$llm_pid" 2>/dev/null
    wait "$llm_pid" 2>/dev/null
}
trap 'touch "$TMP/release"; stop_all; rm -rf "$TMP"' EXIT
trap 'touch "$TMP/release"; stop_all; rm -rf "$TMP"; exit 130' INT
trap 'touch "$TMP/release"; stop_all; rm -rf "$TMP"; exit 143' TERM
i=0
while [ ! -f "$TMP/llm.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sed -i "s#http://127.0.0.1:1/v1#http://127.0.0.1:$(cat "$TMP/llm.port")/v1#; s#timeout_s: 2#timeout_s: 600#" \
    "$R/toolgen.yaml"
printf 'serve:\n  workflow: true\n' >>"$R/toolgen.yaml"

TG_FAKE_KEY=sk-test-unlocked "$TG" -C "$R" serve --dev --http 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
port="" i=0
while [ -z "$port" ] && [ $i -lt 100 ] && kill -0 $serve_pid 2>/dev/null; do
    sleep 0.1
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$TMP/serve.err")
    i=$((i + 1))
done
run python3 tests/cli/serve_unlocked.py "http://127.0.0.1:$port/mcp" "$TMP/llm.jsonl" "$TMP/release"
expect_rc "the client ran" 0
J=$OUT
field() { printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1'))"; }
expect_eq "a first call of the tool" "$(field warm_ok)" True
expect_eq "the model was asked: generate_tool is working" "$(field model_asked)" True
expect_eq "tools/list answered while it works" \
    "$(printf '%s' "$J" | python3 -c "import json,sys; n=json.load(sys.stdin)['list_names']; print('generate_tool' in n and 'group_and_count_by_columns' in n)")" True
expect_eq "another tool called while it works" "$(field call_ok)" True
expect_eq "both before generate_tool's answer" "$(field generate_pending)" True
expect_eq "tools/list within a second" "$(field list_s | python3 -c 'import sys; print(float(sys.stdin.read()) < 1.0)')" True
expect_eq "the call within a second" "$(field call_s | python3 -c 'import sys; print(float(sys.stdin.read()) < 1.0)')" True
expect_eq "generate_tool ended after the release" "$(field generate_ended_after_release)" True
expect_eq "generate_tool staged its tool" "$(field generate_state)" STAGED
printf 'tools/list %ss, call %ss while generate_tool worked\n' "$(field list_s)" "$(field call_s)"
finish cli-serve-unlocked
