#!/bin/sh
# The web toolset's web_fetch (docs/web.md) through the official TypeScript clients 1.x and 2.x
# (web_fetch.mjs) against a loopback server this test starts (web_server.py): text, JSON and
# HTML fetched from the one host web.allow_hosts lists; every other host, another port, and a
# redirect to a host not listed refused; the size cap, bad JSON, binary data, a 404 and a
# redirect loop each a clear error; type file saved into a code session and read there by
# python_execute (over a link a program left, never followed); the rate limit. Then without web.allow_hosts every host is refused, and a
# wrong web section stops serve with the key's place.
. tests/lib.sh

chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
NPM=tests/npm/node_modules
[ -d "$NPM/@modelcontextprotocol/sdk" ] && [ -d "$NPM/@modelcontextprotocol/client" ] ||
    setup_failed "$NPM/@modelcontextprotocol is missing: run 'make deps'"

srv_pid=""
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$TMP"' EXIT
/usr/bin/python3 tests/cli/web_server.py "$TMP/port" &
srv_pid=$!
wait_for test -s "$TMP/port" || setup_failed "the loopback web server did not start"
PORT=$(cat "$TMP/port")
BASE=http://127.0.0.1:$PORT

repo() { # DIR WEB-SECTION...: a repository whose toolgen.yaml has the web section given
    mkdir -p "$1/manifests" "$1/data"
    printf 'project:\n  name: web-test\n  version: 1.0.0\n' >"$1/toolgen.yaml"
    shift_dir=$1
    shift
    [ $# -gt 0 ] && printf 'web:\n' >>"$shift_dir/toolgen.yaml"
    for line in "$@"; do printf '  %s\n' "$line" >>"$shift_dir/toolgen.yaml"; done
    chmod -R o+rX "$shift_dir"
}
R=$TMP/repo
repo "$R" "allow_hosts: ['127.0.0.1:$PORT']" "max_mb: 1" "requests_per_minute: 1000"
L=$TMP/limited
repo "$L" "allow_hosts: ['127.0.0.1:$PORT']" "requests_per_minute: 2"

for sdk in 1 2; do
    run env TG="$TG" REPO="$R" LIMITED="$L" BASE="$BASE" PORT="$PORT" SDK=$sdk \
        ESCAPE="$TMP/escaped-$sdk.csv" node tests/cli/web_fetch.mjs
    expect_rc "the official client $sdk.x" 0
    expect_out "the official client $sdk.x ran" "client: "
    printf '%s\n' "$OUT" | grep FAIL >&2
    [ ! -e "$TMP/escaped-$sdk.csv" ] && ok || bad "a link in the session led the file out of it"
done

# without web.allow_hosts every host is refused, loopback included
N=$TMP/none
repo "$N"
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"web_fetch\",\"arguments\":{\"url\":\"$BASE/text\"}}}" >"$TMP/req.jsonl"
run "$TG" -C "$N" serve --dev --toolset web <"$TMP/req.jsonl"
expect_rc "serve --toolset web without web.allow_hosts" 0
expect_out "every host is refused until the list names some" \
    "it is empty: web_fetch refuses every host until it lists some"

# a wrong web section stops serve (exit 2) naming the key
repo "$TMP/bad" "allow_hosts: ['http://127.0.0.1/']"
run "$TG" -C "$TMP/bad" serve --dev --toolset web </dev/null
expect_rc "a URL in web.allow_hosts is a configuration error" 2
expect_err "names the key" "/web/allow_hosts/0"
repo "$TMP/bad2" "requests_per_minute: 0"
run "$TG" -C "$TMP/bad2" serve --dev --toolset web </dev/null
expect_rc "requests_per_minute 0 is a configuration error" 2
expect_err "names the key" "/web/requests_per_minute"
finish cli-web-fetch
