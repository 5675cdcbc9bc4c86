#!/bin/sh
# The warm pool: one call of the pandas example tool (group_and_count_by_columns on
# data/tips.csv) over the run layer — cold, through the pool with a ready worker, and as a plain
# python3 subprocess — p50/p95/min over N interleaved calls each (bench/pool_bench.c). Results go
# into docs/benchmarks.md ("The warm pool").
#
#   make && sh bench/pool.sh [N]          (default 30)
#   POOL_ONLY=1 sh bench/pool.sh [N]       only the pooled calls
#   BACK_TO_BACK=1 sh bench/pool.sh [N]    then N pooled calls and N plain python3 runs one right
#                                          after the other (a stream of calls: p50 and calls/s)
set -eu
N=${1:-30}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/tmp/toolgen-bench-pool}
[ -f "$ROOT/build/release/libtoolgen.a" ] || { echo "bench/pool.sh: run make first" >&2; exit 2; }
rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR"
chmod 755 "$BENCH_DIR"
PKGS=$(sed -n "s/^PKGS *[:?]*= *//p" "$ROOT/Makefile")
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$ROOT/toolgen" $(pkg-config --cflags $PKGS) \
    -o "$BENCH_DIR/pool_bench" "$ROOT/bench/pool_bench.c" "$ROOT/build/release/libtoolgen.a" \
    $(pkg-config --libs $PKGS) -lm -pthread
# a copy of the examples the sandbox's unprivileged user can read, as root too
mkdir -p "$BENCH_DIR/repo"
cp -r "$ROOT/manifests" "$ROOT/data" "$ROOT/toolgen.yaml" "$BENCH_DIR/repo/"
chmod -R o+rX "$BENCH_DIR/repo"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg), Python $(/usr/bin/python3 -c 'import sys, pandas; print(sys.version.split()[0] + ", pandas " + pandas.__version__)')"
echo "calls: $N per variant, interleaved, after one untimed round"
echo
TOOLGEN_DATADIR=${TOOLGEN_DATADIR:-$ROOT} "$BENCH_DIR/pool_bench" "$BENCH_DIR/repo" group_and_count_by_columns "$N"
rm -rf "$BENCH_DIR"
