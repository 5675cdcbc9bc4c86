#!/bin/sh
# While generate_tool works, toolgen serve answers everything else (docs/mcp.md#concurrency):
# over Streamable HTTP with the workflow on, a generation whose model (tests/newgen/fake_llm.py
# on loopback) holds its first answer until the test releases it; meanwhile tools/list and a
# call of another tool are answered. Ordering is by events: the model cannot answer before the
# release, which comes after both answers; a server that held its lock through the generation
# would not answer them at all, and the client gives up on them after a bound that only
# protects against that hang. Their latencies are printed, not asserted.
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
wait_for test -f "$TMP/llm.port" || setup_failed "the fake model server did not start"
sed -i "s#http://127.0.0.1:1/v1#http://127.0.0.1:$(cat "$TMP/llm.port")/v1#; s#timeout_s: 2#timeout_s: 600#" \
    "$R/toolgen.yaml"
printf 'serve:\n  workflow: true\n' >>"$R/toolgen.yaml"

TG_FAKE_KEY=sk-test-unlocked "$TG" -C "$R" serve --dev --http 127.0.0.1:0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
serve_port "$TMP/serve.err" "$serve_pid"
[ -n "$PORT" ] || setup_failed "serve --http did not say which port it listens on: $(cat "$TMP/serve.err")"
run python3 tests/cli/serve_unlocked.py "http://127.0.0.1:$PORT/mcp" "$TMP/llm.jsonl" "$TMP/release" \
    "$HANG_S"
expect_rc "the client ran" 0
J=$OUT
field() { printf '%s' "$J" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1'))"; }
expect_eq "a first call of the tool" "$(field warm_ok)" True
expect_eq "the model was asked: generate_tool is working" "$(field model_asked)" True
expect_eq "tools/list answered while it works" \
    "$(printf '%s' "$J" | python3 -c "import json,sys; n=json.load(sys.stdin)['list_names']; print('generate_tool' in n and 'group_and_count_by_columns' in n)")" True
expect_eq "another tool called while it works" "$(field call_ok)" True
expect_eq "both before generate_tool's answer" "$(field generate_pending)" True
expect_eq "generate_tool ended after the release" "$(field generate_ended_after_release)" True
expect_eq "generate_tool staged its tool" "$(field generate_state)" STAGED
printf 'measured, not asserted: tools/list %ss, call %ss while generate_tool worked\n' \
    "$(field list_s)" "$(field call_s)"
finish cli-serve-unlocked
