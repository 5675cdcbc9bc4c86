#!/bin/sh
# bench/build.sh — the test stage's cost, before and after warm sandboxes, side by side:
#
#   1. a clean `toolgen build` of the example repository (manifests/, data/, toolgen.yaml);
#   2. the marginal cost of one more test case: a synthetic Python tool (the pandas tool
#      group_and_count_by_columns with its tests replaced by N copies of a group-by on
#      data/tips.csv), clean builds with N = N1 and N = N2 (default 10 and 50),
#      (t(N2) - t(N1)) / (N2 - N1).
#
# Each figure is wall time and CPU time (user + system, toolgen and all it ran).
#
# "before" is bin/toolgen built from BEFORE_REV (default: the commit before warm sandboxes) in
# $WORK/before, or the binary $BEFORE; "after" is $TOOLGEN (default bin/toolgen). Each number is
# the median of RUNS runs (default 5), before and after alternating. Work files go to $BENCH_DIR
# (default bench/work/build/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-5}
N1=${N1:-10}
N2=${N2:-50}
AFTER=${TOOLGEN:-$ROOT/bin/toolgen}
case "$AFTER" in /*) ;; *) AFTER=$ROOT/$AFTER ;; esac
[ -x "$AFTER" ] || make -j2 >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/build}
mkdir -p "$WORK"
chmod 755 "$WORK"
BEFORE_REV=${BEFORE_REV:-9bad2f3}
if [ -z "${BEFORE:-}" ]; then
    BEFORE=$WORK/before/bin/toolgen
    if [ ! -x "$BEFORE" ]; then
        rm -rf "$WORK/before"
        mkdir -p "$WORK/before"
        git archive "$BEFORE_REV" | tar -x -C "$WORK/before"
        make -C "$WORK/before" -j2 bin/toolgen >/dev/null
    fi
fi

# repo DIR [N]: a fresh copy of the examples, or (with N) the synthetic tool with N tests.
repo() {
    rm -rf "$1"
    mkdir -p "$1"
    cp -r "$ROOT/data" "$ROOT/toolgen.yaml" "$1/"
    if [ $# -eq 1 ]; then
        cp -r "$ROOT/manifests" "$1/"
    else
        mkdir -p "$1/manifests"
        cp -r "$ROOT/manifests/group_and_count_by_columns" "$1/manifests/"
        python3 - "$1/manifests/group_and_count_by_columns/tool.manifest.yaml" "$2" <<'PY'
import sys, yaml
path, n = sys.argv[1], int(sys.argv[2])
m = yaml.safe_load(open(path))
m["tests"] = [{"name": "group_%03d" % i, "category": "normal",
               "input": {"file_path": "data/tips.csv", "group_by_columns": ["day"]},
               "expect": {"output_contains": {"total_rows": 244}}} for i in range(n)]
yaml.safe_dump(m, open(path, "w"), sort_keys=False)
PY
    fi
    chmod -R o+rX "$1"
}

# clean_ms BIN DIR [N]: "wall_ms cpu_ms" of one clean build (cpu: user + system of toolgen and
# everything it ran, sandboxes included: what a shared, loaded machine cannot inflate much)
clean_ms() {
    bin=$1
    shift
    repo "$@"
    /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$bin" -C "$1" build >/dev/null 2>"$WORK/err" ||
        { cat "$WORK/err" >&2; exit 1; }
    awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$WORK/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure [N]: prints "before_wall after_wall before_cpu after_cpu" medians (the examples, or
# the synthetic tool with N tests)
measure() {
    : >"$WORK/b"
    : >"$WORK/a"
    i=0
    while [ $i -lt "$RUNS" ]; do
        clean_ms "$BEFORE" "$WORK/repo" "$@" >>"$WORK/b"
        clean_ms "$AFTER" "$WORK/repo" "$@" >>"$WORK/a"
        i=$((i + 1))
    done
    echo "$(cut -d' ' -f1 "$WORK/b" | median) $(cut -d' ' -f1 "$WORK/a" | median)" \
        "$(cut -d' ' -f2 "$WORK/b" | median) $(cut -d' ' -f2 "$WORK/a" | median)"
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load $(cut -d' ' -f1 /proc/loadavg)"
echo "before: $BEFORE ($BEFORE_REV), after: $AFTER; median of $RUNS clean builds each"
set -- $(measure)
printf '%-36s %11s %11s %11s %11s\n' "" "before wall" "after wall" "before CPU" "after CPU"
printf '%-36s %11s %11s %11s %11s\n' "clean build of the examples (ms)" "$1" "$2" "$3" "$4"
set -- $(measure "$N1") $(measure "$N2")
printf '%-36s %11s %11s %11s %11s\n' "synthetic pandas tool, $N1 tests" "$1" "$2" "$3" "$4"
printf '%-36s %11s %11s %11s %11s\n' "synthetic pandas tool, $N2 tests" "$5" "$6" "$7" "$8"
d=$((N2 - N1))
printf '%-36s %11s %11s %11s %11s\n' "one more test (ms, marginal)" \
    "$(awk "BEGIN {printf \"%.1f\", ($5 - $1) / $d}")" "$(awk "BEGIN {printf \"%.1f\", ($6 - $2) / $d}")" \
    "$(awk "BEGIN {printf \"%.1f\", ($7 - $3) / $d}")" "$(awk "BEGIN {printf \"%.1f\", ($8 - $4) / $d}")"
