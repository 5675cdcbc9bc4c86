#!/bin/sh
# Tool code runs from the bytes of its source file, never from a bytecode cache: a planted
# __pycache__/*.pyc whose header matches the approved tool.py (and one that is not checked
# against the source at all) never runs — not in a cold call (`toolgen run`), not in the test
# stage's workers (`toolgen build`), not in serve's warm pool — and neither does a planted
# cache of a module the tool imports from its folder (docs/sandbox.md#the-runner).
. tests/lib.sh

PY=/usr/bin/python3
REPO=$TMP/repo
T=$REPO/manifests/who
mkdir -p "$T" "$REPO/data" "$TMP/tmp"
chmod 755 "$TMP" "$REPO" "$REPO/manifests" "$T" "$REPO/data"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR
cat >"$REPO/toolgen.yaml" <<'EOF'
config_version: 1
static_check:
  allowed_imports: [helper]
paths:
  manifests: manifests/
EOF
cat >"$T/tool.manifest.yaml" <<'EOF'
manifest_version: 1
name: who
version: 1.0.0
title: Who
description: Says whose code ran (the bytecode-cache test's tool).
status: draft
risk: low
idempotency: idempotent
docs: {when_to_use: tests, what_it_does: says whose code ran, returns: '{who, helper}', prerequisites: none}
input_schema:
  type: object
  additionalProperties: false
  properties:
    n: {type: integer, description: Unused., default: 0}
output_schema:
  type: object
  required: [who, helper]
  properties:
    who: {type: string, description: Whose tool code ran.}
    helper: {type: string, description: Whose helper code ran.}
examples:
  - {name: one, input: {n: 1}, output: {who: approved, helper: approved}}
  - {name: two, input: {n: 2}, output: {who: approved, helper: approved}}
implementation:
  runtime: python
  file: tool.py
  entrypoint: run
EOF
cat >"$T/tool.py" <<'EOF'
import helper


def run(n=0):
    return {"who": "approved", "helper": helper.WHO}
EOF
printf 'WHO = "approved"\n' >"$T/helper.py"
chmod 644 "$REPO/toolgen.yaml" "$T"/*

# The planted caches: timestamp-checked ones whose header matches the source's mtime and size
# (what Python's import system accepts as current), and an unchecked hash-based one.
$PY - "$T" <<'EOF'
import importlib._bootstrap_external as b
import importlib.util
import os
import sys

folder = sys.argv[1]
os.makedirs(os.path.join(folder, "__pycache__"), exist_ok=True)
for name, evil, kind in (("tool", 'import helper\n\ndef run(n=0):\n    return {"who": "planted", "helper": helper.WHO}\n', "timestamp"),
                         ("helper", 'WHO = "planted"\n', "unchecked")):
    src = os.path.join(folder, name + ".py")
    code = compile(evil, src, "exec")
    st = os.stat(src)
    if kind == "timestamp":
        data = b._code_to_timestamp_pyc(code, st.st_mtime, st.st_size)
    else:
        data = b._code_to_hash_pyc(code, importlib.util.source_hash(b"anything"), checked=False)
    with open(importlib.util.cache_from_source(src), "wb") as f:
        f.write(data)
EOF
chmod 755 "$T/__pycache__"
chmod 644 "$T/__pycache__"/*
# Proof that the plant works: Python's own import of the folder runs the planted code.
run $PY -B -c "import sys; sys.path.insert(0, '$T'); import tool; print(tool.run())"
expect_out "the planted caches are what a plain import runs" "planted"

run sh -c 'cd "$1" && "$2" run who --json' - "$REPO" "$TG"
expect_rc "cold call" 0
expect_out "cold call: the approved tool.py ran" '"who": "approved"'
expect_out "cold call: the approved helper.py ran" '"helper": "approved"'
expect_not_out "cold call: no planted code" "planted"

run sh -c 'cd "$1" && "$2" build -v' - "$REPO" "$TG"
expect_rc "build: the examples pass in the test stage's worker" 0
expect_not_out "build: no planted code" "planted"

req() {
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    for i in 2 3 4 5; do
        printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"who","arguments":{"n":%s}}}\n' "$i" "$i"
    done
}
run sh -c 'cd "$1" && printf "%s\n" "$3" | "$2" serve --dev' - "$REPO" "$TG" "$(req)"
expect_out "serve: calls answered" '"id":5'
expect_out "serve: the approved code ran" 'approved'
expect_not_out "serve: no planted code, cold or pooled" "planted"

finish cli-sandbox-pyc
