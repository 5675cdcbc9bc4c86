#!/bin/sh
# `toolgen new` with the builtin provider (the default): no network, no key, no requests; the
# example's output from a real call, the gates, STAGED; a refused intent and REUSE leave
# manifests/ as it was (docs/generate.md).
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/r
sh tests/newgen/make_repo.sh "$R"
sed -i 's/provider: openai/provider: builtin/' "$R/toolgen.yaml"
unset TG_FAKE_KEY OPENAI_API_KEY ANTHROPIC_API_KEY

run "$TG" -C "$R" new "average tip by day" --data data/tips.csv
expect_rc "offline: exit" 0
expect_out "offline: the reading first" "reading: mean of tip, grouped by day"
expect_out "offline: the plan" "plan: aggregate mean(tip) by day (builtin generator)"
expect_out "offline: passed" "PASSED mean_tip_by_day: 7/7 tests passed"
expect_out "offline: staged" "STAGED mean_tip_by_day v0.1.0: registry/staging/candidates/mean_tip_by_day_0.1.0 (DRAFT -> STAGED)"
expect_out "offline: next" "next: toolgen run mean_tip_by_day --arg file_path=data/tips.csv"
# STAGED means one thing: what toolgen status says, and the next command works
run "$TG" -C "$R" status
expect_eq "offline: status says STAGED" "$(printf '%s\n' "$OUT" | awk '$1 == "mean_tip_by_day" { print $2 }')" STAGED
expect_not_out "offline: no requests" "llm:"
T=$R/manifests/mean_tip_by_day
expect_eq "offline: status staged" "$(grep -c '^status: staged' "$T/tool.manifest.yaml")" 1
expect_eq "offline: lock says offline" "$(grep -c '"generator": "offline"' "$T/tool.lock")" 1
expect_eq "offline: no placeholder left" "$(grep -c 'placeholder' "$T/tool.manifest.yaml")" 0
expect_eq "offline: no cache" "$(ls "$R/.toolgen" | grep -c llm-cache)" 0
run "$TG" -C "$R" lint
expect_rc "offline: lints" 0
run "$TG" -C "$R" run mean_tip_by_day --arg file_path=data/tips.csv
expect_rc "offline: the staged run" 0
expect_out "offline: the staged run presents" "## Mean of tip per day"
expect_out "offline: Sun's mean" "3.2551"
expect_out "offline: rows read, not rows returned" "**Rows Processed**: 244"
# no knob that changes the data an answer is computed from reaches the contract
expect_eq "offline: no test knobs" "$(grep -c 'max_rows\|repeat' "$T/tool.manifest.yaml")" 0
# the title says what this call computed, whatever the tool was made for
run "$TG" -C "$R" run mean_tip_by_day --input '{"file_path":"data/tips.csv","value_columns":["total_bill"],"group_by":["sex"]}' --json
expect_out "offline: the title from the arguments" '"title": "Mean of total_bill per sex"'
# the same reading on another file: REUSE with the columns as arguments; then rows read, used,
# and why the others were not, under the title of this call
run "$TG" -C "$R" new "average body mass by sex" --data data/penguins.csv
expect_rc "offline: penguins: exit" 0
CALL='{"file_path":"data/penguins.csv","value_columns":["body_mass_g"],"group_by":["sex"]}'
expect_out "offline: penguins: REUSE with the exact call" "next: toolgen run mean_tip_by_day --input '$CALL'"
run "$TG" -C "$R" run mean_tip_by_day --input "$CALL" --json
expect_out "offline: penguins: the title of this call" '"title": "Mean of body_mass_g per sex"'
expect_out "offline: rows read" '"rows_in": 344'
expect_out "offline: rows used" '"rows_used": 333'
expect_out "offline: why the others were not" '"why": "sex missing (a group key)"'
expect_out "offline: said in the summary" "344 rows of data/penguins.csv read, 333 used.\\n- 11 rows: sex missing (a group key)"
# a build afterwards has nothing to generate, and the builtin tool is never regenerated
run "$TG" -C "$R" build mean_tip_by_day
expect_rc "offline: build" 0
expect_not_out "offline: no generation" "generate "

