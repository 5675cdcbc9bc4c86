# lib.sh — helpers for the shell tests; source it, then call finish NAME at the end.
# Each test runs a command, captures stdout/stderr/exit status, and asserts on them.
#
# What the count says (tests/run.sh adds up every part): a check passes (ok) or fails (bad); a
# check this machine cannot run is skipped, named with its reason (skip); setup is not a check —
# when it fails, the script ends with a message (need, setup_failed) and counts nothing.
PASS=0
FAIL=0
SKIP=0
# The one bound a test may put on a wait: it only protects against a hang (a test waits for an
# event, never for a time). Generous on purpose — a loaded machine is slow, not broken.
HANG_S=${TOOLGEN_TEST_HANG_S:-300}
export HANG_S # the node and python clients bound their waits with it too
: "${TOOLGEN_ABS:=$(pwd)/bin/toolgen}"
TG=$TOOLGEN_ABS
TMP=$(mktemp -d)
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'rm -rf "$TMP"' EXIT
trap 'rm -rf "$TMP"; exit 130' INT
trap 'rm -rf "$TMP"; exit 143' TERM

SKIP_REASON="" # set between skip_unless and skip_end

# run CMD...: sets $OUT, $ERR, $RC (runs nothing while checks are skipped)
run() {
    if [ -n "$SKIP_REASON" ]; then
        RC=0 OUT="" ERR=""
        return
    fi
    "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    OUT=$(cat "$TMP/out")
    ERR=$(cat "$TMP/err")
}

# ok [NAME], bad NAME: a check passed, failed (while checks are skipped: skipped)
ok() {
    skipping "${1:-a check}" || PASS=$((PASS + 1))
}
bad() {
    skipping "$1" && return
    FAIL=$((FAIL + 1))
    printf 'FAIL %s\n' "$1" >&2
    printf '  exit: %s\n  stdout: %s\n  stderr: %s\n' "$RC" "$(excerpt "$OUT")" "$(excerpt "$ERR")" >&2
}
# excerpt TEXT: its first 2000 bytes, lines after the first indented (so that no line of a
# command's output reads as a result or SKIP line of this script)
excerpt() { printf '%s' "$1" | head -c 2000 | sed '2,$s/^/    /'; }
# skip NAME REASON: a check this machine cannot run (a missing program, not root). tests/run.sh
# lists it with its reason, and under CI=true fails the run: CI's machine must run every check.
skip() {
    SKIP=$((SKIP + 1))
    printf 'SKIP %s: %s\n' "$1" "$2"
}
# skip_unless REASON CMD...: unless CMD succeeds on this machine, every check up to skip_end is
# skipped with REASON, each under its own name, and `run` runs nothing meanwhile.
skip_unless() {
    _reason=$1
    shift
    if "$@" >/dev/null 2>&1; then SKIP_REASON=""; else SKIP_REASON=$_reason; fi
}
skip_end() { SKIP_REASON=""; }
# skipping NAME: while checks are skipped, skips check NAME and succeeds
skipping() { [ -n "$SKIP_REASON" ] && skip "$1" "$SKIP_REASON"; }

# setup_failed MESSAGE: the test cannot go on; ends the script without a result line, which
# tests/run.sh counts as one failure of the part.
setup_failed() {
    printf 'SETUP FAILED %s\n' "$1" >&2
    [ -n "${OUT:-}${ERR:-}" ] &&
        printf '  stdout: %s\n  stderr: %s\n' "$(excerpt "${OUT:-}")" "$(excerpt "${ERR:-}")" >&2
    exit 2
}
# need MESSAGE CMD...: setup — runs CMD (its output hidden); when it fails, setup_failed MESSAGE
need() {
    _msg=$1
    shift
    run "$@"
    [ "$RC" -eq 0 ] || setup_failed "$_msg (exit $RC)"
}

# wait_for CMD...: polls CMD until it succeeds — the event the test waits for — and returns 1
# once HANG_S seconds have gone by without it.
wait_for() {
    _n=0
    until "$@"; do
        [ "$_n" -ge $((HANG_S * 20)) ] && return 1
        sleep 0.05
        _n=$((_n + 1))
    done
}
# serve_port ERRFILE PID: waits until `toolgen serve --http 127.0.0.1:0` (process PID, its
# stderr in ERRFILE) says where it listens, and sets PORT; "" when it ended first or hung.
serve_port() {
    PORT=""
    wait_for _port_seen "$1" "$2" || true
}
_port_seen() {
    PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$1" 2>/dev/null)
    [ -n "$PORT" ] || ! kill -0 "$2" 2>/dev/null
}

expect_rc() { # NAME CODE
    skipping "$1" && return
    if [ "$RC" -eq "$2" ]; then ok; else bad "$1: expected exit $2, got $RC"; fi
}
expect_out() { # NAME SUBSTRING (in stdout)
    skipping "$1" && return
    case "$OUT" in *"$2"*) ok ;; *) bad "$1: stdout lacks '$2'" ;; esac
}
expect_err() { # NAME SUBSTRING (in stderr)
    skipping "$1" && return
    case "$ERR" in *"$2"*) ok ;; *) bad "$1: stderr lacks '$2'" ;; esac
}
expect_not_out() { # NAME SUBSTRING
    skipping "$1" && return
    case "$OUT" in *"$2"*) bad "$1: stdout unexpectedly has '$2'" ;; *) ok ;; esac
}
expect_eq() { # NAME ACTUAL EXPECTED
    skipping "$1" && return
    if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

# finish NAME: the part's one result line, "NAME: N passed, N failed, N skipped"
finish() {
    echo "$1: $PASS passed, $FAIL failed, $SKIP skipped"
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
    wait_for held_or_finished "$H"
    CPID=$(cat "$H/pid" 2>/dev/null)
}
held_or_finished() { [ -f "$1/pid" ] || [ -f "$1/finished" ]; }

# release: lets the held command go on and waits for it; sets RC and OUT (stdout + stderr).
release() {
    touch "$H/release"
    wait "$HPID"
    RC=$(cat "$H/rc" 2>/dev/null || echo 255)
    OUT=$(cat "$H/out" 2>/dev/null)
    ERR=""
}
