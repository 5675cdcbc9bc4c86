#!/bin/sh
# `toolgen new` against fake OpenAI-compatible and Anthropic servers on loopback
# (tests/newgen/fake_llm.py: scripted answers, every request recorded): the pipeline, the repair
# loop, retries, every kind of bad answer, --samples and pass@k, the cache, --frozen, and the API
# key kept out of everything (docs/generate.md).
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
KEY=sk-TOPSECRET-42
export TG_FAKE_KEY=$KEY
SERVER_PID=
stop_server() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; fi
    SERVER_PID=
}
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'stop_server; rm -rf "$TMP"' EXIT
trap 'stop_server; rm -rf "$TMP"; exit 130' INT
trap 'stop_server; rm -rf "$TMP"; exit 143' TERM

# setup NAME [kind=answers]...: a fresh copy of the fixture in $TMP/NAME/r, a fake server with that
# script ($TMP/NAME/log.jsonl records the requests), base_url pointing at it. Sets R, LOG, PORT.
setup() {
    stop_server
    D=$TMP/$1
    shift
    rm -rf "$D"
    mkdir -p "$D"
    sh tests/newgen/make_repo.sh "$D/r"
    python3 tests/newgen/script.py "$D/script.json" "$@"
    : >"$D/log.jsonl"
    python3 tests/newgen/fake_llm.py "$D/script.json" "$D/log.jsonl" "$D/port" &
    SERVER_PID=$!
    wait_for test -f "$D/port" || setup_failed "the fake model server did not start"
    PORT=$(cat "$D/port")
    sed -i "s#http://127.0.0.1:1/v1#http://127.0.0.1:$PORT/v1#" "$D/r/toolgen.yaml"
    R=$D/r
    LOG=$D/log.jsonl
}
requests() { # requests [KIND]: how many requests the server saw
    if [ -n "$1" ]; then grep -c "\"kind\": \"$1\"" "$LOG"; else grep -c . "$LOG"; fi
}
new() { run "$TG" -C "$R" new "average tip by day" --data data/tips.csv "$@"; }
TOOL=manifests/average_tip_by_day

# -- happy path: three requests (intent, spec, code), a staged and tested tool
setup happy
new
expect_rc "happy: exit" 0
expect_out "happy: intent" "intent: aggregate (openai/fake-model)"
expect_out "happy: the reading, before anything else" "reading: mean of tip, grouped by day"
expect_out "happy: passed" "PASSED average_tip_by_day: 4/4 tests passed"
expect_out "happy: staged, as toolgen stage does" "STAGED average_tip_by_day v0.1.0: registry/staging/candidates/average_tip_by_day_0.1.0 (DRAFT -> STAGED)"
expect_out "happy: next command" "next: toolgen run average_tip_by_day --arg file_path=data/tips.csv"
expect_eq "happy: 3 requests" "$(requests)" 3
expect_eq "happy: status staged" "$(grep -c '^status: staged' "$R/$TOOL/tool.manifest.yaml")" 1
expect_eq "happy: provenance" "$(grep -c 'model: "openai/fake-model"' "$R/$TOOL/tool.manifest.yaml")" 1
expect_eq "happy: lock pins the response" "$(grep -c '"response": "' "$R/$TOOL/tool.lock")" 1
run "$TG" -C "$R" lint
expect_rc "happy: the repository lints" 0
expect_eq "happy: the key was sent" "$(grep -c "Bearer $KEY" "$LOG")" 3
# the key is nowhere on disk (files, cache, reports) nor in any output
run grep -rl "$KEY" "$R"
expect_eq "happy: key in no file" "$OUT" ""
new --name other_name
case "$OUT$ERR" in *"$KEY"*) bad "happy: key in output" ;; *) ok ;; esac
# the sandbox's environment never held it: the tool's test asserts env_has_key false
expect_eq "happy: sandbox without key" "$(grep -c 'env_has_key: false' "$R/$TOOL/tool.manifest.yaml")" 2

# -- a rebuild sends zero requests; so does the same generation again (the cache)
N=$(requests)
run "$TG" -C "$R" build
expect_rc "rebuild: exit" 0
expect_eq "rebuild: no request" "$(requests)" "$N"
rm -rf "$R/$TOOL" "$R/manifests/other_name"
new
expect_rc "cached: exit" 0
expect_out "cached: all from the cache" "llm: 0 requests sent, 3 answers from the cache"
expect_eq "cached: no request" "$(requests)" "$N"
run "$TG" -C "$R" status
expect_eq "cached: new ends in the state it printed" "$(printf '%s\n' "$OUT" | awk '$1 == "average_tip_by_day" { print $2 }')" STAGED
# --no-cache asks again, and the answers replace the cached ones
rm -rf "$R/$TOOL"
new --no-cache
expect_rc "no-cache: exit" 0
expect_out "no-cache: asked again" "llm: 3 requests sent, 0 answers from the cache"
new --no-cache --frozen
expect_rc "no-cache with frozen: exit 2" 2
expect_err "no-cache with frozen: says so" "give one of them"
N=$(requests)

