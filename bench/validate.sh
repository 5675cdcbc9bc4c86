#!/usr/bin/env bash
# bench/validate.sh [N] — validations per second of `toolgen validate --jsonl` vs ajv (draft
# 2020-12), side by side in one run, on the same instances and schemas. Startup and schema
# compilation are taken out: each tool also runs on a 1-line input, and the rate is
# (N - 1) / (t_N - t_1). Best of 3 runs each. Also checks that both give the same verdicts.
set -euo pipefail
cd "$(dirname "$0")"
N=${1:-200000}
TOOLGEN=${TOOLGEN:-../bin/toolgen}
[ -x "$TOOLGEN" ] || { echo "build toolgen first (make)" >&2; exit 2; }
[ -d node_modules/ajv ] || npm install --no-audit --no-fund --silent >/dev/null
node make-instances.js "$N"

now() { date +%s.%N; }
best_time() { # best wall time of 3 runs of: $@ < $INPUT > /dev/null
    local best=
    for _ in 1 2 3; do
        local t0 t1 d
        t0=$(now); "$@" <"$INPUT" >/dev/null || true; t1=$(now)
        d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [ -z "$best" ] || awk -v d="$d" -v b="$best" 'BEGIN { exit !(d < b) }'; then best=$d; fi
    done
    echo "$best"
}

printf '%-10s %10s %14s %14s %8s %16s %12s\n' schema instances "toolgen/s" "ajv/s" ratio \
    "toolgen start ms" "ajv start ms"
for name in flat manifest; do
    schema=work/$name.schema.json
    full=work/$name.jsonl
    head -n 1 "$full" >work/$name.one.jsonl
    count=$(wc -l <"$full")
    tg() { "$TOOLGEN" validate --jsonl --schema "$schema"; }
    aj() { node ajv-validate.js "$schema"; }
    # Same verdicts on every line, or the comparison means nothing.
    if ! cmp -s <(tg <"$full") <(aj <"$full"); then
        echo "verdicts differ between toolgen and ajv on $name" >&2
        exit 1
    fi
    INPUT=$full; tg_n=$(best_time tg); aj_n=$(best_time aj)
    INPUT=work/$name.one.jsonl; tg_1=$(best_time tg); aj_1=$(best_time aj)
    awk -v name="$name" -v n="$count" -v tn="$tg_n" -v t1="$tg_1" -v an="$aj_n" -v a1="$aj_1" 'BEGIN {
        tr = (n - 1) / (tn - t1); ar = (n - 1) / (an - a1)
        printf "%-10s %10d %14.0f %14.0f %7.2fx %16.1f %12.1f\n", name, n, tr, ar, tr / ar, t1 * 1000, a1 * 1000
    }'
done
echo "(ratio = toolgen / ajv; above 1 means toolgen validates faster once running;"
echo " start = wall time of a 1-instance run: process start, schema load and compilation)"
