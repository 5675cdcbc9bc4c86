#!/bin/sh
# The runner of a Node.js pool worker (runner.py --warm-node, runner_warm.py with runner_warm.js;
# docs/sandbox.md#nodejs-programs-in-the-pool) driven by its protocol outside a sandbox
# (tests/cli/warm_node.py): it says ready once node has loaded runner_code.js; a call's program
# writes to the call's own stdout, stderr and reply, in its own folder with its links, and its
# wait status and CPU time come back; a further call gets a fresh node (no global of the first);
# toolgen's kill ends a spinning program with SIGKILL; EOF ends the runner. Bad input: a node that
# does not start ends the runner with status 3 and a message naming the command; a call without
# its descriptors ends it (status 2); runner_warm.js given a call it cannot take exits 70 (the
# runner then gives the call back to toolgen, which runs it cold). The sandboxed pool itself is
# tests/unit/test_code_pool.c.
. tests/lib.sh
need "Node.js is missing (/usr/bin/node): make deps" test -x /usr/bin/node
RT=toolgen/run/runtime
field() { printf '%s' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps(eval(sys.argv[1])))" "$1"; }

export TMP
run python3 tests/cli/warm_node.py "$RT" /usr/bin/node calls
expect_rc "calls: the driver ran" 0
expect_eq "ready once node loaded" "$(field "d['ready']")" '{"ready": true, "preloaded": false}'
expect_eq "a failing program: status 1 (wait status 256)" "$(field "d['first']['status']")" 256
expect_eq "its stdout: in its folder /…/c0, its link made" "$(field "d['first']['stdout']")" '"true true\n"'
expect_eq "its stderr: its own line, then the error with the program's frame" \
    "$(field "d['first']['stderr']")" \
    '["e", "ReferenceError: missing is not defined", "    at Object.<anonymous> ([code]:6:1)"]'
expect_eq "its reply: the error's type and line" \
    "$(field "[d['first']['reply']['ok'], d['first']['reply']['error']['type'], d['first']['reply']['error']['line']]")" \
    '[false, "ReferenceError", 6]'
expect_eq "its CPU time reported" "$(field "d['first']['utime_ok']")" true
expect_eq "a further call: a fresh node, no global of the first" \
    "$(field "[d['second']['status'], d['second']['stdout'], d['second']['reply']]")" \
    '[0, "undefined\n", {"ok": true}]'
expect_eq "toolgen's kill: SIGKILL" "$(field "[d['killed']['status'], d['killed']['stdout']]")" \
    '[9, "spinning\n"]'
expect_eq "EOF ends the runner" "$(field "d['exit']")" 0

run python3 tests/cli/warm_node.py "$RT" /usr/bin/node eof
expect_eq "EOF before a call: the runner ends" "$(field "[d['ready']['ready'], d['exit']]")" '[true, 0]'

run python3 tests/cli/warm_node.py "$RT" /usr/bin/node no-node
expect_eq "no node: no ready line, status 3" "$(field "[d['line'], d['exit']]")" '[null, 3]'
expect_eq "no node: the message names the command" "$(field "d['stderr']")" \
    "\"runner_warm: node did not start (/nonexistent/node --max-old-space-size=256 $PWD/$RT/runner_warm.js)\\n\""

run python3 tests/cli/warm_node.py "$RT" /usr/bin/node no-fds
expect_eq "a call without descriptors: no status, status 2" "$(field "[d['line'], d['exit']]")" '[null, 2]'

run python3 tests/cli/warm_node.py "$RT" /usr/bin/node node-refuses
expect_eq "runner_warm.js: loaded, reports its CPU" "$(field "d['loaded']")" '["stime", "utime"]'
expect_eq "runner_warm.js: a call it cannot take: exit 70, nothing said" \
    "$(field "[d['line'], d['exit']]")" '[null, 70]'
finish cli-warm-node
