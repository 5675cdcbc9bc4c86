#!/bin/sh
# Runs every test program and script, then prints the grand total as the last line:
# "N passed, N failed". Each part prints its own "name: N passed, N failed" line(s); parts that
# print several (the JSON-Schema suite: required + optional) have their first line counted.
# Exit status: 0 only when every part succeeded.
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

total_pass=0 total_fail=0 status=0
log=$(mktemp)
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'rm -f "$log"' EXIT
trap 'rm -f "$log"; exit 130' INT
trap 'rm -f "$log"; exit 143' TERM

run_part() {
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^[A-Za-z0-9_./ -]*: [0-9]+ passed, [0-9]+ failed' "$log" | head -n 1)
    if [ -z "$line" ]; then
        echo "$*: no result line (exit $rc)"
        total_fail=$((total_fail + 1))
        status=1
        return
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    if [ "$rc" -ne 0 ]; then
        status=1
        [ "$f" -eq 0 ] && total_fail=$((total_fail + 1)) && echo "$*: exited $rc"
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

echo "$total_pass passed, $total_fail failed"
exit $status
