#!/bin/sh
# bench/clean_build.sh — a clean build of the examples against a cold `import pandas`, side by
# side (the goal in docs/benchmarks.md: the build at most 4.5× the import).
#
# Each round: `/usr/bin/python3 -c "import pandas"` (wall ms), then `rm -rf .toolgen generated`
# and `toolgen build` in a copy of the example repository (manifests/, data/, toolgen.yaml), and
# — with $BEFORE set to another toolgen binary — the same build with it; the CPU time of each
# build (task-clock of toolgen and every process it started, the sandboxes' included) when perf
# is installed. Prints one line per round and the medians.
#
#   bench/clean_build.sh [ROUNDS]        ROUNDS default 9; $TOOLGEN default bin/toolgen
#
# Work files go to $BENCH_DIR (default bench/work/clean/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ROUNDS=${1:-9}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make -j2 >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/clean}
rm -rf "$WORK"
mkdir -p "$WORK/repo"
chmod 755 "$WORK" "$WORK/repo"
cp -r "$ROOT/manifests" "$ROOT/data" "$ROOT/toolgen.yaml" "$WORK/repo/"
chmod -R o+rX "$WORK/repo"
PERF=$(command -v perf || true)

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# build BIN: "wall_ms cpu_ms" of one clean build (cpu "-" without perf)
build() {
    rm -rf "$WORK/repo/.toolgen" "$WORK/repo/generated"
    t0=$(now_ms)
    if [ -n "$PERF" ]; then
        (cd "$WORK/repo" && "$PERF" stat -x, -e task-clock -o "$WORK/perf" "$1" build >/dev/null 2>&1)
    else
        (cd "$WORK/repo" && "$1" build >/dev/null 2>&1)
    fi
    t1=$(now_ms)
    cpu=-
    [ -n "$PERF" ] && cpu=$(awk -F, '/task-clock/ { printf "%d", $1 }' "$WORK/perf")
    echo "$((t1 - t0)) $cpu"
}

build "$TG" >/dev/null # the machine's facts cached, as on any machine after its first build
[ -n "${BEFORE:-}" ] && build "$BEFORE" >/dev/null
printf '%5s %10s %10s %8s %7s' round "import ms" "build ms" "cpu ms" ratio
[ -n "${BEFORE:-}" ] && printf ' %14s %12s %7s' "before ms" "before cpu" ratio
echo
: >"$WORK/rows"
i=1
while [ "$i" -le "$ROUNDS" ]; do
    t0=$(now_ms)
    /usr/bin/python3 -c "import pandas"
    t1=$(now_ms)
    imp=$((t1 - t0))
    set -- $(build "$TG")
    after=$1 acpu=$2
    line=$(awk -v i="$i" -v p="$imp" -v a="$after" -v c="$acpu" \
        'BEGIN { printf "%5d %10d %10d %8s %6.2fx", i, p, a, c, a / p }')
    row="$imp $after"
    if [ -n "${BEFORE:-}" ]; then
        set -- $(build "$BEFORE")
        line="$line $(awk -v p="$imp" -v b="$1" -v c="$2" \
            'BEGIN { printf "%14d %12s %6.2fx", b, c, b / p }')"
        row="$row $1"
    fi
    echo "$line"
    echo "$row" >>"$WORK/rows"
    i=$((i + 1))
done
# median FIELD: the median and the best of field FIELD / field 1 over the rounds
median() {
    awk -v f="$1" '{ printf "%.4f\n", $f / $1 }' "$WORK/rows" | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.2fx (best %.2fx)", v[int((NR + 1) / 2)], v[1] }'
}
printf 'median ratio %s' "$(median 2)"
[ -n "${BEFORE:-}" ] && printf ', before %s' "$(median 3)"
echo
