#!/bin/sh
# bench/noop.sh [N...] — the no-op rebuild of toolgen against the no-op rebuild of an equivalent
# ninja graph, side by side, for N synthetic manifests (default: 100 1000 10000).
#
# For each N: generate N manifests, build once with toolgen, then time
#   - toolgen's no-op rebuild (median of RUNS runs, default 5), its runs interleaved with
#     those of ninja's no-op rebuild of a graph with one edge per toolgen stage output (same outputs,
#     same inputs: `cp`/`cat` rules), whose first build is recorded directly in .ninja_log (so
#     the set-up does not spawn one process per output),
#   - toolgen's rebuild after editing one manifest's description (median of RUNS edits): load
#     and emit of that tool, then the aggregate, which reads that tool's fragment and takes the
#     others' pieces from its previous outputs (docs/build.md, "The aggregate").
# Output: a table (N, outputs, toolgen no-op ms, ninja no-op ms, ratio, one-edit ms), each time
# with the median CPU time (user + system) beside it, and the one edit's CPU over the no-op's.
# Work files go to $BENCH_DIR (default bench/work/noop/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=${RUNS:-5}
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make >/dev/null
if ! command -v ninja >/dev/null 2>&1; then
    echo "installing ninja-build (Debian)" >&2
    SUDO=
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ninja-build
fi
WORK=${BENCH_DIR:-$ROOT/bench/work/noop}
mkdir -p "$WORK"
[ $# -gt 0 ] || set -- 100 1000 10000

# gen.py: the synthetic repository (N command tools, each with one example).
cat >"$WORK/gen.py" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(root, "manifests"))
with open(os.path.join(root, "toolgen.yaml"), "w") as f:
    # gates off: this compares the engine with ninja (load/emit/aggregate); the sandboxed
    # static/test stages would time Python, not the engine
    f.write("project:\n  name: bench-tools\n  version: 1.0.0\nbuild:\n  gates: false\n")
TEMPLATE = open(os.path.join(sys.argv[3], "tests/synthetic_tool.yaml")).read()
for i in range(n):
    name = "tool_%05d" % i
    d = os.path.join(root, "manifests", name)
    os.makedirs(d)
    with open(os.path.join(d, "tool.manifest.yaml"), "w") as f:
        f.write(TEMPLATE.replace("@NAME@", name))
PY

# ninja.py: the equivalent ninja graph, read from toolgen's state log: one edge per output of
# every stage, whose inputs are the stage's inputs (source files, upstream outputs). The
# outputs are created in dependency order and the "first build" is written to .ninja_log (v5:
# start, end, mtime in ns, output, MurmurHash64A of the command), which is what ninja itself
# would record after running every edge.
cat >"$WORK/ninja.py" <<'PY'
import os, sys
src, dst = sys.argv[1], sys.argv[2]
stages = {}
for line in open(os.path.join(src, ".toolgen", "log")):
    if not line.startswith("s "):
        continue
    t = line.split()
    sid, i = t[1], 3
    lists = []
    for _ in range(3):
        n = int(t[i]); i += 1
        lists.append([t[i + 2 * k] for k in range(n)]); i += 2 * n
    stages[sid] = lists  # inputs, outputs, deps

def inputs_of(sid):
    ins = []
    for name in stages[sid][0]:
        kind, _, rest = name.partition(":")
        if kind == "file":
            ins.append(rest)
        elif kind == "stage" and sid == "aggregate" and rest.startswith("emit:"):
            # of emit's outputs, the aggregate reads the fragment only
            ins.extend(o for o in stages[rest][1] if o.endswith(".fragment"))
        elif kind == "stage":
            ins.extend(stages[rest][1])
    return ins

edges = []  # (output, inputs)
for sid in sorted(stages, key=lambda s: (s.startswith("aggregate"), s)):
    ins = inputs_of(sid)
    for out in stages[sid][1]:
        # A per-tool page of the skill comes from that tool's fragment only: give ninja the
        # precise edge rather than N inputs per page (which would make its graph quadratic).
        if "/references/" in out:
            tool = os.path.basename(out)[:-3]
            edges.append((out, [o for o in stages["emit:" + tool][1] if o.endswith(".fragment")]))
        else:
            edges.append((out, ins))

os.makedirs(dst, exist_ok=True)
made = set()
def touch(p):
    d = os.path.dirname(p)
    if d and d not in made:
        os.makedirs(os.path.join(dst, d), exist_ok=True)
        made.add(d)
    with open(os.path.join(dst, p), "w") as f:
        f.write(p)

srcs = sorted({i for _, ins in edges for i in ins} - {o for o, _ in edges})
for s in srcs:
    touch(s)
order = {}
def level(o, ins_of):
    return order.setdefault(o, 1 + max([level(i, ins_of) for i in ins_of.get(o, []) if i in ins_of] or [0]))
ins_of = dict(edges)
for o, _ in edges:
    level(o, ins_of)
edges.sort(key=lambda e: order[e[0]])

