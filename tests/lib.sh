# lib.sh — helpers for the shell tests; source it, then call finish NAME at the end.
# Each test runs a command, captures stdout/stderr/exit status, and asserts on them.
PASS=0
FAIL=0
: "${TOOLGEN_ABS:=$(pwd)/bin/toolgen}"
TG=$TOOLGEN_ABS
TMP=$(mktemp -d)
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'rm -rf "$TMP"' EXIT
trap 'rm -rf "$TMP"; exit 130' INT
trap 'rm -rf "$TMP"; exit 143' TERM

# run CMD...: sets $OUT, $ERR, $RC
run() {
    "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    OUT=$(cat "$TMP/out")
    ERR=$(cat "$TMP/err")
}

ok() { PASS=$((PASS + 1)); }
bad() {
    FAIL=$((FAIL + 1))
    printf 'FAIL %s\n' "$1" >&2
    printf '  exit: %s\n  stdout: %s\n  stderr: %s\n' "$RC" "$(printf '%s' "$OUT" | head -c 2000)" \
        "$(printf '%s' "$ERR" | head -c 2000)" >&2
}

expect_rc() { # NAME CODE
    if [ "$RC" -eq "$2" ]; then ok; else bad "$1: expected exit $2, got $RC"; fi
}
expect_out() { # NAME SUBSTRING (in stdout)
    case "$OUT" in *"$2"*) ok ;; *) bad "$1: stdout lacks '$2'" ;; esac
}
expect_err() { # NAME SUBSTRING (in stderr)
    case "$ERR" in *"$2"*) ok ;; *) bad "$1: stderr lacks '$2'" ;; esac
}
expect_not_out() { # NAME SUBSTRING
    case "$OUT" in *"$2"*) bad "$1: stdout unexpectedly has '$2'" ;; *) ok ;; esac
}
expect_eq() { # NAME ACTUAL EXPECTED
    if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

finish() {
    echo "$1: $PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}
