#!/bin/sh
# toolgen run + the sandbox: the escape and abuse battery (each trick its own test, each followed
# by checks that the host is untouched and that the next call works), every error class, the
# runner's signature gate, path arguments, fail-closed without bubblewrap, isolation: none.
# The tools live in tests/sandbox/ (a small repository with tight limits).
. tests/lib.sh

PY=/usr/bin/python3
SB=tests/sandbox
# A secret in toolgen's environment must never reach tool code.
OPENAI_API_KEY=sk-test-secret
export OPENAI_API_KEY
# Work directories go here, so that leftovers are seen. As root, tool code runs as an
# unprivileged user that must be able to reach them (and the temporary repositories below).
chmod 755 "$TMP"
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
MARK=$TMP/mark
touch "$MARK"
MARKER=31.$$        # argument of the sleep the "outlive" test leaves behind

# field EXPR: a Python expression over the envelope d (the last run's stdout).
field() {
    printf '%s' "$OUT" | $PY -c 'import json,sys
d=json.load(sys.stdin)
v=eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v,str) else v)' "$1" 2>/dev/null
}
expect_field() { # NAME EXPR EXPECTED
    got=$(field "$2")
    if [ "$got" = "$3" ]; then ok; else bad "$1: $2 is '$got', expected '$3'"; fi
}

# Processes left over by this script's calls: their /work is a bind mount of a work directory
# under $TMP (their mountinfo names it, even once it is deleted), or (isolation none) their cwd is
# one. Other sandboxes on the machine (parallel test runs) are not counted.
sandbox_procs() {
    for p in $(ps -eo pid=); do
        [ "$p" = "$$" ] && continue
        if grep -qsF "$TMP/tmp/toolgen-call-" "/proc/$p/mountinfo" ||
            case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$TMP/tmp/toolgen-call-"*) true ;; *) false ;; esac; then
            [ "$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null)" = Z ] || echo "$p $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
        fi
    done
}

no_sandbox_procs() { [ -z "$(sandbox_procs)" ]; }

# host_untouched NAME: nothing of the call is left on the host, the repository did not change,
# and the next call works. The call's processes are killed by the time toolgen returns; the
# kernel may take a moment to finish them, so they are polled for up to 20 s — a bound against
# a slow machine only, and below the 31 s the outliving sleep would last, so a real leftover
# is still there to be seen.
host_untouched() {
    _n=0
    until no_sandbox_procs || [ "$_n" -ge 400 ]; do
        sleep 0.05
        _n=$((_n + 1))
    done
    left=$(sandbox_procs)
    if [ -z "$left" ]; then ok; else RC=0 OUT="$left" ERR=""; bad "$1: processes outlived the call"; fi
    if pgrep -f "sleep $MARKER" >/dev/null; then RC=0; bad "$1: the detached sleep survived"; else ok; fi
    changed=$(find "$SB" -newer "$MARK" 2>/dev/null)
    if [ -z "$changed" ]; then ok; else RC=0 OUT="$changed" ERR=""; bad "$1: files changed in the repository"; fi
    leftover=$(ls -A "$TMP/tmp")
    if [ -z "$leftover" ]; then ok; else RC=0 OUT="$leftover" ERR=""; bad "$1: work directories left in TMPDIR"; fi
    (cd "$SB" && "$TG" run abuse --arg action=noop) >"$TMP/next" 2>&1
    if [ $? -eq 0 ]; then ok; else RC=1 OUT=$(cat "$TMP/next") ERR=""; bad "$1: the next call failed"; fi
}

