#!/bin/sh
# toolgen serve behind a load balancer (docs/scale.md): three `serve --http` instances sharing
# TOOLGEN_SERVE_STATE_KEY behind Debian's nginx, plain round robin, all on loopback ports picked
# here. 300 calls of a 2026-07-28 client all succeed and every instance serves some (counted in
# its own log); an input_required call continues on another instance at each round (directly,
# then through the balancer), and an instance without the key refuses the state; the official
# SDK 1.x client keeps one legacy session through the balancer — its calls on every instance,
# its log level carried, its answers to elicitation handed on to the instance whose call asked,
# its GET stream told of a new tool (serve_scale.mjs), its id unknown under another key and
# ended by DELETE only where DELETE lands; a code session's
# handle used on another instance is refused naming both; no tool sees the key; one instance is
# killed mid-run and the calls, 2026-07-28 and legacy, go on on the other two
# (proxy_next_upstream).
# Every wait is for an event; every process started here is stopped by the trap.
. tests/lib.sh

NPM=tests/npm/node_modules
CLIENT="python3 tests/cli/scale_client.py"
REQ="python3 tests/cli/http_req.py"
NGINX=$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || setup_failed "nginx is missing: make test-deps installs Debian's nginx-light"
[ -d "$NPM/@modelcontextprotocol/sdk" ] || setup_failed "$NPM/@modelcontextprotocol/sdk is missing: run 'make test-deps'"

chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
R="$TMP/repo"
mkdir -p "$R/manifests/a_tool" "$R/manifests/count_column" "$R/data" "$TMP/spare_c" "$TMP/ng/tmp"
cp toolgen.yaml "$R/"
sed 's/@NAME@/a_tool/g' tests/synthetic_tool.yaml >"$R/manifests/a_tool/tool.manifest.yaml"
sed 's/@NAME@/c_tool/g' tests/synthetic_tool.yaml >"$TMP/spare_c/tool.manifest.yaml"
mkdir -p "$R/manifests/show_env"
sed -e 's/@NAME@/show_env/g' -e "s/^  argv: .*/  argv: [sh, -c, env, '{file_path}']/" \
    tests/synthetic_tool.yaml >"$R/manifests/show_env/tool.manifest.yaml"
cp tests/testdata/ask_tool/tool.manifest.yaml tests/testdata/ask_tool/tool.py "$R/manifests/count_column/"
echo 'a,b' >"$R/data/x.csv"
printf 'a,b\n1,2\n3,\n5,6\n' >"$R/data/c.csv"
chmod -R o+rX "$R"

pids=""
NGINX_PID=""
stop_all() {
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
    for p in $pids; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
}
trap 'stop_all; [ -n "$KEEP" ] || rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

KEY=$(head -c 32 /dev/urandom | base64)

# start NAME [ENV]...: an instance on a free port; sets its pid P_NAME and port PORT_NAME
start() {
    s_name=$1
    shift
    env TOOLGEN_SERVE_STATE_KEY="$KEY" "$@" "$TG" -C "$R" serve --dev --toolset code \
        --http 127.0.0.1:0 >"$TMP/$s_name.out" 2>"$TMP/$s_name.err" &
    s_pid=$!
    pids="$pids $s_pid"
    serve_port "$TMP/$s_name.err" "$s_pid"
    [ -n "$PORT" ] || setup_failed "$s_name: serve --http printed no port: $(cat "$TMP/$s_name.err")"
    eval "P_$s_name=$s_pid PORT_$s_name=$PORT"
}
start s1
start s2
start s3
url() { echo "http://127.0.0.1:$1/mcp"; }

# ---- nginx, round robin over the three (the configuration of docs/scale.md) ------------------
LB_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
temps=""
for m in proxy fastcgi uwsgi scgi; do
    "$NGINX" -V 2>&1 | grep -q -- "--without-http_${m}_module" || temps="$temps ${m}_temp_path $TMP/ng/tmp/$m;"
