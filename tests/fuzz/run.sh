#!/bin/sh
# Runs the libFuzzer harnesses (make fuzz): each for SECONDS, from its seed corpus (written from
# the test suite by tests/fuzz/seeds.py) and the corpus earlier runs grew, under ASan and UBSan,
# with a leak check. A crash, a leak, a sanitizer report or a hang of one input (over 10 s) fails
# the run and leaves the input in build/fuzz/artifacts/<target>/ for a regression test.
# Prints "fuzz-<target>: N runs in S s, no crash" per target and "fuzz: N passed, N failed".
#
# Usage: tests/fuzz/run.sh SECONDS TARGET... (from the repository root; the harnesses are
# build/fuzz/fuzz_<target>). FUZZ_RUNS=N stops each at N executions instead of at SECONDS.
set -u
secs=$1
shift
B=build/fuzz
python3 tests/fuzz/seeds.py "$B/seeds" >/dev/null || exit 1
pass=0 fail=0
for t in "$@"; do
    mkdir -p "$B/corpus/$t" "$B/artifacts/$t"
    log=$B/fuzz_$t.log
    limit="-max_total_time=$secs"
    [ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
    "$B/fuzz_$t" "$limit" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$B/artifacts/$t/" "$B/corpus/$t" "$B/seeds/$t" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    took=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        echo "fuzz-$t: ${runs:-?} runs (${took:-?}/s), no crash, no leak"
    else
        fail=$((fail + 1))
        echo "fuzz-$t: FAILED (exit $rc) after ${runs:-?} runs; see $log and $B/artifacts/$t/"
        grep -E "^==[0-9]+==ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -n 5
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
