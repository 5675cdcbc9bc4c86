#!/bin/sh
# The code toolset (toolsets/code, docs/code.md) as CI sees it: a fresh copy builds with every
# example and test run in the sandbox through the gates (examples whose executionTime and
# resource_analysis differ from the recorded ones pass: x-toolgen-volatile), its generated/
# equals the committed one, and `toolgen run` answers a program, a failing one (exit status 1,
# the guidance on stderr) and a refused working folder.
. tests/lib.sh

PY=/usr/bin/python3
# As root, tool code runs as an unprivileged user that must reach the work directories.
chmod 755 "$TMP"
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR

mkdir -p "$TMP/code"
cp -r toolsets/code/toolgen.yaml toolsets/code/manifests "$TMP/code/"
chmod -R o+rX "$TMP/code"
run "$TG" -C "$TMP/code" build
expect_rc "build: every example and test passes the gates" 0
expect_out "build: python_execute" "python_execute: 14/14 tests passed"
expect_out "build: create_session" "create_session: 4/4 tests passed"
expect_out "build: close_session" "close_session: 2/2 tests passed"
expect_out "build: list_runtimes" "list_runtimes: 2/2 tests passed"
expect_out "build: list_available_packages" "list_available_packages: 2/2 tests passed"
expect_out "build: node_execute" "node_execute: 15/15 tests passed"
if diff -r "$TMP/code/generated" toolsets/code/generated >"$TMP/diff" 2>&1; then ok; else
    bad "generated/ differs from the committed one (run bin/toolgen -C toolsets/code build): $(head -c 1500 "$TMP/diff")"
fi

field() { # EXPR over the envelope d (the last run's stdout)
    printf '%s' "$OUT" | $PY -c 'import json,sys
d=json.load(sys.stdin)
v=eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v,str) else v)' "$1" 2>/dev/null
}

run "$TG" -C toolsets/code run python_execute --json --arg code='print(6 * 7)'
expect_rc "run: a program" 0
expect_eq "run: its stdout" "$(field "d['result']['stdout']")" "42"
expect_eq "run: its return code" "$(field "d['result']['returnCode']")" "0"

run "$TG" -C toolsets/code run node_execute --arg code='console.log(1);
missing();'
expect_rc "run: a failing program" 1
expect_err "run: its error type and line" "ReferenceError: missing is not defined (line 2)"
expect_err "run: its guidance" "docs/code.md#names-and-attributes"
expect_out "run: the failed program's result, its output first" "**success:** false"
expect_out "run: the failed program's stdout" "1"

run "$TG" -C toolsets/code run python_execute --arg code='print(1)' --arg workingDir=../up
expect_rc "run: workingDir outside" 1
expect_err "run: workingDir refused by input_schema" "/workingDir"

finish "toolset code"
