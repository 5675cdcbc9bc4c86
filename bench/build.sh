#!/bin/sh
# bench/build.sh — the test stage's cost, before and after warm sandboxes, side by side:
#
#   1. a clean `toolgen build` of the example repository (manifests/, data/, toolgen.yaml);
#   2. the marginal cost of one more test case: a synthetic Python tool (the pandas tool
#      group_and_count_by_columns with its tests replaced by N copies of a group-by on
#      data/tips.csv), clean builds with N = 10 and N = 50, (t50 - t10) / 40.
#
# "before" is bin/toolgen built from BEFORE_REV (default: the commit before warm sandboxes) in
# $WORK/before, or the binary $BEFORE; "after" is $TOOLGEN (default bin/toolgen). Each number is
# the median of RUNS runs (default 5), before and after alternating. Work files go to $BENCH_DIR
# (default bench/work/build/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-5}
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

# clean_ms BIN DIR [N]: milliseconds of one clean build
clean_ms() {
    bin=$1
    shift
    repo "$@"
    s=$(date +%s%N)
    "$bin" -C "$1" build >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
    e=$(date +%s%N)
    echo $(((e - s) / 1000000))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure [N]: prints "before after" medians (the examples, or the synthetic tool with N tests)
measure() {
    : >"$WORK/b"
    : >"$WORK/a"
    i=0
    while [ $i -lt "$RUNS" ]; do
        clean_ms "$BEFORE" "$WORK/repo" "$@" >>"$WORK/b"
        clean_ms "$AFTER" "$WORK/repo" "$@" >>"$WORK/a"
        i=$((i + 1))
    done
    echo "$(median <"$WORK/b") $(median <"$WORK/a")"
}

echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), load $(cut -d' ' -f1 /proc/loadavg)"
echo "before: $BEFORE ($BEFORE_REV), after: $AFTER; median of $RUNS clean builds each"
set -- $(measure)
printf '%-40s %10s %10s\n' "" "before ms" "after ms"
printf '%-40s %10s %10s\n' "clean build of the examples" "$1" "$2"
set -- $(measure 10) $(measure 50)
printf '%-40s %10s %10s\n' "synthetic pandas tool, 10 tests" "$1" "$2"
printf '%-40s %10s %10s\n' "synthetic pandas tool, 50 tests" "$3" "$4"
printf '%-40s %10s %10s\n' "marginal cost of one more test" \
    "$(awk "BEGIN {printf \"%.1f\", ($3 - $1) / 40}")" "$(awk "BEGIN {printf \"%.1f\", ($4 - $2) / 40}")"
