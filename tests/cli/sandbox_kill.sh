#!/bin/sh
# No sandbox outlives the toolgen that started it, however toolgen ends: `serve` and `build` are
# killed with SIGKILL while a call runs (and serve also while its warm workers start), and no
# process of theirs may be left — no bwrap, no holder, no tool — and, once the next call ran,
# nothing of theirs in TMPDIR (docs/sandbox.md#the-holder).
. tests/lib.sh

# Every wait below polls for its event, bounded by the suite's hang bound (HANG_S, tests/lib.sh).
MARKER=4242.$$ # the argument of the sleep the tool starts: how its process is recognised
SETUP=4343.$$  # ... and of the one bwrap's stand-in starts (below)

REPO=$TMP/repo
mkdir -p "$REPO/manifests/hold" "$REPO/data" "$TMP/tmp"
chmod 755 "$TMP" "$REPO" "$REPO/manifests" "$REPO/manifests/hold" "$REPO/data"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
cat >"$REPO/toolgen.yaml" <<'EOF'
config_version: 1
sandbox:
  isolation: bwrap
static_check:
  allowed_imports: [subprocess, time]
  forbidden_modules: [socket]
paths:
  manifests: manifests/
EOF
cat >"$REPO/manifests/hold/tool.manifest.yaml" <<EOF
manifest_version: 1
name: hold
version: 1.0.0
title: Hold
description: Starts a marked sleep and waits (the kill test's tool).
status: draft
risk: low
idempotency: idempotent
docs: {when_to_use: tests, what_it_does: waits, returns: '{held}', prerequisites: none}
input_schema:
  type: object
  additionalProperties: false
  required: [marker]
  properties:
    marker: {type: string, description: The sleep's argument.}
output_schema:
  type: object
  required: [held]
  properties:
    held: {type: boolean, description: Always true.}
examples:
  - {name: one, input: {marker: '$MARKER'}, output: {held: true}}
  - {name: two, input: {marker: '$MARKER'}, output: {held: true}}
constraints:
  limits: {wall_s: 120}
implementation:
  runtime: python
  file: tool.py
  entrypoint: run
EOF
cat >"$REPO/manifests/hold/tool.py" <<'EOF'
import subprocess
import time


def run(marker):
    subprocess.Popen(["sleep", marker])
    time.sleep(0 if marker == "0" else 120)
    return {"held": True}
EOF
chmod 644 "$REPO/toolgen.yaml" "$REPO/manifests/hold/"*
# bubblewrap, with a process of its own that nothing ties to bwrap's lifetime: what bwrap's
# child is until it arms --die-with-parent (a bwrap killed while it sets up the sandbox left
# such a child behind, reparented to init). It must end with toolgen all the same. (Not for
# `bwrap --version`, which the build asks outside any sandbox for its environment fingerprint.)
BWRAP=$(command -v bwrap)
cat >"$TMP/bwrap" <<EOF
#!/bin/sh
[ "\$1" = --version ] || sleep $SETUP &
exec $BWRAP "\$@"
EOF
chmod 755 "$TMP/bwrap"
TOOLGEN_BWRAP=$TMP/bwrap
export TOOLGEN_BWRAP

# Processes of this test's calls: the marked sleeps, anything whose command line names a call
# directory of this TMPDIR (bwrap), or whose working directory is one (the holder).
leftovers() {
    { pgrep -f "sleep $MARKER|sleep $SETUP|$TMPDIR/toolgen-call-"
      find /proc/[0-9]*/cwd -maxdepth 0 -lname "$TMPDIR/toolgen-call-*" 2>/dev/null | cut -d/ -f3
    } | sort -u | while read -r p; do
        [ "$p" = "$$" ] && continue
        [ "$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null)" = Z ] && continue
        [ -d "/proc/$p" ] && echo "$p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
    done
}

# wait_for WHAT CMD...: polls until CMD succeeds, for at most HANG_S seconds; fails the test
# otherwise.
wait_for() {
    what=$1
    shift
    until_s=$(($(date +%s) + HANG_S))
    until "$@"; do
        if [ "$(date +%s)" -gt "$until_s" ]; then RC=0 OUT="" ERR=""; bad "$what: not within the hang bound"; return 1; fi
        sleep 0.1
    done
    return 0
}
marked_sleep_runs() { pgrep -f "sleep $MARKER" >/dev/null; }
bwrap_runs() { leftovers | grep -q bwrap; }
none_left() { [ -z "$(leftovers)" ]; }

# killed NAME PID: SIGKILL to PID, then nothing of its calls may remain.
killed() {
    kill -KILL "$2"
    wait "$2" 2>/dev/null
    if wait_for "$1: every process of its sandboxes ended" none_left; then ok; else
        RC=0 OUT=$(leftovers) ERR=""
        bad "$1: processes outlived toolgen"
        for p in $(leftovers | cut -d' ' -f1); do kill -KILL "$p" 2>/dev/null; done # by pid
    fi
}

call_line() {
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\",\"arguments\":{\"marker\":\"$MARKER\"}}}"
}

# ---- serve, killed while a call runs (its pool's workers are up or starting) --------------------
mkfifo "$TMP/in"
(cd "$REPO" && exec "$TG" serve --dev <"$TMP/in" >"$TMP/serve.out" 2>"$TMP/serve.err") &
SERVE=$!
exec 3>"$TMP/in"
call_line >&3
if wait_for "serve: the call started" marked_sleep_runs; then ok; fi
killed "serve killed during a call" "$SERVE"
exec 3>&-

# ---- serve, killed as soon as a sandbox is being set up ------------------------------------------
for n in 1 2 3; do
    (cd "$REPO" && exec "$TG" serve --dev <"$TMP/in" >/dev/null 2>&1) &
    SERVE=$!
    exec 3>"$TMP/in"
    if wait_for "serve ($n): a warm worker is being started" bwrap_runs; then ok; fi
    killed "serve ($n) killed while a sandbox starts" "$SERVE"
    exec 3>&-
done

# ---- serve, ending on its own right after a call (its pool starts the replacement worker) ----------
quick_call() {
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{"marker":"0"}}}'
}
for n in 1 2 3 4 5; do
    (cd "$REPO" && quick_call | "$TG" serve --dev >/dev/null 2>&1)
    if wait_for "serve ($n) ended after a call: every process of its sandboxes ended" none_left; then ok; else
        RC=0 OUT=$(leftovers) ERR=""
        bad "serve ($n): processes outlived it"
        for p in $(leftovers | cut -d' ' -f1); do kill -KILL "$p" 2>/dev/null; done # by pid
    fi
done

# ---- build, killed while the test stage runs the tool ---------------------------------------------
(cd "$REPO" && exec "$TG" build >"$TMP/build.out" 2>&1) &
BUILD=$!
if wait_for "build: a test case started" marked_sleep_runs; then ok; else cat "$TMP/build.out" >&2; fi
killed "build killed during a test case" "$BUILD"

# ---- nothing on the host: the next call removes what the killed ones could not --------------------
(cd "$REPO" && "$TG" run hold --input '{"marker": "0"}' >"$TMP/next.out" 2>&1) || cat "$TMP/next.out" >&2
left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 2>/dev/null)
RC=0 OUT=$left ERR=""
if [ -z "$left" ]; then ok; else bad "TMPDIR holds what the killed calls left"; fi
if none_left; then ok; else RC=0 OUT=$(leftovers) ERR=""; bad "the last call left processes"; fi

[ -n "${KILL_DEBUG:-}" ] && cat "$TMP/serve.out" "$TMP/serve.err" "$TMP/build.out" >&2
finish cli-sandbox-kill
