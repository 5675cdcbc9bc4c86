#!/bin/sh
# bench/remote.sh — the remote cache (docs/cache.md), on a Bazel HTTP cache on loopback (Debian's
# nginx with WebDAV, tests/cache/nginx.sh):
#
#   1. a fresh clone of the examples plus N synthetic tools (default 200; command tools whose
#      one example cats a data file), built clean with no cache, against the same fresh clone
#      built with a warm remote cache (every stage a hit);
#   2. the no-op build of that repository, with no cache and with one configured (a no-op build
#      asks the cache nothing: what it costs is opening it).
#
# Each figure is the median of RUNS runs (default 3; NOOP_RUNS, default 21, for the no-op
# builds), the two kinds alternating: wall time, and CPU time (user + system of toolgen and all
# it ran, nginx not included), which a busy machine disturbs less. With valgrind installed the
# no-op builds are also counted in instructions (callgrind), which no other load disturbs.
# Work files go to $BENCH_DIR (default bench/work/remote/, git-ignored). Not a test: run it by
# hand; docs/benchmarks.md has the figures.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-3}
NOOP_RUNS=${NOOP_RUNS:-21}
N=${N:-200}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make -j2 >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/remote}
rm -rf "$WORK"
mkdir -p "$WORK"
. tests/cache/nginx.sh
trap 'nginx_stop' EXIT
nginx_start "$WORK/srv" || { echo "nginx did not start (make deps installs nginx-light)" >&2; exit 1; }

# the source: examples + N synthetic tools
SRC=$WORK/src
mkdir -p "$SRC/manifests"
cp -r data toolgen.yaml "$SRC/"
cp -r manifests/* "$SRC/manifests/"
printf 'sepal_length,sepal_width' >"$SRC/data/syn.txt"
i=0
while [ "$i" -lt "$N" ]; do
    mkdir -p "$SRC/manifests/syn_$i"
    sed -e "s/@NAME@/syn_$i/g" -e 's|{file_path: data/iris.csv}|{file_path: data/syn.txt}|' \
        tests/synthetic_tool.yaml >"$SRC/manifests/syn_$i/tool.manifest.yaml"
    i=$((i + 1))
done
chmod -R o+rX "$WORK"

# timed DIR ARGS...: a build of DIR; prints its wall time and CPU time in seconds
timed() {
    d=$1
    shift
    /usr/bin/time -f '%e %U %S' -o "$WORK/time.out" "$TG" -C "$d" build "$@" >"$WORK/last.out" 2>&1 ||
        { cat "$WORK/last.out" >&2; exit 1; }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$WORK/time.out"
}
# median COL: the median of column COL of its input
median() { awk -v c="$1" '{ print $c }' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
fresh() { rm -rf "$WORK/clone" && cp -r "$SRC" "$WORK/clone"; }

# warm the cache
fresh
timed "$WORK/clone" --remote-cache "$NGINX_URL" >/dev/null
echo "warm-up: $(tail -n 1 "$WORK/last.out")"

: >"$WORK/local.t"
: >"$WORK/remote.t"
r=0
while [ "$r" -lt "$RUNS" ]; do
    fresh
    timed "$WORK/clone" >>"$WORK/local.t"
    fresh
    timed "$WORK/clone" --remote-cache "$NGINX_URL" >>"$WORK/remote.t"
    grep -q "0 misses, 0 rejected" "$WORK/last.out" || { cat "$WORK/last.out" >&2; exit 1; }
    r=$((r + 1))
done
L=$(median 1 <"$WORK/local.t")
R=$(median 1 <"$WORK/remote.t")
LC=$(median 2 <"$WORK/local.t")
RC=$(median 2 <"$WORK/remote.t")
echo "fresh clone, $((N + 6)) tools: clean local build ${L}s (CPU ${LC}s), warm remote cache ${R}s (CPU ${RC}s): $(ratio "$L" "$R")x wall, $(ratio "$LC" "$RC")x CPU"
tail -n 2 "$WORK/last.out"

# no-op builds of the built clone
: >"$WORK/noop-none.t"
: >"$WORK/noop-remote.t"
r=0
while [ "$r" -lt "$NOOP_RUNS" ]; do
    timed "$WORK/clone" >>"$WORK/noop-none.t"
    timed "$WORK/clone" --remote-cache "$NGINX_URL" >>"$WORK/noop-remote.t"
    r=$((r + 1))
done
A=$(median 1 <"$WORK/noop-none.t")
B=$(median 1 <"$WORK/noop-remote.t")
echo "no-op build: no cache ${A}s, remote configured ${B}s ($(awk -v a="$A" -v b="$B" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }'))"
if command -v valgrind >/dev/null; then
    for a in none remote; do
        set --
        [ "$a" = remote ] && set -- --remote-cache "$NGINX_URL"
        valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$a" "$TG" -C "$WORK/clone" build "$@" \
            2>&1 >/dev/null | awk '/Collected/ { print $4 }' >"$WORK/instr.$a"
    done
    I0=$(cat "$WORK/instr.none")
    I1=$(cat "$WORK/instr.remote")
    echo "no-op build, instructions: no cache $I0, remote configured $I1 ($(awk -v a="$I0" -v b="$I1" 'BEGIN { printf "%+.2f%%", (b / a - 1) * 100 }'))"
fi
