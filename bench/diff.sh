#!/bin/sh
# bench/diff.sh [N] [CHANGED] — `toolgen diff` between two revisions of an N-tool repository
# (default 1000) in which CHANGED tools changed (default 10), against `git diff --stat` of the
# same revisions, side by side.
#
# The repository: N synthetic command tools (tests/synthetic_tool.yaml), each with a committed
# generated/<tool>/mcp.tool.json; commit v1, then CHANGED tools edited (half a breaking schema
# change, half a docs change with a patch bump) and committed as v2. Timed (median of RUNS runs,
# default 7): toolgen diff v1 v2, git diff --stat v1 v2; then the same against the working tree
# (toolgen diff v1, git diff --stat v1) after the edits are made again uncommitted; and, as the
# floor of any libgit2 program, a process that only calls git_libgit2_init (bench/work/diff/
# g2init, built here).
# Work files go to $BENCH_DIR (default bench/work/diff/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-7}
N=${1:-1000}
CHANGED=${2:-10}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/diff}
R=$WORK/repo
rm -rf "$R"
mkdir -p "$R"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench
export GIT_COMMITTER_EMAIL=bench@localhost GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

python3 - "$R" "$N" "$ROOT/tests/synthetic_tool.yaml" <<'PY'
import os, sys
root, n, template = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
with open(os.path.join(root, "toolgen.yaml"), "w") as f:
    f.write("project:\n  name: bench-tools\n  version: 1.0.0\n")
for i in range(n):
    name = "tool_%05d" % i
    d = os.path.join(root, "manifests", name)
    os.makedirs(d)
    with open(os.path.join(d, "tool.manifest.yaml"), "w") as f:
        f.write(template.replace("@NAME@", name))
    g = os.path.join(root, "generated", name)
    os.makedirs(g)
    with open(os.path.join(g, "mcp.tool.json"), "w") as f:
        f.write('{"name": "%s", "v": 1}\n' % name)
PY
edit() { # the CHANGED edits
    python3 - "$R" "$N" "$CHANGED" <<'PY'
import os, sys
root, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for j in range(k):
    name = "tool_%05d" % (j * (n // k))
    p = os.path.join(root, "manifests", name, "tool.manifest.yaml")
    s = open(p).read()
    if j % 2 == 0:  # breaking: a new required input
        s = s.replace("  required: [file_path]\n", "  required: [file_path, lines]\n", 1)
        s = s.replace("      x-toolgen-path: read\n",
                      "      x-toolgen-path: read\n    lines: {type: integer, minimum: 1}\n", 1)
    else:  # docs only, with a patch bump
        s = s.replace("version: 1.0.0", "version: 1.0.1", 1)
        s = s.replace("  what_it_does: Runs cat on the file.", "  what_it_does: Runs cat.", 1)
    open(p, "w").write(s)
    with open(os.path.join(root, "generated", name, "mcp.tool.json"), "w") as f:
        f.write('{"name": "%s", "v": 2}\n' % name)
PY
}
git -C "$R" init -q -b main
git -C "$R" add -A && git -C "$R" commit -q -m v1 && git -C "$R" tag v1
edit
git -C "$R" add -A && git -C "$R" commit -q -m v2 && git -C "$R" tag v2
git -C "$R" gc -q   # packed, as a clone is

# median_ms CMD...: the median wall time of RUNS runs, in ms (output discarded)
median_ms() {
    i=0
    : >"$WORK/times"
    while [ $i -lt "$RUNS" ]; do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000)) >>"$WORK/times"
        i=$((i + 1))
    done
    sort -n "$WORK/times" | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

"$TG" -C "$R" diff v1 v2 >/dev/null 2>&1 || true   # warm the page cache
git -C "$R" diff --stat v1 v2 >/dev/null
tc=$(median_ms "$TG" -C "$R" diff v1 v2)
gc=$(median_ms git -C "$R" diff --stat v1 v2)
reviewed=$("$TG" -C "$R" diff v1 v2 | tail -1)
git -C "$R" checkout -q v1 2>/dev/null
edit
tw=$(median_ms "$TG" -C "$R" diff v1)
gw=$(median_ms git -C "$R" diff --stat v1)
printf '#include <git2.h>\nint main(void) { git_libgit2_init(); return git_libgit2_shutdown() < 0; }\n' \
    >"$WORK/g2init.c"
cc -O2 -o "$WORK/g2init" "$WORK/g2init.c" -lgit2
ti=$(median_ms "$WORK/g2init")
echo "toolgen diff: $reviewed"
echo "git_libgit2_init alone: $ti ms"
printf '| revisions | tools | changed | toolgen diff ms | git diff --stat ms | ratio |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
printf '| v1..v2 (two commits) | %s | %s | %s | %s | %s |\n' "$N" "$CHANGED" "$tc" "$gc" \
    "$(awk -v a="$tc" -v b="$gc" 'BEGIN {printf "%.2f", a / b}')"
printf '| v1..working tree | %s | %s | %s | %s | %s |\n' "$N" "$CHANGED" "$tw" "$gw" \
    "$(awk -v a="$tw" -v b="$gw" 'BEGIN {printf "%.2f", a / b}')"
