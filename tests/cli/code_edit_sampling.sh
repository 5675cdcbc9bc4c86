#!/bin/sh
# The client's own model as the provider (docs/code-edit.md#providers), through the official
# TypeScript SDK clients — 1.x (legacy era) and 2.x (2026-07-28) — over stdio and Streamable
# HTTP, on a repository with no model configured (llm.provider sampling): the code-edit tools
# and generate_tool. tests/cli/code_edit_sampling.mjs says what each run checks.
. tests/lib.sh

NPM=tests/npm/node_modules
NODE_DIR=$(pwd)/$NPM/node/bin
if [ ! -x "$NODE_DIR/node" ] || [ ! -d "$NPM/@modelcontextprotocol/client" ] ||
   [ ! -d "$NPM/@modelcontextprotocol/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "node 22 and the SDK clients are missing from $NPM: run 'make test-deps'"
    # no llm section at all: the code-edit tools ask the client's model all the same
mkdir -p "$TMP/bare/manifests"
printf 'config_version: 1\n' >"$TMP/bare/toolgen.yaml"
run env PATH="$NODE_DIR:$PATH" SDK=2 TG="$TG" REPO="$TMP/bare" SERVER_URL= NO_GENERATE=1 \
    SCRIPT="$TMP/script.json" node tests/cli/code_edit_sampling.mjs
expect_rc "no model configured at all: the client's model writes the snippets" 0
printf '%s\n' "$OUT" | grep FAIL >&2

finish cli-code-edit-sampling
    exit 1
fi
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
python3 tests/newgen/script.py "$TMP/script.json"

# repo N: a fresh copy of the generation fixture, its model the client's (each run generates
# the same tool, so each gets its own repository)
repo() {
    sh tests/newgen/make_repo.sh "$TMP/repo$1"
    cat >"$TMP/repo$1/toolgen.yaml" <<'YAML'
llm:
  provider: sampling
validation:
  max_repair_iterations: 2
serve:
  workflow: true
project:
  name: sampling-fixture
  version: 1.0.0
YAML
    git -C "$TMP/repo$1" init -q && git -C "$TMP/repo$1" add -A &&
        git -C "$TMP/repo$1" -c user.name=t -c user.email=t@t commit -qm fixture
}

pid=
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 130' INT
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$TMP"; exit 143' TERM
n=0
for sdk in 1 2; do
    for where in stdio HTTP; do
        n=$((n + 1))
        repo $n || setup_failed "the fixture repository could not be made"
        url=
        if [ $where = HTTP ]; then
            "$TG" -C "$TMP/repo$n" serve --toolset code-edit --http 127.0.0.1:0 \
                >"$TMP/http$n.out" 2>"$TMP/http$n.err" &
            pid=$!
            serve_port "$TMP/http$n.err" $pid
            [ -n "$PORT" ] || setup_failed "serve --http printed no port: $(cat "$TMP/http$n.err")"
            url=http://127.0.0.1:$PORT/mcp
        fi
        run env PATH="$NODE_DIR:$PATH" SDK=$sdk TG="$TG" REPO="$TMP/repo$n" SERVER_URL="$url" \
            SCRIPT="$TMP/script.json" node tests/cli/code_edit_sampling.mjs
        expect_rc "the ${sdk}.x client over $where" 0
        expect_out "the ${sdk}.x client over $where ran" "client: "
        printf '%s\n' "$OUT" | grep FAIL >&2
        if [ -n "$pid" ]; then
            kill -TERM $pid
            wait $pid
            pid=
        fi
    done
done

# no llm section at all: the code-edit tools ask the client's model all the same
mkdir -p "$TMP/bare/manifests"
printf 'config_version: 1\n' >"$TMP/bare/toolgen.yaml"
run env PATH="$NODE_DIR:$PATH" SDK=2 TG="$TG" REPO="$TMP/bare" SERVER_URL= NO_GENERATE=1 \
    SCRIPT="$TMP/script.json" node tests/cli/code_edit_sampling.mjs
expect_rc "no model configured at all: the client's model writes the snippets" 0
printf '%s\n' "$OUT" | grep FAIL >&2

finish cli-code-edit-sampling
