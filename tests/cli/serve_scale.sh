#!/bin/sh
# toolgen serve behind a load balancer (docs/scale.md): three `serve --http` instances sharing
# TOOLGEN_SERVE_STATE_KEY behind Debian's nginx, plain round robin, all on loopback ports picked
# here. 300 calls of a 2026-07-28 client all succeed and every instance serves some (counted in
# its own log); an input_required call continues on another instance at each round (directly,
# then through the balancer), and an instance without the key refuses the state; the official
# SDK 1.x client keeps one legacy session through the balancer — its calls on every instance,
# its log level carried, its answers to elicitation handed on to the instance whose call asked,
# its GET stream told of a new tool (serve_scale.mjs), its id unknown under another key and
# ended by DELETE only where DELETE lands; a code session's calls, on whichever instance,
# relayed to the instance that holds it (2026-07-28 and the SDK's legacy session, whose event
# streams are relayed event by event: one interpreter counts on), closed through another, a
# handle whose route was altered refused without a connection to the URL it names, a handle
# of another client refused, a cancel of a relayed call reaching it from the relaying instance
# and from a third with --peer, its lost event stream resumed through a third instance
# (code_route.py, serve_scale_code.mjs); no tool sees the key; one
# instance is killed mid-run and the calls, 2026-07-28 and legacy, go on on the other two
# (proxy_next_upstream), while a call of a code session it held says it is gone.
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

# start NAME [ENV]...: an instance on a free port; sets its pid P_NAME and port PORT_NAME;
# $EXTRA: more options of serve
EXTRA=""
start() {
    s_name=$1
    shift
    env TOOLGEN_SERVE_STATE_KEY="$KEY" "$@" "$TG" -C "$R" serve --dev --toolset code \
        --http 127.0.0.1:0 $EXTRA >"$TMP/$s_name.out" 2>"$TMP/$s_name.err" &
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

# ---- a code session's calls, relayed to its instance (docs/scale.md#code-sessions) ---------
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
code_call() { # PORT TOOL ARGS
    run $REQ POST "$(url "$1")" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H "Mcp-Name: $2" \
        -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"$2\",\"arguments\":$3}}"
}
handle_of() { printf '%s\n' "$OUT" | grep -o 'sess_[0-9a-f]*_[0-9a-f.]*' | head -n 1; }
inst() { sed -n 's/.*serve: instance \([0-9a-f]*\) .*/\1/p' "$TMP/$1.err"; }
INST1=$(inst s1)
INST2=$(inst s2)
INST3=$(inst s3)
ran() { # LOG: the python_execute calls of 2026-07-28 LOG ran itself
    grep -c '"tool":"python_execute","era":"2026-07-28".*"status":"ok"' "$TMP/$1.err"
}
relayed() { # LOG: the python_execute calls LOG relayed to another instance
    grep -c '"tool":"python_execute".*"status":"forwarded"' "$TMP/$1.err"
}
code_call "$PORT_s1" create_session '{"runtime":"python"}'
HANDLE=$(handle_of)
expect_eq "a code session's handle names its instance" "$(echo "$HANDLE" | cut -d_ -f2)" "$INST1"
case "$HANDLE" in *.*) ok ;; *) bad "the handle carries no route: $HANDLE" ;; esac
code_call "$PORT_s2" python_execute "{\"session_id\":\"$HANDLE\",\"code\":\"x = 1\"}"
expect_out "... a call with it on s2 is relayed to s1, which runs it" '\"success\":true'
run python3 tests/cli/code_route.py count "$LB" "$HANDLE" 12
expect_out "12 calls through the balancer on one interpreter (x counts on)" \
    "counts: 2 3 4 5 6 7 8 9 10 11 12 13"
expect_eq "... s1 ran all of them" "$(ran s1)" 13
expect_eq "... s2 and s3 ran none" "$(($(ran s2) + $(ran s3)))" 0
for s in s2 s3; do
    if [ "$(relayed $s)" -gt 0 ]; then ok; else bad "$s relayed none of the session's calls"; fi
done
code_call "$PORT_s3" close_session "{\"session_id\":\"$HANDLE\"}"
expect_out "close_session through s3 closes it on s1" '\"closed\":true'
code_call "$PORT_s2" python_execute "{\"session_id\":\"$HANDLE\",\"code\":\"print(x)\"}"
expect_out "... after which a call with it says it was closed" 'was closed'

