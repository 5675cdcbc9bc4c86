#!/usr/bin/env bash
# bench/validate.sh [N] — toolgen's JSON Schema validator against ajv (draft 2020-12) and Blaze
# (Sourcemeta's C++ validator, the native binary in npm @sourcemeta/jsonschema), side by side in
# one run, on the same instances and schemas: flat, manifest, mcp (the MCP schema's
# JSONRPCMessage) and mcpstrict (the MCP client requests and the initialize, tools/list and
# tools/call results, bodies checked). Results go into docs/benchmarks.md.
#
# 1. In process, ns per instance, parsing excluded: bench/validate_inproc.c (linked against
#    build/release/libtoolgen.a; the median of L passes over the parsed instances) against
#    `jsonschema validate --benchmark --fast --continue --loop L` (Blaze's own timer around each
#    instance: the mean over L runs, averaged over the file; the binary ships no headers or
#    library to link a harness against). L = 400000 / instances + 1 (3 from 100,000 up).
#    Both sides are timed the same way: wall time, the clock Blaze reads (TG_BENCH_CLOCK=cpu
#    gives toolgen's "pass" in thread CPU time instead). toolgen is timed two ways: "pass", L
#    passes over the whole file (each instance is cold again when its turn comes), and "each",
#    Blaze's own method: every instance L times in a row, a clock read before and after each
#    validation, the mean of each one's time averaged over the file.
#    ROUNDS rounds (default 3), alternating, median of each side.
# 2. Whole process: `toolgen validate --jsonl`, `jsonschema validate --fast --continue` and
#    node + ajv over the whole file; wall time, best of 3, start-up included; and the rate with
#    start-up and compilation taken out, (N - 1) / (t_N - t_1).
# Both parts check that the three give the same verdicts (count of valid instances).
set -euo pipefail
cd "$(dirname "$0")"
N=${1:-200000}
ROUNDS=${ROUNDS:-3}
TOOLGEN=${TOOLGEN:-../bin/toolgen}
LIB=../build/release/libtoolgen.a
[ -x "$TOOLGEN" ] && [ -f "$LIB" ] || { echo "build toolgen first (make)" >&2; exit 2; }
[ -d node_modules/ajv ] && [ -d node_modules/@sourcemeta/jsonschema ] ||
    npm install --no-audit --no-fund --silent >/dev/null
BLAZE=node_modules/@sourcemeta/jsonschema/build/github-releases/jsonschema-linux-$(uname -m)
[ -x "$BLAZE" ] || { echo "no Blaze binary for this machine: $BLAZE" >&2; exit 2; }
node make-instances.js "$N"
PKGS="yaml-0.1 libcurl libxxhash libcjson libgit2 libpcre2-8"
# shellcheck disable=SC2046
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I../toolgen $(pkg-config --cflags $PKGS) \
    -o work/validate_inproc validate_inproc.c "$LIB" $(pkg-config --libs $PKGS) -lm -pthread
WORKLOADS=${WORKLOADS:-flat manifest mcp mcpstrict}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Blaze's --benchmark prints "FILE[i]: PASS|FAIL mean +- stddev us (...)" per instance.
blaze_inproc() { # schema jsonl loops -> "mean_ns passed"
    "$BLAZE" validate "$1" "$2" --benchmark --fast --continue --loop "$3" 2>&1 |
        awk '/: (PASS|FAIL) / { for (i = 1; i <= NF; i++) if ($i == "PASS" || $i == "FAIL") {
                 s += $(i + 1); n++; p += ($i == "PASS") } }
             END { printf "%.1f %d\n", n ? s / n * 1000 : 0, p }'
}

echo "In process: ns per instance, parsing excluded (median of $ROUNDS alternating rounds)"
printf '%-10s %10s %12s %12s %12s %10s %10s\n' schema instances "toolgen pass" "toolgen each" \
    Blaze "pass/Blaze" "each/Blaze"