# -- replay answers from the cache only; --frozen the same
rm -rf "$R/$TOOL"
new --provider replay
expect_rc "replay: exit" 0
expect_eq "replay: no request" "$(requests)" "$N"
rm -rf "$R/$TOOL" "$R/.toolgen/llm-cache"
new --frozen
expect_rc "frozen: exit" 1
expect_err "frozen: says why" "not in the cache (.toolgen/llm-cache) and --frozen allows no requests"
expect_eq "frozen: no request" "$(requests)" "$N"
expect_eq "frozen: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"

# -- toolgen build generates the code again only when the spec or a code prompt changed
setup regen
cp -r prompts "$R/prompts"
new
expect_rc "regen: staged" 0
N=$(requests)
sed -i 's/^title: Average tip by day/title: Mean tip by day/' "$R/$TOOL/tool.manifest.yaml"
run "$TG" -C "$R" build --frozen average_tip_by_day
expect_rc "regen: frozen build fails" 1
expect_err "regen: frozen lists the tool" "these tools need their code generated again (run toolgen build without --frozen):
  average_tip_by_day: spec changed"
expect_eq "regen: frozen sends nothing" "$(requests)" "$N"
run "$TG" -C "$R" build average_tip_by_day
expect_rc "regen: build" 0
expect_out "regen: says why" "generate average_tip_by_day (spec changed)"
expect_eq "regen: one code request" "$(requests code)" 2
expect_eq "regen: nothing else asked" "$(requests)" $((N + 1))
run "$TG" -C "$R" build average_tip_by_day
expect_out "regen: second build does nothing" "toolgen: no work to do."
expect_eq "regen: second build asks nothing" "$(requests)" $((N + 1))
printf '\nCheck the column names twice.\n' >>"$R/prompts/code.md"
run "$TG" -C "$R" build average_tip_by_day
expect_out "regen: a code prompt edit" "generate average_tip_by_day (prompt code changed)"
expect_eq "regen: asked once more" "$(requests)" $((N + 2))
printf '# edited by hand\n' >>"$R/$TOOL/tool.py"
sed -i 's/^title: Mean tip by day/title: Mean tip per day/' "$R/$TOOL/tool.manifest.yaml"
run "$TG" -C "$R" build average_tip_by_day
expect_err "regen: hand-edited code is kept" "average_tip_by_day: tool.py was edited by hand, so it is not generated again"
expect_eq "regen: hand-edited: no request" "$(requests)" $((N + 2))
expect_eq "regen: hand-edited: still there" "$(grep -c 'edited by hand' "$R/$TOOL/tool.py")" 1
run "$TG" -C "$R" build group_and_count_by_columns
expect_not_out "regen: a hand-written tool is never generated" "generate "

# -- failing code: the repair request carries the failures, the fixed code is staged
setup repair code=bad repair=good
new
expect_rc "repair: exit" 0
expect_out "repair: first code fails" "code: 2/4 tests passed (50%)"
expect_out "repair: improvement" "repair 1: 4/4 tests passed (100%), correctness 1.00, score 1.00 (+50 points of pass rate"
expect_out "repair: staged" "STAGED average_tip_by_day"
expect_eq "repair: 4 requests" "$(requests)" 4
run python3 -c "
import json
for l in open('$LOG'):
    r = json.loads(l)
    if r['kind'] == 'repair':
        print(r['body']['messages'][1]['content'])"
expect_out "repair: request has the failed test" "1. tips_by_day (normal): output: /rows/0/mean_tip: expected 2.7347, got 3.0"
expect_out "repair: request has the metrics" "Test Pass Rate: 50% (2/4 tests passed)"
expect_out "repair: request has the code" ".median()"
expect_out "repair: request has the targets" "test pass rate >= 95%"

# -- code that never passes: REJECTED after max_repair_iterations, nothing left in manifests/
setup rejected code=bad repair=bad
new
expect_rc "rejected: exit" 1
expect_out "rejected: outcome" "REJECTED average_tip_by_day: 2/4 tests passed, failed gate test_pass_rate"
expect_eq "rejected: 1 + 2 repairs" "$(requests repair)" 2
expect_eq "rejected: manifests untouched" "$(ls "$R/manifests")" "group_and_count_by_columns"
expect_eq "rejected: no generated files" "$(ls "$R/generated" 2>/dev/null | grep -c average)" 0
expect_eq "rejected: kept for a look" "$(ls "$R/.toolgen/gen/average_tip_by_day")" "diagnostics.txt
tool.manifest.yaml
tool.py"

