#!/bin/sh
# toolgen lint: the example manifests are clean; every broken case under tests/lint/ produces
# its expected "file:line:col: reason" line (tests/lint/expected.txt) and exit status 1.
. tests/lib.sh

run "$TG" lint manifests toolgen.yaml
expect_rc "example manifests and toolgen.yaml lint clean" 0
expect_eq "no problems printed for the examples" "$OUT" ""
expect_err "summary line" "OK"

run "$TG" lint
expect_rc "lint with no paths uses toolgen.yaml + manifests/" 0

run "$TG" -C manifests/.. lint
expect_rc "-C DIR" 0

run "$TG" lint no/such/path
expect_rc "missing path" 2
expect_err "missing path message" "no/such/path"

run "$TG" lint --frobnicate
expect_rc "unknown option" 2

# Each expectation: CASE_FILE:LINE:COL: substring of the message.
grep -v '^[[:space:]]*#' tests/lint/expected.txt | grep -v '^[[:space:]]*$' >"$TMP/expected"
for dir in tests/lint/*/; do
    case_name=$(basename "$dir")
    if ! grep -q "^$case_name/" "$TMP/expected"; then
        RC=0 OUT="" ERR=""
        bad "tests/lint/$case_name has no expectation in tests/lint/expected.txt"
        continue
    fi
    run "$TG" lint "tests/lint/$case_name"
    expect_rc "lint $case_name fails" 1
    grep "^$case_name/" "$TMP/expected" | while IFS= read -r exp; do
        place=${exp%%: *}
        reason=${exp#*: }
        printf '%s\n' "$OUT" | grep -F "tests/lint/$place: " | grep -qF -- "$reason" ||
            echo "$exp" >>"$TMP/missing.$case_name"
    done
    if [ -f "$TMP/missing.$case_name" ]; then
        bad "lint $case_name: expected line(s) missing: $(cat "$TMP/missing.$case_name")"
    else
        ok
    fi
done

finish cli-lint
