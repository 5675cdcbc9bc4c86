#!/bin/sh
# The driver's count (tests/run.sh), on a scratch tree of made-up parts: the closing line
# "N passed, N failed, N skipped" adds up every part's one result line; each skip is listed
# with its part and reason; a part that ends without its line, names fewer skips than it
# counts, or exits non-zero with no failure counted is one more failure; with CI=true a skip
# other than a known limitation fails the run.
. tests/lib.sh
F=$TMP/tree
mkdir -p "$F/tests/cli" "$F/tests/examples" "$F/bin" "$F/units"
cp tests/run.sh tests/lib.sh "$F/tests/"
: >"$F/bin/toolgen"
printf 'print("example-tools: 2 passed, 0 failed, 0 skipped")\n' >"$F/tests/examples/check_examples.py"
cat >"$F/tests/cli/a.sh" <<'EOF'
. tests/lib.sh
ok
ok
skip "check against git" "git is not installed"
finish part-a
EOF
printf 'echo "SKIP [known] a case: a limitation"\necho "part-b: 3 passed, 1 failed, 1 skipped"\nexit 1\n' \
    >"$F/tests/cli/b.sh"
driver() { run sh -c 'cd "$1" && shift && env "$@" TEST_BIN=units sh tests/run.sh' - "$F" "$@"; }

driver CI=
expect_rc "a failure: exit 1" 1
expect_eq "the closing line is last" "$(printf '%s\n' "$OUT" | tail -n 1)" "7 passed, 1 failed, 2 skipped"
expect_out "a skip listed with its part and reason" "  part-a: check against git: git is not installed"
expect_out "a known skip listed" "  part-b: [known] a case: a limitation"

rm "$F/tests/cli/b.sh"
driver CI=
expect_rc "skips alone do not fail" 0
driver CI=true
expect_rc "CI=true: a skip CI's machine can run fails" 1
expect_out "CI=true: says why" "CI=true: 1 of the skipped checks above must run on CI's machine"
expect_eq "CI=true: the closing line is still last" "$(printf '%s\n' "$OUT" | tail -n 1)" \
    "4 passed, 0 failed, 1 skipped"

printf 'echo "SKIP [known] a case: a limitation"\necho "part-b: 3 passed, 0 failed, 1 skipped"\n' \
    >"$F/tests/cli/b.sh"
rm "$F/tests/cli/a.sh"
driver CI=true
expect_rc "CI=true: known limitations alone pass" 0

printf 'echo "part-c: 1 passed, 0 failed, 2 skipped"\necho "SKIP one: only one named"\n' \
    >"$F/tests/cli/c.sh"
printf 'echo "SETUP FAILED the fixture" >&2\nexit 2\n' >"$F/tests/cli/d.sh"
printf 'echo "part-e: 1 passed, 0 failed"\nexit 3\n' >"$F/tests/cli/e.sh"
printf 'echo "part-f: 1 passed, 0 failed, 0 skipped"\necho "part-f: 1 passed, 0 failed, 0 skipped"\n' \
    >"$F/tests/cli/f.sh"
driver CI=
expect_rc "broken parts: exit 1" 1
expect_out "unnamed skips" "part-c: 2 checks skipped, 1 named"
expect_out "setup failed: no result line" "sh tests/cli/d.sh: no result line (exit 2)"
expect_out "an exit status the count does not show" "part-e: exited 3"
expect_out "two result lines" "sh tests/cli/f.sh: 2 result lines, expected one"
expect_eq "each counts one failure" "$(printf '%s\n' "$OUT" | tail -n 1)" "7 passed, 4 failed, 3 skipped"

finish cli-count