done
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$TMP/ng/nginx.conf" <<CONF
$user
daemon off;
worker_processes 1;
pid $TMP/ng/nginx.pid;
error_log $TMP/ng/error.log;
events { worker_connections 512; }
http {
    access_log $TMP/ng/access.log;
    client_body_temp_path $TMP/ng/tmp/body;
    $temps
    upstream toolgen {
        server 127.0.0.1:$PORT_s1;
        server 127.0.0.1:$PORT_s2;
        server 127.0.0.1:$PORT_s3;
        keepalive 16;
    }
    server {
        listen 127.0.0.1:$LB_PORT;
        location /mcp {
            proxy_pass http://toolgen;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            proxy_read_timeout 1h;
            proxy_next_upstream error timeout;
            client_max_body_size 4m;
        }
    }
}
CONF
"$NGINX" -c "$TMP/ng/nginx.conf" -p "$TMP/ng" -e "$TMP/ng/error.log" &
NGINX_PID=$!
LB=$(url "$LB_PORT")
lb_up() { $REQ GET "$LB" -H 'Accept: text/event-stream' >/dev/null 2>&1 || ! kill -0 "$NGINX_PID" 2>/dev/null; }
wait_for lb_up
kill -0 "$NGINX_PID" 2>/dev/null || setup_failed "nginx did not start: $(cat "$TMP/ng/error.log")"

# calls NAME LOG: how many tools/call of era NAME ("2026-07-28" or "legacy") LOG has
calls() { grep -c "\"method\":\"tools/call\".*\"era\":\"$1\"" "$TMP/$2.err"; }

# ---- 300 calls of a 2026-07-28 client ------------------------------------------------------------
run $CLIENT "$LB" 300
expect_rc "2026-07-28: 300 calls through the balancer" 0
expect_out "... all of them succeed" "calls: 300 ok, 0 failed"
printf '%s\n' "$OUT" | grep FAIL | head -5 >&2
for s in s1 s2 s3; do
    n=$(calls 2026-07-28 $s)
    if [ "$n" -gt 0 ]; then ok; else bad "instance $s served none of the 300 calls"; fi
done
expect_eq "... and the instances served them all between them" \
    $(($(calls 2026-07-28 s1) + $(calls 2026-07-28 s2) + $(calls 2026-07-28 s3))) 300

# ---- input_required continued on another instance -------------------------------------------
# round N: the reply of the call's Nth round (one line each) as OUT
rounds() { run $CLIENT --mrtr "$@"; ROUNDS=$OUT; }
round() { OUT=$(printf '%s\n' "$ROUNDS" | sed -n "$1p"); }
rounds "$(url "$PORT_s1")" "$(url "$PORT_s2")" "$(url "$PORT_s3")"
round 1
expect_out "round 1 on s1: input_required" '"resultType":"input_required"'
expect_out "... asking for the column" '"column":{"method":"elicitation/create"'
round 2
expect_out "round 2 on s2 takes s1's requestState and asks for confirmation" '"sure":{"method":"elicitation/create"'
round 3
expect_out "round 3 on s3 ends the call" '"structuredContent":{"column":"b","count":2}'
rounds "$LB" "$LB" "$LB"
round 3
expect_out "the same through the balancer" '"structuredContent":{"column":"b","count":2}'

# an instance with another key (or none) refuses the state, saying why
start other TOOLGEN_SERVE_STATE_KEY="another-key-of-more-than-32-characters"
rounds "$(url "$PORT_s1")" "$(url "$PORT_other")" "$(url "$PORT_s3")"
round 2
expect_out "an instance without the shared key refuses the state" '"code":-32602'
expect_out "... naming the key" 'TOOLGEN_SERVE_STATE_KEY'
kill "$P_other"
wait "$P_other"

# ---- a legacy session (the SDK 1.x client) through the balancer -----------------------------
run env SERVER_URL="$LB" REPO="$R" SPARE="$TMP/spare_c" CALLS=30 node tests/cli/serve_scale.mjs
expect_rc "legacy: the SDK 1.x client's session through the balancer" 0
expect_out "... ran" "client: "
expect_not_out "... without a failure" "FAIL"
printf '%s\n' "$OUT" | grep FAIL | head -5 >&2
SID=$(printf '%s\n' "$OUT" | sed -n 's/^session: //p')
for s in s1 s2 s3; do
    n=$(calls legacy $s)
    if [ "$n" -gt 0 ]; then ok; else bad "legacy: instance $s served none of the session's calls"; fi
done
expect_eq "legacy: the session's 66 calls and 3 asking ones, between the three" \
    $(($(calls legacy s1) + $(calls legacy s2) + $(calls legacy s3))) 69
