#!/bin/sh
# The remote cache (docs/cache.md) against a real Bazel HTTP cache on loopback: Debian's nginx
# with WebDAV (tests/cache/nginx.sh), started here, requiring a bearer token.
#
#   - two clones: the first builds and uploads, the second builds with every stage a remote hit
#     and a byte-identical generated/ (and toolgen check is clean there);
#   - a corrupted blob is rejected (counted, reported, never used), rebuilt and uploaded again;
#   - the server killed mid-build: the build succeeds locally, with one warning;
#   - a read-only client (cache.remote_upload: false) sends no PUT;
#   - a wrong token: one warning, a local build, and the token in no message.
# No clock is asserted; the kill waits for the build to block (tests/hold_output.py).
. tests/lib.sh
. tests/cache/nginx.sh
T=$TMP
SRC=$(pwd)
trap 'nginx_stop; rm -rf "$TMP"' EXIT

TOKEN=remote-cache-test-token-5d1f
export TG_CACHE_TOKEN=$TOKEN
if ! nginx_start "$T/srv" "$TOKEN"; then
    echo "remote-cache: nginx (Debian's nginx-light, installed by make deps) did not start" >&2
    cat "$T/srv/error.log" >&2 2>/dev/null
    echo "remote-cache: 0 passed, 1 failed"
    exit 1
fi

# clone DIR: the example tools as a fresh checkout would have them, with the cache configured
clone() {
    mkdir -p "$1"
    cp -r manifests data "$1/"
    cp toolgen.yaml "$1/"
    printf 'cache:\n  remote: %s\n  remote_token_env: TG_CACHE_TOKEN\n' "$NGINX_URL" >>"$1/toolgen.yaml"
    (cd "$1" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm clone)
}
puts() { grep -c '"PUT ' "$T/srv/access.log" 2>/dev/null || echo 0; }

# ---- two clones ------------------------------------------------------------------------------
clone "$T/c1"
run "$TG" -C "$T/c1" build
expect_rc "first clone builds" 0
expect_out "first clone uploads every stage" "remote cache: 0 hits, 25 misses, 0 rejected blobs, uploads 25"
clone "$T/c2"
run "$TG" -C "$T/c2" build
expect_rc "second clone builds" 0
expect_out "second clone: every stage a hit" "remote cache: 25 hits, 0 misses, 0 rejected blobs, uploads 0"
expect_out "second clone: counted" "ran 25 stages (load 6, emit 6, static 6, test 6, aggregate 1), 25 from the remote cache"
expect_out "second clone: the tests' lines" "group_and_count_by_columns: 12/12 tests passed (100%)"
run diff -r "$T/c1/generated" "$T/c2/generated"
expect_rc "second clone: generated/ byte-identical" 0
(cd "$T/c1" && git add -A && git -c user.name=t -c user.email=t@t commit -qm built)
rm -rf "$T/c2/generated" && cp -r "$T/c1/generated" "$T/c2/" &&
    (cd "$T/c2" && git add -A && git -c user.name=t -c user.email=t@t commit -qm built)
run "$TG" -C "$T/c2" check
expect_rc "second clone: toolgen check is clean" 0
run "$TG" -C "$T/c2" build
expect_out "second clone: then nothing to do" "no work to do"
run "$TG" -C "$T/c2" explain
expect_not_out "explain asks the cache nothing" "remote cache"

# ---- a corrupted blob (generated/mcp/tools.json: over 16 KiB, so not inlined in its result) ----
SUM=$(sha256sum "$T/c1/generated/mcp/tools.json" | cut -d' ' -f1)
BLOB=$T/srv/data/cache/cas/$SUM
expect_eq "the blob of generated/mcp/tools.json is on the server" "$(test -f "$BLOB" && echo yes)" yes
printf 'tampered' >>"$BLOB"
clone "$T/c3"
run "$TG" -C "$T/c3" build
expect_rc "corrupted blob: the build succeeds" 0
expect_out "corrupted blob: rejected and counted" "remote cache: 24 hits, 1 miss, 1 rejected blob, uploads 1"
expect_err "corrupted blob: reported" "failed its SHA-256 check: rejected, built locally"
run diff -r "$T/c1/generated" "$T/c3/generated"
expect_rc "corrupted blob: never used (generated/ as built)" 0
expect_eq "corrupted blob: uploaded again" "$(sha256sum "$BLOB" | cut -d' ' -f1)" "$SUM"

# ---- a read-only client ----------------------------------------------------------------------
clone "$T/c4"
printf '  remote_upload: false\n' >>"$T/c4/toolgen.yaml"
sed -i 's/^description: .*/description: Preview the first lines of a file (edited here)./' \
    "$T/c4/manifests/preview_file_lines/tool.manifest.yaml"
BEFORE=$(puts)
run "$TG" -C "$T/c4" build
expect_rc "read-only client builds" 0
expect_out "read-only client: hits and misses, no uploads" "uploads 0 (read-only)"
expect_eq "read-only client: no PUT reached the server" "$(puts)" "$BEFORE"

# ---- a wrong token ---------------------------------------------------------------------------
clone "$T/c5"
run env TG_CACHE_TOKEN=wrong-token-value "$TG" -C "$T/c5" build
expect_rc "wrong token: a local build" 0
expect_err "wrong token: one warning" "HTTP 401 (is the token right?)"
expect_eq "wrong token: only one" "$(printf '%s\n' "$ERR" | grep -c 'cannot be used')" 1
expect_not_out "the token is in no message (stdout)" "wrong-token-value"
case "$ERR" in *wrong-token-value* | *"$TOKEN"*) bad "the token is in a message" ;; *) ok ;; esac
run grep -rl "$TOKEN" "$T/c1/.toolgen" "$T/c5/.toolgen"
expect_rc "the token is in no file" 1

# ---- the server killed mid-build -------------------------------------------------------------
# 150 synthetic tools: a build prints more than the held pipe takes, so it blocks part-way
K=$T/many
mkdir -p "$K/manifests" "$K/data"
printf 'x\n' >"$K/data/a.txt"
printf 'project:\n  name: many\n  version: 1.0.0\nbuild:\n  gates: false\ncache:\n  remote: %s\n  remote_token_env: TG_CACHE_TOKEN\n' \
    "$NGINX_URL" >"$K/toolgen.yaml"
i=0
while [ "$i" -lt 150 ]; do
    mkdir -p "$K/manifests/t_$i"
    sed "s/@NAME@/t_$i/g" tests/synthetic_tool.yaml >"$K/manifests/t_$i/tool.manifest.yaml"
    i=$((i + 1))
done
hold kill "$TG" -C "$K" build -j 2
expect_eq "the build is held mid-way" "$([ -n "$CPID" ] && echo held)" held
nginx_stop
release
expect_rc "server killed mid-build: the build succeeds" 0
expect_out "server killed mid-build: summary" "remote cache: "
expect_eq "server killed mid-build: one warning" "$(printf '%s\n' "$OUT" | grep -c 'cannot be used')" 1
run "$TG" -C "$K" build
expect_out "server killed mid-build: everything was recorded" "no work to do"

finish remote-cache