# the same request in other words is the same reading: the tool just made covers it (REUSE)
run "$TG" -C "$R" new "what is the mean tip for each day?" --data data/tips.csv
expect_rc "offline: same reading again: exit" 0
expect_out "offline: same reading again: the reading" "reading: mean of tip, grouped by day"
expect_out "offline: same reading again: REUSE" "REUSE mean_tip_by_day: it covers every part of the reading"
expect_out "offline: same reading again: the call" "next: toolgen run mean_tip_by_day --input '{\"file_path\":\"data/tips.csv\",\"value_columns\":[\"tip\"],\"group_by\":[\"day\"]}'"
# a name that is taken is refused, not overwritten
run "$TG" -C "$R" new "median tip by day" --data data/tips.csv --name mean_tip_by_day
expect_rc "offline: taken name: exit 2" 2
expect_err "offline: taken name: says so" "manifests/mean_tip_by_day already exists"

# an intent it does not understand: the closest phrasings, how to configure a model, nothing
# written
run "$TG" -C "$R" new "forecast next year's tips" --data data/tips.csv
expect_rc "refused: exit 2" 2
expect_err "refused: closest phrasings" "Closest phrasings it supports on data/tips.csv"
expect_err "refused: how to use a model" "llm.provider"
# under SANITIZE=1 the suggestions (gen/builtin_suggest.c) must all be freed
expect_eq "refused: no sanitizer report" "$(printf '%s\n' "$ERR" | grep -c Sanitizer)" 0
expect_eq "refused: nothing written" "$(ls "$R/manifests" | tr '\n' ' ')" "group_and_count_by_columns mean_tip_by_day "

# one thing open: asked, never guessed; off a terminal, exit 2 with the answers it accepts, and
# nothing written; the answer given with --assume settles it
run "$TG" -C "$R" new "tip by day" --data data/tips.csv
expect_rc "asked: exit 2" 2
expect_err "asked: the question" "What should be computed of tip per day"
expect_err "asked: the answers" "--assume 'aggregate=sum'"
expect_eq "asked: nothing written" "$(ls "$R/manifests" | tr '\n' ' ')" "group_and_count_by_columns mean_tip_by_day "
run "$TG" -C "$R" new "tip by day" --data data/tips.csv --assume aggregate=sum
expect_rc "answered: exit 0" 0
expect_out "answered: the reading" "reading: sum of tip, grouped by day"
run "$TG" -C "$R" new "tip by day" --data data/tips.csv --assume aggregate
expect_rc "answered: --assume without a meaning is a usage error" 2
# the derived name leaves the filter's values out: a second request of that name gets its own
run "$TG" -C "$R" new "average tip where total bill is over 20" --data data/tips.csv
expect_out "names: the first" "STAGED mean_tip_where_total_bill v0.1.0"
run "$TG" -C "$R" new "average tip where total bill is under 10" --data data/tips.csv
expect_rc "names: the second: exit 0" 0
expect_out "names: the second gets a free name" "STAGED mean_tip_where_total_bill_2 v0.1.0"
expect_eq "names: the first is as it was" "$(grep -c "(df\['total_bill'\] > 20)" "$R/manifests/mean_tip_where_total_bill/tool.py")" 1
expect_eq "names: the second its own" "$(grep -c "(df\['total_bill'\] < 10)" "$R/manifests/mean_tip_where_total_bill_2/tool.py")" 1

# no data file: the builtin generator needs one
run "$TG" -C "$R" new "average tip by day"
expect_rc "no data: exit 2" 2
expect_err "no data: says so" "the builtin generator needs a data file: add --data FILE"

# REUSE: an existing tool fits, nothing generated
BEFORE=$(ls "$R/manifests" | tr '\n' ' ')
run "$TG" -C "$R" new "count the bills per day and time" --data data/tips.csv
expect_rc "reuse: exit" 0
expect_out "reuse: REUSE" "REUSE group_and_count_by_columns"
expect_out "reuse: exact call" "\"group_by_columns\":[\"day\",\"time\"]"
expect_eq "reuse: nothing written" "$(ls "$R/manifests" | tr '\n' ' ')" "$BEFORE"

finish new_offline