# -- 429 with Retry-After: waits as asked, then succeeds
setup r429 intent=429,intent
new
expect_rc "429: exit" 0
expect_eq "429: two intent requests" "$(requests intent)" 2
# The wait is the behaviour, so this reads the server's clock: a lower bound, which a slow
# machine only makes truer. tests/unit/test_net.c checks the waits asked for without a clock.
run python3 -c "
import json
t = [json.loads(l)['time'] for l in open('$LOG')]
print('waited' if t[1] - t[0] >= 0.95 else 'too soon: %.3f' % (t[1] - t[0]))"
expect_out "429: Retry-After honoured" "waited"

# -- 500 then success
setup r500 spec=500,spec
new
expect_rc "500 then ok: exit" 0
expect_eq "500 then ok: two spec requests" "$(requests spec)" 2

# -- 500 until the last try: a clear error, nothing written
setup r500all spec=500
new
expect_rc "500 always: exit 3" 3
expect_err "500 always: gave up" "gave up after 3 attempts"
expect_err "500 always: status" "answered HTTP 500"
expect_eq "500 always: 3 attempts" "$(requests spec)" 3
expect_eq "500 always: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"

# -- the model fails every retry: the fallback model answers
setup fallback intent=primary_down
sed -i 's/^  model: fake-model/  model: fake-model\n  fallback_model: small-model/' "$R/toolgen.yaml"
new
expect_rc "fallback: exit" 0
expect_out "fallback: the fallback answered" "intent: aggregate (openai/small-model)"
expect_eq "fallback: 3 tries, then 1" "$(requests intent)" 4
expect_eq "fallback: asked for small-model" "$(grep -c '"model": "small-model"' "$LOG")" 1

# -- a dropped connection is retried too
setup drop intent=drop,intent
new
expect_rc "drop: exit" 0
expect_eq "drop: retried" "$(requests intent)" 2

# -- timeout (timeout_s 2, the answer takes 4 s; no retries here)
setup timeout intent=slow
sed -i 's/max_retries: 2/max_retries: 0/' "$R/toolgen.yaml"
new
expect_rc "timeout: exit 3" 3
expect_err "timeout: says so" "Timeout was reached"

# -- malformed JSON, truncated, no code block, refusal: errors naming provider and content
setup malformed code=malformed
new
expect_rc "malformed: exit 1" 1
expect_err "malformed: names provider" "openai: the answer is not a JSON object"
expect_err "malformed: quotes it" '{\"choices\": [ {\"message\": '
expect_eq "malformed: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"
setup truncated spec=truncated
new
expect_rc "truncated: exit 1" 1
expect_err "truncated: says so" "openai: the answer was truncated at max_tokens"
setup nocode code=nocode
new
expect_rc "no code block: exit 1" 1
expect_err "no code block: says so" "openai/fake-model: the answer to the code prompt has no \`\`\`python code block; it began \"I would compute"
expect_eq "no code block: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"
# an unusable answer is never cached: the same request asks the model again
N=$(requests code)
new
expect_eq "no code block: not cached, asked again" "$(requests code)" "$((N + 1))"
expect_out "no code block: the intent and spec came from the cache" "llm: 1 request sent, 2 answers from the cache"
setup refusal intent=refusal
new
expect_rc "refusal: exit 1" 1
expect_err "refusal: says so" "openai refused: I cannot help with that."

# -- --samples 5 with 3 good candidates: the seed's pass@k, the best kept
setup samples code=good,bad,good,bad,good
new --samples 5
expect_rc "samples: exit" 0
expect_out "samples: pass@k" "samples: 5 generated, 3 pass: pass@1 0.60 pass@5 1.00 pass@10 n/a"
expect_eq "samples: 5 code requests" "$(requests code)" 5
expect_eq "samples: no repair" "$(requests repair)" 0
expect_out "samples: passed" "PASSED average_tip_by_day: 4/4"
expect_eq "samples: the good code kept" "$(grep -c '.mean()' "$R/$TOOL/tool.py")" 1

# -- with samples, an unusable answer is a failed candidate, not the end
setup samples_nocode code=nocode,good,bad
new --samples 3
expect_rc "samples, one unusable: exit" 0
expect_out "samples, one unusable: said" "candidate 1: unusable answer: openai/fake-model: the answer to the code prompt has no"
expect_out "samples, one unusable: pass@k" "samples: 3 generated, 1 pass: pass@1 0.33 pass@5 n/a pass@10 n/a"
expect_out "samples, one unusable: staged" "STAGED average_tip_by_day"