abuse() { # ACTION [TARGET]: runs the abuse tool, envelope in OUT
    if [ $# -ge 2 ]; then
        # --input, not --arg: a port or marker like 31.4 would be parsed as a JSON number
        run sh -c 'cd "$1" && "$2" run abuse --json --input "$3"' - "$SB" "$TG" \
            "$($PY -c 'import json,sys; print(json.dumps({"action": sys.argv[1], "target": sys.argv[2]}))' "$1" "$2")"
    else
        run sh -c 'cd "$1" && "$2" run abuse --json --arg action="$3"' - "$SB" "$TG" "$1"
    fi
}

blocked_test() { # NAME ACTION [TARGET]: the call succeeds and the tool saw its trick fail
    name=$1
    shift
    abuse "$@"
    expect_rc "$name: call completes" 0
    expect_field "$name: blocked" "d['result']['blocked']" true
    expect_not_out "$name: no secret anywhere in the envelope" "sk-test-secret"
}

need "the test tools are valid manifests" "$TG" lint "$SB/manifests" "$SB/toolgen.yaml"

# ---- network ------------------------------------------------------------------------------------
# A listener on the host's loopback: the sandbox has its own, so nothing may arrive here.
PORT_FILE=$TMP/port
$PY -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.settimeout(30)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write("CONNECTED")
except OSError:
    pass
' "$PORT_FILE" "$TMP/connected" &
LISTENER=$!
wait_for test -f "$PORT_FILE" || setup_failed "the host's listener did not start"
blocked_test "tcp to the host's 127.0.0.1" tcp_localhost "$(cat "$PORT_FILE")"
if [ -f "$TMP/connected" ]; then RC=0; bad "tcp to 127.0.0.1: the host listener was reached"; else ok; fi
kill "$LISTENER" 2>/dev/null
wait "$LISTENER" 2>/dev/null
host_untouched "tcp 127.0.0.1"

blocked_test "tcp to an outside address" tcp_outside
expect_out "tcp outside: no route" "unreachable"
host_untouched "tcp outside"

blocked_test "dns lookup" dns
host_untouched "dns"

# ---- writes -------------------------------------------------------------------------------------
blocked_test "write to /etc" write_etc "/etc/toolgen-escape-$$"
if [ -e "/etc/toolgen-escape-$$" ]; then RC=0; bad "write /etc: file created on the host"; rm -f "/etc/toolgen-escape-$$"; else ok; fi
host_untouched "write /etc"

blocked_test "write to \$HOME" write_home "$HOME/toolgen-escape-$$"
if [ -e "$HOME/toolgen-escape-$$" ]; then RC=0; bad "write \$HOME: file created on the host"; rm -f "$HOME/toolgen-escape-$$"; else ok; fi
host_untouched "write \$HOME"

blocked_test "write into the repository" write_repo "$(pwd)/$SB/ESCAPE-$$"
if [ -e "$SB/ESCAPE-$$" ]; then RC=0; bad "write repository: file created"; rm -f "$SB/ESCAPE-$$"; else ok; fi
host_untouched "write repository"

blocked_test "write via ../" write_dotdot "../toolgen-escape-$$"
host_untouched "write ../"
abuse write_dotdot "../../../../../../$TMP/toolgen-escape-$$"
expect_rc "write via ../../..: call completes" 0
if [ -e "$TMP/toolgen-escape-$$" ]; then RC=0; bad "write ../../..: reached the host's $TMP"; else ok; fi
host_untouched "write ../../.."

printf 'original\n' >"$TMP/victim.txt"
chmod 666 "$TMP/victim.txt"
run sh -c 'cd "$1" && "$2" run abuse --json --arg action=write_symlink --arg target="$3" --out "$4"' - "$SB" "$TG" "$TMP/victim.txt" "$TMP/artifacts"
expect_rc "symlink planted in the work dir: call completes" 0
expect_eq "symlink: the host file it points at is unchanged" "$(cat "$TMP/victim.txt")" "original"
expect_field "symlink: not collected, ordinary files are" "[f['path'] for f in d['files']]" '["ordinary.txt"]'
if [ -e "$TMP/artifacts/link_to_host" ] || [ -L "$TMP/artifacts/link_to_host" ]; then RC=0; bad "symlink: copied by --out"; else ok; fi
if [ -f "$TMP/artifacts/ordinary.txt" ]; then ok; else RC=0; bad "symlink: --out lost the ordinary file"; fi
host_untouched "write via symlink"

# ---- reads --------------------------------------------------------------------------------------
blocked_test "read /etc/shadow" read_shadow /etc/shadow
expect_not_out "read /etc/shadow: no content" "root:"
host_untouched "read /etc/shadow"

blocked_test "read the host's home" read_home "$HOME"
host_untouched "read home"

# The sandbox's mounts name no host path: not the checkout's, not TMPDIR's.
abuse mounts
expect_rc "mountinfo: call completes" 0
expect_out "mountinfo: the tool's folder is seen" " /tool"
expect_not_out "mountinfo: not the checkout's path" "$(pwd)"
expect_not_out "mountinfo: not TMPDIR" "$TMP"
host_untouched "mountinfo"

blocked_test "read /proc/1/environ" proc1_environ
expect_out "/proc/1/environ: the sandbox's own minimal environment" "HOME=/work"
host_untouched "/proc/1/environ"

blocked_test "read /proc/self/environ" self_environ
host_untouched "/proc/self/environ"

# ---- resources ----------------------------------------------------------------------------------
abuse fork_bomb
expect_rc "fork bomb: call completes" 0
expect_field "fork bomb: stopped by RLIMIT_NPROC" "d['result']['blocked']" true
expect_field "fork bomb: at most the process limit" "int(d['result']['detail'].split(' after ')[1].split()[0]) <= 16" true
host_untouched "fork bomb"

abuse memory_bomb
expect_rc "memory bomb: the call fails" 1
expect_field "memory bomb: class" "d['error']['class']" memory_limit
expect_field "memory bomb: code" "d['error']['code']" INTERNAL_ERROR
expect_field "memory bomb: memory exhausted" "d['resources']['memory']['status']" exhausted
host_untouched "memory bomb"

run sh -c 'cd "$1" && "$2" run cpu_hog --json' - "$SB" "$TG"
expect_rc "cpu loop: the call fails" 1
expect_field "cpu loop: class" "d['error']['class']" cpu_limit
expect_field "cpu loop: code" "d['error']['code']" TIMEOUT
expect_field "cpu loop: CPU exhausted" "d['resources']['cpu']['status']" exhausted
expect_field "cpu loop: not the wall clock" "d['killed_by']" null
host_untouched "cpu loop"

abuse sleep
expect_rc "wall clock: the call fails" 1
expect_field "wall clock: class" "d['error']['class']" timeout
expect_field "wall clock: code" "d['error']['code']" TIMEOUT
expect_field "wall clock: killed by" "d['killed_by']" wall_clock
host_untouched "wall clock"

abuse stdout_flood
expect_rc "1 GiB stdout flood: the call fails" 1
expect_field "stdout flood: class" "d['error']['class']" output_limit
expect_field "stdout flood: killed at the cap, not drained" "d['killed_by']" output_limit
expect_field "stdout flood: truncated" "d['stdout_truncated']" true
expect_field "stdout flood: exactly 64 KiB kept" "len(d['stdout'])" 65536
host_untouched "stdout flood"

# the signals come once the tool runs: it names its process tg_abuse_sleeps, one of toolgen's
# (process PID's) descendants
tool_sleeps() {
    for p in $(pgrep -x tg_abuse_sleeps); do
        while [ "$p" -gt 1 ]; do
            [ "$p" = "$1" ] && return 0
            p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null) || break
            [ -n "$p" ] || break
        done
    done
    return 1
}
sleeps_or_ended() { tool_sleeps "$1" || ! kill -0 "$1" 2>/dev/null; }
(cd "$SB" && exec "$TG" run abuse --arg action=sleep) >"$TMP/int.out" 2>"$TMP/int.err" &
INT_PID=$!
wait_for sleeps_or_ended "$INT_PID" && tool_sleeps "$INT_PID" || setup_failed "Ctrl-C: the tool did not start"
kill -INT "$INT_PID"
wait "$INT_PID"
RC=$? OUT=$(cat "$TMP/int.out") ERR=$(cat "$TMP/int.err")
expect_rc "Ctrl-C during a call: exit 130" 130
expect_err "Ctrl-C: says what happened" "interrupted"
host_untouched "Ctrl-C during a call"

