#!/bin/sh
# bench/interpreter.sh [FAST] [SLOW] — the code toolset (docs/code.md) side by side with a warm
# Jupyter kernel, a plain python3 subprocess and a cold sandboxed call, in one run, every row
# timed the same way by one client (bench/interpreter.py): wall time of the round trip, p50 /
# p90 / min after two untimed warm-up passes, rounds interleaved (ROUNDS, default 10).
#
#   - `x = 1` in a warm session: create_session once, then python_execute with session_id,
#     tools/call over stdio to `toolgen serve --dev --toolset code` (FAST iterations, default 200);
#   - a pandas group-by (tips.csv embedded in the program, mean of total_bill by day) one-shot:
#     python_execute without a session (SLOW iterations, default 20), with its stages (`x = 1`
#     and `import pandas` alone) and, for reference, a repository pandas tool through the warm
#     pool in the same server;
#   - Node.js one-shot node_execute, `let x = 1;` (FAST) and the same group-by in plain
#     JavaScript (SLOW): in serve, through the pool's Node.js worker (a call ONESHOT_SETTLE s
#     after the previous one), against `toolgen run node_execute` (a process and a cold sandbox);
#   - the first call of a new session: create_session + its first python_execute (timed apart
#     too), against start_kernel + wait_for_ready + the first execute of a new Jupyter kernel;
#   - the peers: a warm ipykernel through jupyter_client's BlockingKernelClient (execute, then
#     execute_reply and the idle status, as execute_interactive waits), `/usr/bin/python3 -c`,
#     and `toolgen run python_execute` (a new toolgen process and a fresh sandbox).
#
# Goals (issue 18): warm session p50 <= 10 ms and <= 1.0x the Jupyter kernel's round trip;
# one-shot pandas p50 <= 25 ms; first call of a new session <= 150 ms. Results go into
# docs/benchmarks.md ("The code interpreter"). Not a test, not run by CI.
#
# The Jupyter peer is a benchmark-only dependency, not part of `make deps`: install Debian's
#   sudo apt-get install -y python3-ipykernel python3-jupyter-client
# Without it (or without python3-pandas or a working sandbox) the script prints "skipped: ..."
# and exits 0. Work files in $BENCH_DIR (default /tmp/toolgen-bench-interpreter; KEEP=1 keeps
# them, with results.json). ONLY=row,... runs some rows (their keys: bench/interpreter.py);
# SETTLE (seconds, default 0.5) is the pause after a row that leaves work behind (the pool's
# replacement worker, a closed session, a shut-down kernel); PYTHON the interpreter of the
# peers and the driver (default /usr/bin/python3, the one the sandbox runs). STAGES=1 instead
# times the stages of a one-shot python_execute (`x = 1` and the pandas program, SLOW calls
# each) from the server's execve/exit events under strace -f --seccomp-bpf.
set -eu
FAST=${1:-200}
SLOW=${2:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TG=${TOOLGEN:-$ROOT/bin/toolgen}
PY=${PYTHON:-/usr/bin/python3}
BENCH_DIR=${BENCH_DIR:-/tmp/toolgen-bench-interpreter}

skip() { echo "bench/interpreter.sh: skipped: $*"; exit 0; }
[ -x "$TG" ] || { echo "bench/interpreter.sh: $TG not found: run make first" >&2; exit 2; }
[ -x "$PY" ] || skip "$PY is missing"
$PY -c 'import pandas' 2>/dev/null || skip "python3-pandas is missing (make deps)"
[ -z "${STAGES:-}" ] || command -v strace >/dev/null || skip "STAGES=1 needs strace"
[ -n "${STAGES:-}" ] || $PY -c 'import jupyter_client, ipykernel' 2>/dev/null ||
    skip "the Jupyter peer is missing: sudo apt-get install -y python3-ipykernel python3-jupyter-client"

rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR/repo/manifests" "$BENCH_DIR/repo/data" "$BENCH_DIR/code" "$BENCH_DIR/tmp"
# as root, tool code runs as an unprivileged user that must reach the work directories
chmod 755 "$BENCH_DIR"
chmod 1777 "$BENCH_DIR/tmp"
TMPDIR=$BENCH_DIR/tmp
export TMPDIR
printf 'project:\n  name: interpreter-bench\n  version: 1.0.0\n' >"$BENCH_DIR/repo/toolgen.yaml"
cp "$ROOT/data/tips.csv" "$BENCH_DIR/repo/data/"
cp -r "$ROOT/manifests/group_and_count_by_columns" "$BENCH_DIR/repo/manifests/"
cp -r "$ROOT/toolsets/code/toolgen.yaml" "$ROOT/toolsets/code/manifests" "$BENCH_DIR/code/"
chmod -R o+rX "$BENCH_DIR/repo" "$BENCH_DIR/code"
"$TG" -C "$BENCH_DIR/code" run python_execute --arg code='x = 1' >/dev/null 2>"$BENCH_DIR/probe.err" ||
    skip "toolgen's sandbox does not run here: $(tail -n 3 "$BENCH_DIR/probe.err")"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), bwrap $(bwrap --version | cut -d' ' -f2), load $(cut -d' ' -f1 /proc/loadavg)"
echo "peers: Python $($PY -c 'import sys, pandas, jupyter_client, ipykernel; print(sys.version.split()[0] + ", pandas " + pandas.__version__ + ", jupyter_client " + jupyter_client.__version__ + ", ipykernel " + ipykernel.__version__)')"
echo "iterations: $FAST (cheap rows), $SLOW (expensive rows), ${ROUNDS:-10} interleaved rounds, after 2 warm-up passes"
echo
TOOLGEN=$TG PYTHON=$PY $PY "$ROOT/bench/interpreter.py" "$BENCH_DIR" "$FAST" "$SLOW"
[ -n "${KEEP:-}" ] || rm -rf "$BENCH_DIR"
