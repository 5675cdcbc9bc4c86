#!/bin/sh
# Crash consistency (docs/reliability.md): `toolgen build` and `toolgen promote` killed with
# SIGKILL at random points. After each kill the registry, the git index and HEAD are consistent
# (the promotion is either not there at all or wholly committed, as far as git and the registry
# say), and the next run converges to exactly what a clean run makes: the same generated/ and
# reports for build, the same commit tree, registry and clean index for promote.
#
# CRASH_POINTS=N kills each command N times (default 20; docs/reliability.md records a run of
# 100). The points are random delays within the command's own clean duration, measured first.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
N=${CRASH_POINTS:-20}
T=count_rows
git_in() { d=$1; shift; git -C "$d" -c user.name=tester -c user.email=tester@example.org "$@"; }
export TOOLGEN_USER=alice

# The clock only picks the kill points (random delays within a clean run's duration); no check
# depends on it.
now_ms() { date +%s%3N; }
random_s() { awk -v max="$1" -v seed="$2" 'BEGIN { srand(seed); printf "%.3f", rand() * max / 1000 }'; }
# clean_ms DIR ARGS...: runs toolgen ARGS in DIR to the end; how many ms it took
clean_ms() {
    d=$1
    shift
    t0=$(now_ms)
    "$TG" -C "$d" "$@" >/dev/null 2>&1 || echo "the clean run of $* failed" >&2
    echo $(($(now_ms) - t0))
}
# killed_copy FROM TO MS SEED ARGS...: a copy of FROM at TO, where toolgen ARGS is killed with
# SIGKILL after a random delay below MS
killed_copy() {
    from=$1 to=$2 ms=$3 seed=$4
    shift 4
    rm -rf "$to" && cp -r "$from" "$to"
    "$TG" -C "$to" "$@" >/dev/null 2>&1 &
    pid=$!
    sleep "$(random_s "$ms" "$seed")"
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
}

# generated/ and the reports, without the timings a build records.
build_tree() {
    (cd "$1" && find generated -type f | sort | xargs sha256sum &&
        for f in .toolgen/reports/*.json; do
            python3 -c 'import json, re, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not re.search(r"(_ms|_at|time)$", k)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    if isinstance(v, str):
        return re.sub(r"\d+(\.\d+)? ?ms\b", "N ms", v)
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))' "$f"
        done) | sha256sum
}

# ---- build ---------------------------------------------------------------------------------------
B0=$TMP/build-base
mkdir -p "$B0" && cp -r tests/gates/repo/. "$B0/"
CLEAN=$TMP/build-clean
cp -r "$B0" "$CLEAN"
BUILD_MS=$(clean_ms "$CLEAN" build)
WANT=$(build_tree "$CLEAN")
i=0
while [ $i -lt "$N" ]; do
    i=$((i + 1))
    R=$TMP/build-$i
    killed_copy "$B0" "$R" "$BUILD_MS" "$i" build
    run "$TG" -C "$R" build
    expect_rc "build killed at point $i: the next build succeeds" 0
    expect_eq "build killed at point $i: converges to the clean build's outputs" "$(build_tree "$R")" "$WANT"
    run "$TG" -C "$R" build
    expect_out "build killed at point $i: then nothing is left to do" "no work to do"
    rm -rf "$R"
done

# ---- promote --------------------------------------------------------------------------------------
P0=$TMP/promote-base
mkdir -p "$P0" && cp -r tests/gates/repo/. "$P0/"
printf '.toolgen/\ngenerated/\n' >"$P0/.gitignore"
"$TG" -C "$P0" build >/dev/null 2>&1 || echo "build failed in $P0" >&2
git_in "$P0" init -q -b main && git_in "$P0" add -A && git_in "$P0" commit -qm init
"$TG" -C "$P0" stage $T >/dev/null && "$TG" -C "$P0" feedback $T --output "yes" >/dev/null &&
    "$TG" -C "$P0" feedback $T --decision "Approve" >/dev/null || echo "approval failed" >&2

# The registry's files (without the times they record), the commit's tree, its subject and what
# git says of the registry (index and working tree against HEAD).
promote_state() {
    (cd "$1" && find registry -type f | sort | while read -r f; do
        printf '%s ' "$f"
        sed -E 's/"([a-z_]*_at|at)": "[^"]*"/"\1": ""/g' "$f" | sha256sum
    done
    git ls-tree -r --name-only HEAD | sort
    git log --format=%s | head -n 3
    git status --short --untracked-files=all registry) | sha256sum
}

CLEANP=$TMP/promote-clean
cp -r "$P0" "$CLEANP"
PROMOTE_MS=$(clean_ms "$CLEANP" promote $T)
WANTP=$(promote_state "$CLEANP")
BEFORE=$(promote_state "$P0")
i=0
while [ $i -lt "$N" ]; do
    i=$((i + 1))
    R=$TMP/promote-$i
    killed_copy "$P0" "$R" "$PROMOTE_MS" "$((i + 1000))" promote $T
    # the next registry command finds a half-done promotion and finishes or undoes it: registry,
    # index and HEAD are then as before the promotion or as after it, nothing in between
    run "$TG" -C "$R" status
    expect_rc "promote killed at point $i: status works" 0
    [ "$RC" = 0 ] || printf "status: %s\n" "$ERR" >&2
    got=$(promote_state "$R")
    if [ "$got" = "$BEFORE" ] || [ "$got" = "$WANTP" ]; then ok; else
        RC=0 OUT=$(git_in "$R" status --short --untracked-files=all) ERR=""
        bad "promote killed at point $i: registry, index and HEAD disagree"
    fi
    run "$TG" -C "$R" promote $T
    expect_rc "promote killed at point $i: the next promote succeeds" 0
    expect_eq "promote killed at point $i: converges to the clean promotion" "$(promote_state "$R")" "$WANTP"
    rm -rf "$R"
done
echo "crash: $N points each; build took ${BUILD_MS} ms clean, promote ${PROMOTE_MS} ms" >&2

finish cli-crash