# SIGKILL cannot be caught: the call's directory stays behind, and the next call removes it
# (its owner process is gone; docs/sandbox.md#work-directories).
(cd "$SB" && exec "$TG" run abuse --arg action=sleep) >/dev/null 2>&1 &
KILL_PID=$!
wait_for sleeps_or_ended "$KILL_PID" && tool_sleeps "$KILL_PID" || setup_failed "SIGKILL: the tool did not start"
kill -KILL "$KILL_PID"
wait "$KILL_PID" 2>/dev/null
RC=0 OUT=$(ls -A "$TMP/tmp") ERR=""
case "$OUT" in toolgen-call-*) ok ;; *) bad "SIGKILL during a call: its call directory was expected to stay" ;; esac
(cd "$SB" && "$TG" run abuse --arg action=noop) >/dev/null 2>&1
host_untouched "SIGKILL during a call: the next call cleaned up"

abuse big_file
expect_rc "file over the limit: the call fails" 1
expect_field "big file: class" "d['error']['class']" output_limit
expect_field "big file: at most output_kb on disk" "all(f['size'] <= 65536 for f in d['files'])" true
host_untouched "big file"

# Deep trees do not escape the disk budget: it is the work tmpfs's size, whatever the depth,
# and nothing of the call stays on the host (host_untouched: TMPDIR empty, the next call works).
abuse deep_fill
expect_rc "140 nested folders filled at depth 135: the call fails" 1
expect_field "deep fill: class" "d['error']['class']" disk_limit
expect_field "deep fill: code" "d['error']['code']" INTERNAL_ERROR
expect_field "deep fill: killed by" "d['killed_by']" disk_limit
host_untouched "deep fill"

