#!/bin/sh
# The http runtime end to end (docs/manifest.md#http): `toolgen run` and `toolgen serve` call
# the example tool get_exchange_rate against a scripted stand-in of its service on loopback
# (tests/cli/http_api.py), reached through the documented origin override
# TOOLGEN_HTTP_ORIGIN_GET_EXCHANGE_RATE. 404, 401, 403, 429 and 500 map to their codes, a hang
# ends at the tool's timeout (10 s) as TIMEOUT, 429 and 500 are retried (the tool is
# idempotent, retry.max_attempts 3), a redirect is not followed (the other host sees nothing),
# and the token is in no output, message or log — only in the requests to the service.
. tests/lib.sh

PY=/usr/bin/python3
TOKEN=tok-cli-5ecret-0042
need "$PY" "python3"

"$PY" tests/cli/http_api.py "$TMP/other.port" "$TMP/other.log" &
OTHER=$!
wait_for test -s "$TMP/other.port"
"$PY" tests/cli/http_api.py "$TMP/api.port" "$TMP/api.log" "$(cat "$TMP/other.port")" &
API=$!
trap 'kill $API $OTHER 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for test -s "$TMP/api.port"
TOOLGEN_HTTP_ORIGIN_GET_EXCHANGE_RATE=http://127.0.0.1:$(cat "$TMP/api.port")
EXCHANGE_API_TOKEN=$TOKEN
export TOOLGEN_HTTP_ORIGIN_GET_EXCHANGE_RATE EXCHANGE_API_TOKEN
: >"$TMP/seen" # every stdout and stderr of toolgen, searched for the token at the end

rate() { # BASE [--json]: toolgen run get_exchange_rate BASE -> EUR
    : >"$TMP/api.log"
    run "$TG" run get_exchange_rate --arg base="$1" --arg target=EUR $2
    printf '%s\n%s\n' "$OUT" "$ERR" >>"$TMP/seen"
}
requests() { grep -c . "$TMP/api.log"; }

rate USD
expect_rc "a rate: success" 0
expect_out "a rate: the answer's data" "**rate:** 0.5"
expect_eq "one request, path and encoded query" "$(cut -d'|' -f1 "$TMP/api.log")" \
    "GET /v1/rates/USD?symbols=EUR "
expect_eq "the bearer token went to the manifest's (overridden) host" \
    "$(cut -d'|' -f2 "$TMP/api.log")" " Bearer $TOKEN"

rate USD --json
expect_out "the envelope says the call was remote" '"isolation": "remote"'

for row in "NFD NOT_FOUND http_status 1" "UNA UNAUTHORIZED http_status 1" \
    "FRB FORBIDDEN http_status 1" "RTL RATE_LIMITED http_status 3" \
    "ERR UPSTREAM_ERROR http_status 3" "RDR UPSTREAM_ERROR http_failed 1"; do
    set -- $row
    rate "$1" --json
    expect_rc "$1: the call fails" 1
    expect_out "$1: $2" "\"code\": \"$2\""
    expect_out "$1: class $3" "\"class\": \"$3\""
    expect_eq "$1: $4 request(s) (retries only where they can help)" "$(requests)" "$4"
done
expect_eq "the redirect was not followed: the other host saw nothing" \
    "$(grep -c . "$TMP/other.log" 2>/dev/null || echo 0)" 0

# the envelopes of a success and of each kind of failure fit schemas/run_result.schema.json
for base in USD NFD RDR; do
    rate "$base" --json
    printf '%s' "$OUT" >"$TMP/env.json"
    run "$TG" validate --schema schemas/run_result.schema.json "$TMP/env.json"
    expect_rc "run_result schema: $base" 0
done
run env -u EXCHANGE_API_TOKEN "$TG" run get_exchange_rate --arg base=USD --arg target=EUR --json
printf '%s' "$OUT" >"$TMP/env.json"
run "$TG" validate --schema schemas/run_result.schema.json "$TMP/env.json"
expect_rc "run_result schema: no credential" 0

rate ECH --json
expect_out "an echoed token is masked in the result" '"echo": "Bearer ***"'

start=$(date +%s)
rate HNG --json
end=$(date +%s)
expect_rc "a hang: the call fails" 1
expect_out "a hang: TIMEOUT" '"code": "TIMEOUT"'
if [ $((end - start)) -ge 9 ] && [ $((end - start)) -le 14 ]; then ok; else
    bad "a hang ends at the tool's 10 s timeout (took $((end - start)) s)"; fi

run env -u EXCHANGE_API_TOKEN "$TG" run get_exchange_rate --arg base=USD --arg target=EUR
expect_rc "no token: the call fails" 1
expect_err "no token: UNAUTHORIZED, nothing sent" "UNAUTHORIZED: the environment variable EXCHANGE_API_TOKEN"

# toolgen serve: the same call as an MCP tools/call; its log line holds no token either.
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
{
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"get_exchange_rate\",\"arguments\":{\"base\":\"USD\",\"target\":\"EUR\"}}}"
    printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"get_exchange_rate\",\"arguments\":{\"base\":\"NFD\",\"target\":\"EUR\"}}}"
} >"$TMP/serve.in"
run "$TG" serve --dev <"$TMP/serve.in"
printf '%s\n%s\n' "$OUT" "$ERR" >>"$TMP/seen"
expect_rc "serve: ends at the end of stdin" 0
expect_out "serve: the rate as structured content" '"rate":0.5'
expect_out "serve: 404 is a NOT_FOUND tool result" 'NOT_FOUND: the service answered HTTP 404'
expect_err "serve: its log line says NOT_FOUND" '"error_code":"NOT_FOUND"'

run grep -c "$TOKEN\|5ecret" "$TMP/seen"
expect_eq "the token is in no output, error or log of toolgen" "$OUT" 0

finish cli-http-runtime
