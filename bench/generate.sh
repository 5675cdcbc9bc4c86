#!/bin/sh
# bench/generate.sh — what `toolgen new` costs (docs/benchmarks.md, "toolgen new"):
#
#   1. the pipeline's own overhead with a model: `toolgen new` against the fake OpenAI-compatible
#      server of the tests (tests/newgen/fake_llm.py, answering at once: intent, spec, code),
#      minus a build of the same tool (load, emit, static, test) — the gates, which any tool
#      pays. Median of RUNS runs (default 3), each in a fresh copy, so nothing is cached.
#   2. wall time from `toolgen new` to a staged tool for twenty built-in intents over the
#      repository's data, each in a fresh copy of the repository (manifests, data, toolgen.yaml).
#
# $TOOLGEN (default bin/toolgen). Work files go to $BENCH_DIR (default bench/work/generate/,
# git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-3}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make -j2 >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/generate}
rm -rf "$WORK"
mkdir -p "$WORK"
chmod 755 "$WORK"
now() { python3 -c 'import time; print(time.monotonic())'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# ---- 1. overhead with the fake provider -----------------------------------------------------
python3 tests/newgen/script.py "$WORK/script.json"
: >"$WORK/log.jsonl"
python3 tests/newgen/fake_llm.py "$WORK/script.json" "$WORK/log.jsonl" "$WORK/port" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null' EXIT INT TERM
while [ ! -f "$WORK/port" ]; do sleep 0.1; done
PORT=$(cat "$WORK/port")
export TG_FAKE_KEY=bench
: >"$WORK/new.txt"
: >"$WORK/build.txt"
for i in $(seq "$RUNS"); do
    R=$WORK/llm$i
    sh tests/newgen/make_repo.sh "$R"
    sed -i "s#http://127.0.0.1:1/v1#http://127.0.0.1:$PORT/v1#" "$R/toolgen.yaml"
    rm -rf "$R/.toolgen"
    "$TG" -C "$R" build >/dev/null 2>&1 || true # the other tool, so only the new one is timed
    t0=$(now)
    "$TG" -C "$R" new "average tip by day" --data data/tips.csv >"$WORK/new$i.out" 2>&1
    t1=$(now)
    grep -q "STAGED" "$WORK/new$i.out" || { cat "$WORK/new$i.out"; exit 1; }
    # the same tool, built alone from scratch: what the gates cost
    B=$WORK/build$i
    sh tests/newgen/make_repo.sh "$B"
    cp -r "$R/manifests/average_tip_by_day" "$B/manifests/"
    rm -f "$B/manifests/average_tip_by_day/tool.lock"
    "$TG" -C "$B" build group_and_count_by_columns >/dev/null 2>&1 || true
    t2=$(now)
    "$TG" -C "$B" build average_tip_by_day >/dev/null 2>&1
    t3=$(now)
    echo "$t1 $t0" | awk '{printf "%.3f\n", $1 - $2}' >>"$WORK/new.txt"
    echo "$t3 $t2" | awk '{printf "%.3f\n", $1 - $2}' >>"$WORK/build.txt"
done
NEW=$(median <"$WORK/new.txt")
BUILD=$(median <"$WORK/build.txt")
echo "## 1. toolgen new with the fake provider (median of $RUNS)"
echo "toolgen new (3 requests + validation): ${NEW} s"
echo "build of the same tool alone:           ${BUILD} s"
echo "$NEW $BUILD" | awk '{printf "pipeline overhead:                      %.3f s\n", $1 - $2}'
kill $SERVER 2>/dev/null || true

# ---- 2. twenty built-in intents -------------------------------------------------------------
echo
echo "## 2. built-in intents (one run each, fresh copy of the repository)"
echo "| intent | data | outcome | seconds |"
echo "| --- | --- | --- | ---: |"
n=0
while IFS='|' read -r data intent; do
    n=$((n + 1))
    R=$WORK/builtin$n
    mkdir -p "$R"
    cp -r manifests data toolgen.yaml "$R/"
    t0=$(now)
    rc=0
    "$TG" -C "$R" new "$intent" --data "$data" >"$WORK/builtin$n.out" 2>&1 || rc=$?
    t1=$(now)
    outcome=$(grep -o '^STAGED [a-z0-9_]*\|^REJECTED [a-z0-9_]*\|^REUSE [a-z0-9_]*' "$WORK/builtin$n.out" || echo "exit $rc")
    echo "$t1 $t0" | awk -v i="$intent" -v d="$data" -v o="$outcome" \
        '{printf "| %s | %s | %s | %.2f |\n", i, d, o, $1 - $2}'
done <<'INTENTS'
data/tips.csv|average tip by day
data/tips.csv|sum of total bill per sex and smoker
data/tips.csv|median tip for smokers on Sunday
data/tips.csv|average tip where total bill is over 20 by time
data/tips.csv|top 2 days by total tip
data/tips.csv|which day has the highest average tip
data/tips.csv|top 5 rows by total_bill
data/tips.csv|share of each day
data/tips.csv|correlation between tip and total bill
data/tips.csv|number of distinct days
data/tips.csv|outliers in tip by z-score
data/tips.csv|histogram of tip with 20 bins
data/tips.csv|scatter plot of tip vs total_bill
data/tips.csv|bar chart of mean tip per day
data/tips.csv|pivot table of average tip by day and time
data/tips.csv|missing values per column
data/tips.csv|average tip where day is not Sat or Sun
data/penguins.csv|average body mass by species
data/iris.csv|mean petal length by species
data/titanic.csv|average age by sex
INTENTS