abuse outlive "$MARKER"
expect_rc "child that outlives the parent: call completes" 0
host_untouched "outliving child"

blocked_test "nested unshare" nested_unshare
host_untouched "nested unshare"

blocked_test "TIOCSTI" tiocsti
host_untouched "TIOCSTI"

# ---- error classes (python) ---------------------------------------------------------------------
errcase() { # KIND CODE CLASS [EXIT] [FILE]
    if [ -n "${5:-}" ]; then
        run sh -c 'cd "$1" && "$2" run errors --json --arg kind="$3" --arg file_path="$4"' - "$SB" "$TG" "$1" "$5"
    else
        run sh -c 'cd "$1" && "$2" run errors --json --arg kind="$3"' - "$SB" "$TG" "$1"
    fi
    expect_rc "errors $1: exit" "${4:-1}"
    if [ "$2" = - ]; then
        expect_field "errors $1: success" "d['success']" true
    else
        expect_field "errors $1: code" "d['error']['code']" "$2"
        expect_field "errors $1: class" "d['error']['class']" "$3"
        expect_field "errors $1: guidance complete" "bool(d['error']['guidance']['what_happened'] and d['error']['guidance']['likely_cause'] and d['error']['guidance']['how_to_fix'] and d['error']['guidance']['docs'])" true
    fi
}
errcase ok - - 0
errcase print_memoryerror_ok - - 0
errcase print_memoryerror_value_error INVALID_INPUT invalid_value
errcase stderr_memoryerror_exit INTERNAL_ERROR crash
errcase key_error INVALID_INPUT missing_key
expect_out "KeyError names the key" "region"
errcase type_error INVALID_INPUT type_error
errcase value_error INVALID_INPUT invalid_value
expect_out "value error: fix lists the available columns" "Use one of the available columns: name, value"
errcase file_not_found NOT_FOUND file_not_found
errcase permission FORBIDDEN permission_denied
errcase network FORBIDDEN network_blocked
errcase module_missing INTERNAL_ERROR module_missing
errcase module_not_allowed INTERNAL_ERROR module_not_allowed
errcase empty_data INVALID_INPUT empty_data 1 data/empty.csv
errcase recursion INTERNAL_ERROR recursion_limit
errcase system_exit INTERNAL_ERROR system_exit
errcase exit_no_reply INTERNAL_ERROR crash
errcase segfault INTERNAL_ERROR crash
expect_field "segfault: signal" "d['signal']" 11
errcase tool_error_code CONFLICT tool_error
errcase timeout_error TIMEOUT timeout
errcase not_json INTERNAL_ERROR invalid_result
errcase not_object INTERNAL_ERROR invalid_result
errcase output_schema INTERNAL_ERROR output_schema
errcase process_limit INTERNAL_ERROR process_limit
errcase files_limit INTERNAL_ERROR files_limit
host_untouched "process and file limits"
errcase runtime_error INTERNAL_ERROR exception
expect_field "exception: traceback in the details" "'Traceback' in d['error']['details']['traceback']" true