# a handle whose route was altered to name another URL is not relayed: no connection is made
# to that URL (a listener there records any), and the call is refused naming both instances
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1])); __import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("hit\n"); c.close()' "$TMP/attacker.port" "$TMP/attacker.hits" &
pids="$pids $!"
wait_for test -s "$TMP/attacker.port" || setup_failed "the listener did not start"
: >"$TMP/attacker.hits"
code_call "$PORT_s1" create_session '{"runtime":"python"}'
H1=$(handle_of)
TAMPERED=$(python3 -c 'import sys
base, route = sys.argv[1].split(".")
print(base + "." + route[:64] + ("{\"u\":\"http://127.0.0.1:%s/mcp\"}" % sys.argv[2]).encode().hex())' "$H1" "$(cat "$TMP/attacker.port")")
code_call "$PORT_s2" python_execute "{\"session_id\":\"$TAMPERED\",\"code\":\"print(1)\"}"
expect_out "a handle with an altered route: refused" "lives in another toolgen serve process"
expect_out "... naming both instances" "instance $INST1; this is instance $INST2"
expect_eq "... and nothing connected to the URL it names" "$(cat "$TMP/attacker.hits")" ""
$REQ GET "http://127.0.0.1:$(cat "$TMP/attacker.port")/mcp" >/dev/null 2>&1
expect_eq "... (whose listener does record a connection)" "$(cat "$TMP/attacker.hits")" "hit"

# the SDK's legacy session through the balancer: event streams relayed, close through any
run env SERVER_URL="$LB" CALLS=9 node tests/cli/serve_scale_code.mjs
expect_rc "legacy: the SDK client's code session through the balancer" 0
expect_out "... one interpreter" "counts: 2 3 4 5 6 7 8 9 10"
expect_not_out "... without a failure" "FAIL"
printf '%s\n' "$OUT" | grep FAIL | head -5 >&2

# a legacy cancel of a relayed call: sent to the instance that relays it, it reaches the owner;
# the handle is refused to another client, relayed or not
CANCELLED='"tool":"python_execute","era":"legacy".*"status":"cancelled"'
cancelled() { grep -c "$CANCELLED" "$TMP/s1.err"; }
# logged N LOG PATTERN: LOG has N lines of PATTERN — waited for: a hand-over's line is written
# once its POST was answered, and the owner's line of a cancelled call may come after the
# relay, which the cancel reached too, ended the client's stream: neither waits for the other
logged() { [ "$(grep -c "$3" "$TMP/$2.err")" -ge "$1" ]; }
run python3 tests/cli/code_route.py cancel "$(url "$PORT_s1")" "$(url "$PORT_s2")" "$(url "$PORT_s2")"
expect_out "legacy: a session call relayed by s2 streams" "stream: started"
expect_out "... cancelled through s2: no reply (MCP sends none)" "reply: none"
expect_out "... another client's call with the handle, relayed: unknown, as if it did not exist" \
    "other client: NOT_FOUND: SESSION_NOT_FOUND: unknown session"
wait_for logged 1 s1 "$CANCELLED"
expect_eq "... s1 cancelled the call" "$(cancelled)" 1
wait_for logged 1 s2 '"method":"notifications/cancelled".*"status":"forwarded"'
run grep '"method":"notifications/cancelled".*"status":"forwarded"' "$TMP/s2.err"
expect_rc "... s2 handed the cancel on" 0
# a relayed call's event stream, lost, resumed on a third instance (Last-Event-ID names the
# instance that keeps the stream: the GET is relayed there), and on that instance itself
run python3 tests/cli/code_route.py resume "$(url "$PORT_s1")" "$(url "$PORT_s2")" "$(url "$PORT_s3")"
expect_out "legacy: the events of a relayed call name their instance" "event id: routed"
expect_out "... the stream resumed on s3 (relayed to s1)" "status: 200"
expect_out "... carries the call's reply" 'reply: {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{\"success\":true,\"stdout\":\"resumed'
expect_out "... and resumed on s1 itself too" 'owner reply: {"jsonrpc":"2.0","id":8'
wait_for logged 1 s3 '"method":"(resume)".*"status":"forwarded"'
run grep '"method":"(resume)".*"status":"forwarded"' "$TMP/s3.err"
expect_rc "... s3 logged the resumption relayed" 0
# a cancel that lands on a third instance reaches the call through --peer
EXTRA="--peer $(url "$PORT_s1") --peer $(url "$PORT_s2") --peer $(url "$PORT_s3")"
start s4
EXTRA=""
run python3 tests/cli/code_route.py cancel "$(url "$PORT_s1")" "$(url "$PORT_s2")" "$(url "$PORT_s4")"
expect_out "legacy: a cancel sent to s4 (--peer s1 s2 s3) of a call s2 relays to s1" "reply: none"
wait_for logged 2 s1 "$CANCELLED"
expect_eq "... s1 cancelled it" "$(cancelled)" 2
wait_for logged 3 s4 '"method":"notifications/cancelled".*"status":"forwarded"'
expect_eq "... s4 sent it to its three peers" \
    "$(grep -c '"method":"notifications/cancelled".*"status":"forwarded"' "$TMP/s4.err")" 3
kill "$P_s4"
wait "$P_s4"

# the key is taken out of serve's environment: no tool sees it
code_call "$PORT_s2" show_env '{"file_path":"data/x.csv"}'
expect_out "a tool's environment" 'PATH='
expect_not_out "... has not the state key" "$KEY"
expect_not_out "... nor its name" "TOOLGEN_SERVE_STATE_KEY"

# ---- one instance killed mid-run --------------------------------------------------------------
code_call "$PORT_s3" create_session '{"runtime":"python"}'
H3=$(handle_of)
before=$(calls 2026-07-28 s3)
kill -KILL "$P_s3"
wait "$P_s3" 2>/dev/null
code_call "$PORT_s1" python_execute "{\"session_id\":\"$H3\",\"code\":\"print(1)\"}"
expect_out "s3 killed: a call of a code session it held says its instance cannot be reached" \
    "instance $INST3), which could not be reached"
expect_out "... and to create a new session" "call create_session for a new session"
run grep '"tool":"python_execute".*"status":"forward_failed"' "$TMP/s1.err"
expect_rc "... logged forward_failed" 0
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
run cat "$TMP/s1.err" "$TMP/s2.err" "$TMP/s3.err" "$TMP/s4.err" "$TMP/other.err" "$TMP/other2.err"
expect_not_out "no sanitizer report" "Sanitizer"

finish cli-serve-scale