M, MASK = 0xC6A4A7935BD1E995, (1 << 64) - 1
def murmur64a(data):
    h = (0xDECAFBADDECAFBAD ^ (len(data) * M)) & MASK
    n8 = len(data) // 8
    for k in range(n8):
        v = int.from_bytes(data[8 * k:8 * k + 8], "little")
        v = (v * M) & MASK; v ^= v >> 47; v = (v * M) & MASK
        h ^= v; h = (h * M) & MASK
    tail = data[8 * n8:]
    if tail:
        for k in range(len(tail) - 1, -1, -1):
            h ^= tail[k] << (8 * k)
        h = (h * M) & MASK
    h ^= h >> 47; h = (h * M) & MASK; h ^= h >> 47
    return h

with open(os.path.join(dst, "build.ninja"), "w") as f:
    f.write("rule cp\n  command = cp $in $out\nrule cat\n  command = cat $in > $out\n")
    for o, ins in edges:
        f.write("build %s: %s %s\n" % (o, "cp" if len(ins) == 1 else "cat", " ".join(ins)))
for o, _ in edges:
    touch(o)
with open(os.path.join(dst, ".ninja_log"), "w") as f:
    f.write("# ninja log v5\n")
    for o, ins in edges:
        cmd = ("cp %s %s" if len(ins) == 1 else "cat %s > %s") % (" ".join(ins), o)
        mt = os.stat(os.path.join(dst, o)).st_mtime_ns
        f.write("0\t1\t%d\t%s\t%x\n" % (mt, o, murmur64a(cmd.encode())))
print(len(edges))
PY

# time.py RUNS CMD... [-- CMD...]: the median wall time of RUNS runs in milliseconds (output
# discarded), then the median CPU time (user + system of the command and its children), which a
# loaded machine skews less; with two commands, their runs alternate (A B A B ...) so a change
# in the machine's load falls on both sides alike, and one line is printed per command
cat >"$WORK/time.py" <<'PY'
import resource, subprocess, sys, time
runs, args = int(sys.argv[1]), sys.argv[2:]
cmds = [[]]
for a in args:
    if a == "--":
        cmds.append([])
    else:
        cmds[-1].append(a)
ts = [[] for _ in cmds]
cs = [[] for _ in cmds]
for _ in range(runs):
    for k, cmd in enumerate(cmds):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        ts[k].append((time.perf_counter() - t) * 1000)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cs[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
for t, c in zip(ts, cs):
    t.sort()
    c.sort()
    print("%.1f %.1f" % (t[len(t) // 2], c[len(c) // 2]))
PY

ROWS=""
for N in "$@"; do
    D=$WORK/$N
    rm -rf "$D"
    mkdir -p "$D"
    python3 "$WORK/gen.py" "$D/repo" "$N" "$ROOT"
    t0=$(python3 -c 'import time; print(time.time())')
    "$TG" -C "$D/repo" build >/dev/null
    full=$(python3 -c "import time; print('%.1f' % ((time.time() - $t0) * 1000))")
    OUTS=$(python3 "$WORK/ninja.py" "$D/repo" "$D/ninja")
    if ! (cd "$D/ninja" && ninja -n) | grep -q "no work to do"; then
        echo "bench: the recorded ninja log is not accepted by this ninja; building for real" >&2
        (cd "$D/ninja" && ninja >/dev/null)
    fi
    "$TG" -C "$D/repo" build >/dev/null # warm caches for both
    (cd "$D/ninja" && ninja >/dev/null)
    # interleaved: toolgen, ninja, toolgen, ninja, ...
    set -- $(python3 "$WORK/time.py" "$RUNS" "$TG" -C "$D/repo" build -- ninja -C "$D/ninja")
    tg_ms=$1 tg_cpu=$2 nj_ms=$3 nj_cpu=$4
    # one edit: a different description each time, so every run really changes the manifest
    M=$D/repo/manifests/tool_00000/tool.manifest.yaml
    cat >"$WORK/edit.sh" <<EOF
#!/bin/sh
n=\$(cat "$WORK/edit.count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$WORK/edit.count"
sed "s/^description: .*/description: Print a data file as text (edit \$n)./" "$M" >"$M.new" && mv "$M.new" "$M"
exec "$TG" -C "$D/repo" build
EOF
    set -- $(python3 "$WORK/time.py" "$RUNS" sh "$WORK/edit.sh")
    edit_ms=$1 edit_cpu=$2
    ratio=$(python3 -c "print('%.2f' % ($tg_ms / $nj_ms))")
    extra=$(python3 -c "print('%.0f' % ($edit_cpu - $tg_cpu))")
    ROWS="$ROWS$(printf '| %s | %s | %s | %s (%s) | %s (%s) | %s× | %s (%s) | %s |' "$N" "$OUTS" "$full" \
        "$tg_ms" "$tg_cpu" "$nj_ms" "$nj_cpu" "$ratio" "$edit_ms" "$edit_cpu" "$extra")
"
    printf 'N=%s done\n' "$N" >&2
done
echo "| N manifests | outputs | toolgen full build ms | toolgen no-op ms (CPU) | ninja no-op ms (CPU) | toolgen / ninja | toolgen one-edit ms (CPU) | one-edit − no-op, CPU ms |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s' "$ROWS"