run sh -c 'cd "$1" && "$2" run errors --json --arg kind=ok --arg extra=1' - "$SB" "$TG"
expect_rc "input schema: exit" 1
expect_field "input schema: code" "d['error']['code']" INVALID_INPUT
expect_field "input schema: class" "d['error']['class']" input_schema
expect_field "input schema: did not run" "d['ran']" false
run sh -c 'cd "$1" && "$2" run errors --arg kind=ok --arg extra=1' - "$SB" "$TG"
expect_err "input schema: names the JSON Pointer" "/extra: "

# ---- error classes (node) -----------------------------------------------------------------------
nodecase() { # KIND CODE CLASS [EXIT]
    run sh -c 'cd "$1" && "$2" run node_errors --json --arg kind="$3"' - "$SB" "$TG" "$1"
    expect_rc "node $1: exit" "${4:-1}"
    if [ "$2" = - ]; then
        expect_field "node $1: success" "d['success']" true
    else
        expect_field "node $1: code" "d['error']['code']" "$2"
        expect_field "node $1: class" "d['error']['class']" "$3"
    fi
}
nodecase ok - - 0
nodecase print_oom_ok - - 0
nodecase code_error CONFLICT tool_error
nodecase enoent NOT_FOUND file_not_found
nodecase type_error INVALID_INPUT type_error
nodecase range_error INVALID_INPUT invalid_value
nodecase process_exit INTERNAL_ERROR crash
nodecase not_object INTERNAL_ERROR invalid_result
nodecase rejected_later INTERNAL_ERROR exception

# ---- the runner's signature gate and load failures ----------------------------------------------
gate() { # TOOL CLASS SUBSTRING
    run sh -c 'cd "$1" && "$2" run "$3" --json --arg a=x' - "$SB" "$TG" "$1"
    expect_rc "$1: exit" 1
    expect_field "$1: class" "d['error']['class']" "$2"
    expect_out "$1: message" "$3"
}
gate sig_required_default signature_mismatch "parameter 'a' has a default, but the property is required"
gate sig_missing_param signature_mismatch "property 'c' is not a parameter of run()"
gate sig_extra_param signature_mismatch "parameter 'd' is not a property of input_schema"
gate sig_positional_only signature_mismatch "positional-only"
gate sig_node signature_mismatch "parameter 'extra' is not a property of input_schema"
gate syntax_error syntax_error "line 2"
gate no_entrypoint entrypoint_missing "defines no function 'run'"
gate bad_module module_not_allowed "numpyy_typo"
run sh -c 'cd "$1" && "$2" run sig_kwargs_ok --json --arg a=x --arg c=y' - "$SB" "$TG"
expect_rc "sig_kwargs_ok: **kwargs accepts every property" 0
expect_field "sig_kwargs_ok: defaults applied" "d['result']['others']" '["b", "c"]'

# ---- command runtime ----------------------------------------------------------------------------
run sh -c 'cd "$1" && "$2" run line_count --arg file_path=data/ok.csv' - "$SB" "$TG"
expect_rc "command tool" 0
expect_out "command tool: output" "3 data/ok.csv"
run sh -c 'cd "$1" && "$2" run command_fails --json --arg what=everything' - "$SB" "$TG"
expect_rc "command failure: exit" 1
expect_field "command failure: class" "d['error']['class']" command_failed
expect_field "command failure: code" "d['error']['code']" UPSTREAM_ERROR
expect_out "command failure: stderr in the message" "cannot do everything"

