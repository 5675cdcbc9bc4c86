#!/bin/sh
# Runs every test program and script, then prints the grand total as the last line:
# "N passed, N failed, N skipped".
#
# Each part prints exactly one result line, "name: N passed, N failed, N skipped" (", N skipped"
# may be left out when it is 0), and one line per skipped check saying what and why:
#   SKIP what: why            a check this machine cannot run (a missing program, not root)
#   SKIP [known] what: why    a documented limitation of toolgen that no machine runs
# The skips are listed again before the total. A part counts one more failure when it ends
# without its result line (its setup failed, it crashed), prints several, exits non-zero with
# no failure counted, or skips more checks than it names.
#
# CI=true: CI's machine (Debian, root, the packages of `make deps`) runs every check, so a skip
# other than a known limitation fails the run.
# Exit status: 0 only when every part succeeded (and, with CI=true, nothing was skipped that CI
# must run).
set -u
: "${TOOLGEN:=bin/toolgen}"
: "${TEST_BIN:=build/release/tests}"
export TOOLGEN
TOOLGEN_ABS=$(cd "$(dirname "$TOOLGEN")" && pwd)/$(basename "$TOOLGEN")
export TOOLGEN_ABS
: "${JSTS_DIR:=tests/testdata/json-schema-test-suite}"
export JSTS_DIR
: "${TESTDATA_DIR:=tests/testdata}"
export TESTDATA_DIR

RESULT='^[A-Za-z0-9_./ -]*: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
total_pass=0 total_fail=0 total_skip=0 status=0
log=$(mktemp)
skips=$(mktemp)
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'rm -f "$log" "$skips"' EXIT
trap 'rm -f "$log" "$skips"; exit 130' INT
trap 'rm -f "$log" "$skips"; exit 143' TERM

broken() { # MESSAGE: the part failed in a way its own count does not show
    echo "$1"
    total_fail=$((total_fail + 1))
    status=1
}

run_part() {
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    lines=$(grep -cE "$RESULT" "$log")
    if [ "$lines" -eq 0 ]; then
        broken "$*: no result line (exit $rc): its setup failed or it crashed"
        return
    elif [ "$lines" -gt 1 ]; then
        broken "$*: $lines result lines, expected one (exit $rc)"
        return
    fi
    line=$(grep -E "$RESULT" "$log")
    name=${line%%: [0-9]* passed*}
    counts=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/')
    set -- $counts
    p=$1 f=$2 s=${3:-0}
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
    [ "$f" -eq 0 ] || status=1
    named=$(grep -c '^SKIP ' "$log")
    grep '^SKIP ' "$log" | sed "s|^SKIP |  $name: |" >>"$skips"
    [ "$named" -eq "$s" ] || broken "$name: $s checks skipped, $named named (one SKIP line each)"
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        broken "$name: exited $rc"
    fi
}

for t in "$TEST_BIN"/*; do
    [ -x "$t" ] || continue
    run_part "$t"
done
for t in tests/cli/*.sh; do
    [ -f "$t" ] || continue
    run_part sh "$t"
done
# The example tools' recorded outputs are real: run each example and test through its code.
run_part /usr/bin/python3 tests/examples/check_examples.py --tests

if [ -s "$skips" ]; then
    echo "skipped:"
    cat "$skips"
fi
if [ "${CI:-}" = true ]; then
    must=$(grep -vc '^  [^:]*: \[known\] ' "$skips")
    if [ "$must" -gt 0 ]; then
        echo "CI=true: $must of the skipped checks above must run on CI's machine"
        status=1
    fi
fi
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
exit $status
