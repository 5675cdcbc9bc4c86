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

# hold NAME CMD...: runs CMD with its output unread (tests/hold_output.py), so that a build,
# which prints a line per stage, blocks part-way through and cannot finish until `release`.
# Sets CPID to the held command's pid, or to "" when it ended before it could be held.
hold() {
    H=$TMP/hold.$1
    shift
    mkdir -p "$H"
    python3 tests/hold_output.py "$H" -- "$@" &
    HPID=$!
    n=0
    while [ ! -f "$H/pid" ] && [ ! -f "$H/finished" ] && [ "$n" -lt 2400 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    CPID=$(cat "$H/pid" 2>/dev/null)
}

# release: lets the held command go on and waits for it; sets RC and OUT (stdout + stderr).
release() {
    touch "$H/release"
    wait "$HPID"
    RC=$(cat "$H/rc" 2>/dev/null || echo 255)
    OUT=$(cat "$H/out" 2>/dev/null)
    ERR=""
}