# ---- path arguments -----------------------------------------------------------------------------
REPO=$TMP/repo
cp -R "$SB" "$REPO"
ln -s ../secret.txt "$REPO/data/escape.csv"
ln -s ok.csv "$REPO/data/inner_link.csv"
mkdir -p "$REPO/more"
printf 'more,data\n' >"$REPO/more/x.csv"
pathcase() { # NAME PATH RC [SUBSTRING]
    run sh -c 'cd "$1" && "$2" run paths --json --arg file_path="$3"' - "$REPO" "$TG" "$2"
    expect_rc "path $1: exit" "$3"
    [ -n "${4:-}" ] && expect_out "path $1: message" "$4"
}
pathcase "inside data/" data/ok.csv 0 '"first_line": "name,value"'
pathcase "symlink inside data/" data/inner_link.csv 0 '"first_line": "name,value"'
pathcase "absolute inside data/" "$REPO/data/ok.csv" 0 '"first_line": "name,value"'
# a '..' means something else inside the sandbox (the tool opens the path as given): refused
pathcase "data/../data/" data/../data/ok.csv 1 '"code": "FORBIDDEN"'
expect_out "dot-dot: says why" "has a '..' component"
mkdir -p "$REPO/data/sub"
pathcase "data/sub/../ok.csv" data/sub/../ok.csv 1 "has a '..' component"
# one regular file: never the data folder itself (which would show the tool every file in it),
# never a FIFO (which would hang the call until its wall clock)
pathcase "the data folder itself" data 1 '"code": "FORBIDDEN"'
expect_out "the data folder: says why" "is a directory, not a file"
mkfifo "$REPO/data/pipe"
chmod 644 "$REPO/data/pipe"
pathcase "a FIFO in data/" data/pipe 1 '"code": "FORBIDDEN"'
expect_out "a FIFO: refused before it runs, not stopped by its wall clock" "is a FIFO (named pipe)"
rm -f "$REPO/data/pipe"
pathcase "symlink in data/ pointing outside" data/escape.csv 1 '"code": "FORBIDDEN"'
expect_out "forbidden: names the path" "data/escape.csv"
expect_out "forbidden: names the allowed directories" "data/ (sandbox.data_dirs)"
expect_not_out "forbidden: the secret was not read" "TOP SECRET"
pathcase "outside data/" secret.txt 1 '"code": "FORBIDDEN"'
pathcase "dot-dot out of data/" data/../secret.txt 1 '"code": "FORBIDDEN"'
pathcase "/etc/passwd" /etc/passwd 1 '"code": "FORBIDDEN"'
pathcase "missing" data/missing.csv 1 '"code": "NOT_FOUND"'
expect_out "missing: names the path" "data/missing.csv"
pathcase "missing outside data/" nowhere/missing.csv 1 '"code": "FORBIDDEN"'
pathcase "not in data_dirs yet" more/x.csv 1 '"code": "FORBIDDEN"'
sed 's|data_dirs: \[data/\]|data_dirs: [data/, more/]|' "$SB/toolgen.yaml" >"$REPO/toolgen.yaml"
pathcase "sandbox.data_dirs adds a directory" more/x.csv 0 '"first_line": "more,data"'
# as root, toolgen refuses a file the sandbox's unprivileged user could not read
skip_unless "needs root (toolgen then runs tool code as an unprivileged user)" test "$(id -u)" = 0
printf 'private\n' >"$REPO/data/private.csv"
chmod 600 "$REPO/data/private.csv"
pathcase "unreadable by others (as root)" data/private.csv 1 "not readable by other users"
skip_end

# ---- fail closed --------------------------------------------------------------------------------
run sh -c 'cd "$1" && TOOLGEN_BWRAP=/nonexistent/bwrap "$2" run paths --arg file_path=data/ok.csv' - "$SB" "$TG"
expect_rc "no bubblewrap: environment error" 3
expect_err "no bubblewrap: says how to install it" "apt-get install bubblewrap"
expect_not_out "no bubblewrap: nothing ran" "name,value"
run sh -c 'cd "$1" && PATH=/nonexistent "$2" run paths --arg file_path=data/ok.csv' - "$SB" "$TG"
expect_rc "bubblewrap not on PATH: environment error" 3
expect_err "bubblewrap not on PATH: message" "not found on PATH"
cat >"$TMP/fake-bwrap" <<'EOF'
#!/bin/sh
echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'." >&2
exit 1
EOF
chmod 755 "$TMP/fake-bwrap"
run sh -c 'cd "$1" && TOOLGEN_BWRAP="$3" "$2" run paths --arg file_path=data/ok.csv' - "$SB" "$TG" "$TMP/fake-bwrap"
expect_rc "user namespaces unavailable: environment error" 3
expect_err "user namespaces unavailable: says so" "user namespaces are unavailable"
expect_err "user namespaces unavailable: how to enable" "sysctl"

# ---- isolation: none ----------------------------------------------------------------------------
NONE=$TMP/none
cp -R "$SB" "$NONE"
sed 's/isolation: bwrap/isolation: none/' "$SB/toolgen.yaml" >"$NONE/toolgen.yaml"
for n in 1 2; do
    run sh -c 'cd "$1" && TOOLGEN_BWRAP=/nonexistent "$2" run paths --arg file_path=data/ok.csv' - "$NONE" "$TG"
    expect_rc "isolation none (call $n): runs without bubblewrap" 0
    expect_err "isolation none (call $n): warns every time" "WITHOUT isolation"
    expect_out "isolation none (call $n): result" "name,value"