for name in $WORKLOADS; do
    schema=work/$name.schema.json
    full=work/$name.jsonl
    count=$(wc -l <"$full")
    loops=$(( count >= 100000 ? 3 : 400000 / count + 1 )) # passes per round, both sides
    tg=() te=() bz=()
    for _ in $(seq "$ROUNDS"); do
        read -r n tvalid tmed _ < <(work/validate_inproc "$schema" "$full" "$loops")
        read -r bmean bvalid < <(blaze_inproc "$schema" "$full" "$loops")
        read -r _ _ temean _ < <(work/validate_inproc "$schema" "$full" "$loops" each)
        [ "$tvalid" = "$bvalid" ] || { echo "$name: toolgen finds $tvalid valid, Blaze $bvalid" >&2; exit 1; }
        tg+=("$tmed") te+=("$temean") bz+=("$bmean")
    done
    t=$(printf '%s\n' "${tg[@]}" | median) e=$(printf '%s\n' "${te[@]}" | median)
    b=$(printf '%s\n' "${bz[@]}" | median)
    awk -v name="$name" -v n="$n" -v t="$t" -v e="$e" -v b="$b" \
        'BEGIN { printf "%-10s %10d %12.1f %12.1f %12.1f %9.2fx %9.2fx\n", name, n, t, e, b, t / b, e / b }'
done
echo "(toolgen/Blaze below 1 means toolgen takes less time per instance)"
echo

now() { date +%s.%N; }
best_time() { # best wall time of 3 runs of: $@ < $INPUT > /dev/null
    local best=
    for _ in 1 2 3; do
        local t0 t1 d
        t0=$(now); "$@" <"$INPUT" >/dev/null 2>&1 || true; t1=$(now)
        d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [ -z "$best" ] || awk -v d="$d" -v b="$best" 'BEGIN { exit !(d < b) }'; then best=$d; fi
    done
    echo "$best"
}

echo "Whole process: wall time of the whole file (best of 3), and validations/s once running"
printf '%-10s %10s %10s %10s %10s %12s %12s %12s\n' schema instances "toolgen s" "Blaze s" "ajv s" \
    "toolgen/s" "Blaze/s" "ajv/s"
for name in $WORKLOADS; do
    schema=work/$name.schema.json
    full=work/$name.jsonl
    head -n 1 "$full" >work/$name.one.jsonl
    count=$(wc -l <"$full")
    tg() { "$TOOLGEN" validate --jsonl --schema "$schema"; }
    aj() { node ajv-validate.js "$schema"; }
    bz() { "$BLAZE" validate --fast --continue "$schema" "$INPUT"; } # reads a file, not stdin
    # Same verdicts, or the comparison means nothing.
    if ! cmp -s <(tg <"$full") <(aj <"$full"); then
        echo "verdicts differ between toolgen and ajv on $name" >&2
        exit 1
    fi
    INPUT=$full
    tvalid=$(tg <"$full" | grep -cx valid || true)
    bvalid=$({ bz 2>&1 || true; } | awk '/validated, .* passed/ { print $3 }' | tail -n 1)
    [ "$tvalid" = "$bvalid" ] || { echo "$name: toolgen finds $tvalid valid, Blaze $bvalid" >&2; exit 1; }
    INPUT=$full; tg_n=$(best_time tg); bz_n=$(best_time bz); aj_n=$(best_time aj)
    INPUT=work/$name.one.jsonl; tg_1=$(best_time tg); bz_1=$(best_time bz); aj_1=$(best_time aj)
    awk -v name="$name" -v n="$count" -v tn="$tg_n" -v t1="$tg_1" -v bn="$bz_n" -v b1="$bz_1" \
        -v an="$aj_n" -v a1="$aj_1" 'BEGIN {
        printf "%-10s %10d %10.3f %10.3f %10.3f %12.0f %12.0f %12.0f\n", name, n, tn, bn, an,
               (n - 1) / (tn - t1), (n - 1) / (bn - b1), (n - 1) / (an - a1)
    }'
done
echo "(seconds: the whole run, start-up and compilation included; /s: (N - 1) / (t_N - t_1))"