# -- gap detection: an existing tool covers every part of the model's reading, nothing generated
setup reuse intent=intent_count
run "$TG" -C "$R" new "how many bills per day and time" --data data/tips.csv
expect_rc "reuse: exit" 0
expect_out "reuse: the reading" "reading: number of rows, grouped by day and time"
expect_out "reuse: REUSE" "REUSE group_and_count_by_columns: it covers every part of the reading; overlap"
expect_out "reuse: the exact call" "next: toolgen run group_and_count_by_columns --input '{\"file_path\":\"data/tips.csv\",\"group_by_columns\":[\"day\",\"time\"]}'"
expect_eq "reuse: only the intent request" "$(requests)" 1

# -- the same reading check for a model's intent: a filter the tool cannot apply is not dropped
setup reuse_filter intent=intent_filtered
run "$TG" -C "$R" new "how many bills per day and time for smokers" --data data/tips.csv
expect_out "reuse, filtered: the reading" "reading: number of rows, grouped by day and time, where smoker == 'Yes'"
expect_out "reuse, filtered: not reused" "does not cover the reading: it has no filters, the request has smoker == 'Yes'"
expect_not_out "reuse, filtered: no REUSE" "REUSE"
# an intent that does not say which columns group: its reading is not known, nothing is reused
setup reuse_unknown intent=intent_columns_only
run "$TG" -C "$R" new "how many bills per day and time" --data data/tips.csv
expect_out "reuse, unknown: said" "reading: not understood: the intent lists columns without saying which are measured and which group"
expect_not_out "reuse, unknown: no REUSE" "REUSE"
# what the model could not map is named and refused, never dropped
setup unclear intent=intent_unclear
run "$TG" -C "$R" new "average bill by day" --data data/tips.csv
expect_rc "unclear: exit 2" 2
expect_err "unclear: names the word" "the model could not map 'bill' of the request to the data"
expect_eq "unclear: only the intent request" "$(requests)" 1
expect_eq "unclear: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"

# -- Anthropic: /v1/messages with its version header and x-api-key
setup anthropic
sed -i "s#provider: openai#provider: anthropic#; s#/v1\$##" "$R/toolgen.yaml"
new
expect_rc "anthropic: exit" 0
expect_out "anthropic: staged" "STAGED average_tip_by_day"
expect_eq "anthropic: path" "$(grep -c '"path": "/v1/messages"' "$LOG")" 3
expect_eq "anthropic: version header" "$(grep -ci '"anthropic-version": "2023-06-01"' "$LOG")" 3
expect_eq "anthropic: key header" "$(grep -ci "\"x-api-key\": \"$KEY\"" "$LOG")" 3

# -- --provider anthropic with the OpenAI-style base_url (".../v1"): no second /v1
setup anthropic_v1
new --provider anthropic
expect_rc "anthropic on .../v1: exit" 0
expect_eq "anthropic on .../v1: path" "$(grep -c '"path": "/v1/messages"' "$LOG")" 3

# -- a server that quotes the key back in its error: the message never shows it
setup echo intent=echo
new
expect_rc "echo: exit 3" 3
expect_err "echo: the error is shown" "answered HTTP 400"
expect_err "echo: the key is masked" "rejected Bearer ***"
case "$OUT$ERR" in *"$KEY"*) bad "echo: key in a message" ;; *) ok ;; esac
expect_eq "echo: 4xx is not retried" "$(requests)" 1

# -- usage errors: exit 2, nothing asked, nothing written
setup usage
TG_FAKE_KEY= run "$TG" -C "$R" new "average tip by day" --data data/tips.csv
expect_rc "no key: exit 2" 2
expect_err "no key: names the variable" "the environment variable TG_FAKE_KEY (llm.api_key_env) is not set"
new --provider nosuch
expect_rc "bad provider: exit 2" 2
expect_err "bad provider: says which" "unknown LLM provider 'nosuch'"
new --name group_and_count_by_columns
expect_rc "existing folder: exit 2" 2
expect_err "existing folder: says so" "manifests/group_and_count_by_columns already exists: choose another name with --name NAME"
new --name Bad-Name
expect_rc "bad name: exit 2" 2
run "$TG" -C "$R" new
expect_rc "no intent: exit 2" 2
new --samples 0
expect_rc "bad samples: exit 2" 2
run "$TG" -C "$R" new "average tip by day" --data data/no_such.csv
expect_rc "missing data file: exit 2" 2
expect_err "missing data file: names it" "no_such.csv"
expect_eq "usage: nothing written" "$(ls "$R/manifests")" "group_and_count_by_columns"

stop_server
finish new_llm