done
run sh -c 'cd "$1" && "$2" run abuse --json --arg action=self_environ' - "$NONE" "$TG"
expect_field "isolation none: the environment is still cleared" "d['result']['blocked']" true
host_untouched "isolation none"

# ---- the envelope fits schemas/run_result.schema.json -------------------------------------------
for spec in "paths|data/ok.csv" "paths|data/missing.csv" "errors|" "abuse|"; do
    tool=${spec%%|*}
    arg=${spec#*|}
    case $tool in
    paths) (cd "$SB" && "$TG" run paths --json --arg file_path="$arg") >"$TMP/env.json" 2>/dev/null ;;
    errors) (cd "$SB" && "$TG" run errors --json --arg kind=key_error) >"$TMP/env.json" 2>/dev/null ;;
    abuse) (cd "$SB" && "$TG" run abuse --json --arg action=big_file) >"$TMP/env.json" 2>/dev/null ;;
    esac
    run "$TG" validate --schema schemas/run_result.schema.json "$TMP/env.json"
    expect_rc "run_result schema: $tool $arg" 0
done
run sh -c 'cd "$1" && "$2" run errors --json --arg kind=viz_invalid' - "$SB" "$TG"
expect_rc "invalid visualization manifest: the call still succeeds" 0
expect_field "invalid visualization manifest: reported" "d['visualizations']['valid']" false
expect_out "invalid visualization manifest: wrong type" "/outputs/0/type"
expect_out "invalid visualization manifest: missing data file" "dataFile 'nowhere.csv' is not among the files"
run "$TG" run bar_chart_by_group --json --arg file_path=data/tips.csv --arg category_column=day
expect_rc "visualization manifest: chart tool runs" 0
expect_field "visualization manifest: valid" "d['visualizations']['valid']" true
expect_field "visualization manifest: files typed" "[(f['path'], f['type']) for f in d['files']]" \
    '[["bar_chart.png", "image"], ["bar_chart_data.csv", "csv"], ["visualization_manifest.json", "json"]]'
printf '%s' "$OUT" >"$TMP/env.json"
run "$TG" validate --schema schemas/run_result.schema.json "$TMP/env.json"
expect_rc "run_result schema: chart tool" 0

# ---- an installed toolgen finds its runtime files under PREFIX/share/toolgen/runtime -----------
run make -s install PREFIX=/opt/tg DESTDIR="$TMP/inst"
expect_rc "make install" 0
for f in runner.py runner.js toolgen_helpers.py; do
    if [ -f "$TMP/inst/opt/tg/share/toolgen/runtime/$f" ]; then ok; else RC=0; bad "installed runtime/$f"; fi
done
run sh -c 'cd "$1" && env -u TOOLGEN_DATADIR "$2" run paths --arg file_path=data/ok.csv' - "$SB" "$TMP/inst/opt/tg/bin/toolgen"
expect_rc "installed toolgen runs a python tool" 0
expect_out "installed toolgen: result" "name,value"
run sh -c 'cd "$1" && env -u TOOLGEN_DATADIR "$2" run sig_node --arg a=x' - "$SB" "$TMP/inst/opt/tg/bin/toolgen"
expect_rc "installed toolgen runs a node tool" 1
expect_err "installed toolgen: the node runner's signature gate" "does not match input_schema"

# ---- usage --------------------------------------------------------------------------------------
run "$TG" run
expect_rc "no tool: usage error" 2
run "$TG" run no_such_tool_xyz
expect_rc "unknown tool: usage error" 2
expect_err "unknown tool: message" "no tool 'no_such_tool_xyz'"
run sh -c 'cd "$1" && "$2" run paths --input "{not json"' - "$SB" "$TG"
expect_rc "bad --input: usage error" 2
run sh -c 'cd "$1" && "$2" run paths --arg novalue' - "$SB" "$TG"
expect_rc "bad --arg: usage error" 2
run "$TG" run get_exchange_rate --arg base=USD --arg target=EUR
expect_rc "http tool: not supported yet" 2
expect_err "http tool: says so" "not run by this version"

finish cli-sandbox