run cat "$TMP/s1.err" "$TMP/s2.err" "$TMP/s3.err"
expect_out "legacy: the answers that reached another instance were handed on" '"status":"forwarded"'
expect_not_out "... none lost" '"status":"forward_failed"'

# the session's id alone continues it on any instance of the key, and on no other; DELETE ends
# it on the instance it reaches, which remembers (docs/scale.md#legacy-sessions)
legacy_list() { # PORT: the status of tools/list in the session
    run $REQ POST "$(url "$1")" -H 'Content-Type: application/json' -H "Mcp-Session-Id: $SID" \
        -H 'MCP-Protocol-Version: 2025-11-25' -d '{"jsonrpc":"2.0","id":900,"method":"tools/list"}'
    STATUS=$(printf '%s\n' "$OUT" | head -n 1)
}
start other2 TOOLGEN_SERVE_STATE_KEY="another-key-of-more-than-32-characters"
legacy_list "$PORT_other2"
expect_eq "legacy: an instance with another key does not know the session" "$STATUS" 404
kill "$P_other2"
wait "$P_other2"
legacy_list "$PORT_s1"
expect_eq "legacy: the session's first id works on s1" "$STATUS" 200
run $REQ DELETE "$(url "$PORT_s1")" -H "Mcp-Session-Id: $SID"
expect_eq "legacy: DELETE on s1" "$(printf '%s\n' "$OUT" | head -n 1)" 200
legacy_list "$PORT_s1"
expect_eq "... s1 then says the session is gone" "$STATUS" 404
legacy_list "$PORT_s2"
expect_eq "... s2, which cannot know, still continues it" "$STATUS" 200

# ---- a code session lives on its instance ---------------------------------------------------
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
code_call() { # PORT TOOL ARGS
    run $REQ POST "$(url "$1")" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H "Mcp-Name: $2" \
        -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"$2\",\"arguments\":$3}}"
}
INST1=$(sed -n 's/.*serve: instance \([0-9a-f]*\) .*/\1/p' "$TMP/s1.err")
INST2=$(sed -n 's/.*serve: instance \([0-9a-f]*\) .*/\1/p' "$TMP/s2.err")
code_call "$PORT_s1" create_session '{"runtime":"python"}'
HANDLE=$(printf '%s\n' "$OUT" | grep -o 'sess_[0-9a-f]*_[0-9a-f]*' | head -n 1)
expect_eq "a code session's handle names its instance" "$(echo "$HANDLE" | cut -d_ -f2)" "$INST1"
if [ -n "$HANDLE" ]; then
    code_call "$PORT_s2" python_execute "{\"session_id\":\"$HANDLE\",\"code\":\"print(1)\"}"
    expect_out "... used on another instance: refused" "lives in another toolgen serve process"
    expect_out "... naming both instances" "instance $INST1; this is instance $INST2"
    code_call "$PORT_s1" close_session "{\"session_id\":\"$HANDLE\"}"
    expect_out "... its own instance closes it" '\"closed\":true'
fi

# the key is taken out of serve's environment: no tool sees it
code_call "$PORT_s2" show_env '{"file_path":"data/x.csv"}'
expect_out "a tool's environment" 'PATH='
expect_not_out "... has not the state key" "$KEY"
expect_not_out "... nor its name" "TOOLGEN_SERVE_STATE_KEY"

# ---- one instance killed mid-run --------------------------------------------------------------
before=$(calls 2026-07-28 s3)
kill -KILL "$P_s3"
wait "$P_s3" 2>/dev/null
run $CLIENT "$LB" 60
expect_rc "s3 killed: the calls go on" 0
expect_out "... all 60 succeed on the other two" "calls: 60 ok, 0 failed"
printf '%s\n' "$OUT" | grep FAIL | head -5 >&2
run $CLIENT "$LB" 20 --legacy
expect_out "s3 killed: a legacy session's calls go on too" "calls: 20 ok, 0 failed"
expect_eq "... none reached s3" "$(calls 2026-07-28 s3)" "$before"

# the two left end cleanly (under SANITIZE=1: no leak, no use after free)
for s in s1 s2; do
    eval "p=\$P_$s"
    kill -TERM "$p"
    wait "$p"
    RC=$?
    expect_rc "$s ends cleanly" 0
done
run cat "$TMP/s1.err" "$TMP/s2.err" "$TMP/s3.err" "$TMP/other.err" "$TMP/other2.err"
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-serve-scale
