#!/bin/sh
# Sandbox overhead: per-call latency of a trivial Python tool and of a pandas group-by on
# taxis.csv, as a plain python3 subprocess and through `toolgen run` (isolation none and
# bubblewrap), median and p95 over N calls each; then the time of error classification +
# resource analysis. Results go into docs/benchmarks.md ("Sandbox overhead").
#
#   make && sh bench/sandbox.sh [N]         (N >= 30; default 40)
set -eu
N=${1:-40}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TAXIS=${TAXIS:-$ROOT/../shared/testdata/datasets/taxis.csv}
BENCH_DIR=${BENCH_DIR:-/tmp/toolgen-bench-sandbox}
[ -x "$ROOT/bin/toolgen" ] || { echo "bench/sandbox.sh: run make first" >&2; exit 2; }
[ -f "$TAXIS" ] || { echo "bench/sandbox.sh: $TAXIS not found (set TAXIS)" >&2; exit 2; }
rm -rf "$BENCH_DIR"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), bwrap $(bwrap --version | cut -d' ' -f2), Python $(/usr/bin/python3 -c 'import sys, pandas; print(sys.version.split()[0] + ", pandas " + pandas.__version__)')"
echo "calls: $N per variant, interleaved, after one warm-up call each"
echo
TOOLGEN="$ROOT/bin/toolgen" /usr/bin/python3 "$ROOT/bench/sandbox_bench.py" "$BENCH_DIR" "$N" "$TAXIS"

echo
echo "classification + resource analysis per call (bench/classify_bench.c, 200,000 calls each):"
echo
echo "| outcome | code | us per call |"
echo "| --- | --- | ---: |"
PKGS="yaml-0.1 libcurl libxxhash libcjson libgit2 libpcre2-8"
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$ROOT/toolgen" $(pkg-config --cflags $PKGS) \
    -o "$BENCH_DIR/classify_bench" "$ROOT/bench/classify_bench.c" "$ROOT/build/release/libtoolgen.a" $(pkg-config --libs $PKGS) -lm -pthread
"$BENCH_DIR/classify_bench"
rm -rf "$BENCH_DIR"
