#!/bin/sh
# The static check of Python tool code (toolgen/run/runtime/static_check.py): every fixture under
# tests/static_check/ gets exactly the findings and warnings its "# expect: KIND LINE:COL RULE"
# lines list; the example tools pass with the lists of this repository's toolgen.yaml; the lists
# of the request are honoured; the script's defaults are the config schema's; bad requests exit 2.
# First summary line: "static-check: N passed, N failed".
. tests/lib.sh

PY=/usr/bin/python3
CHECK=toolgen/run/runtime/static_check.py

# request FILE [POLICY_JSON]: the JSON request for FILE on stdout (policy keys merged in).
request() {
    "$PY" -c '
import json, sys
req = {"code": open(sys.argv[1], encoding="utf-8").read(), "file": sys.argv[1]}
req.update(json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})
print(json.dumps(req))' "$@"
}

# summarise: a reply on stdin → "ok=BOOL" then one "KIND LINE:COL RULE" line per item, sorted.
summarise() {
    "$PY" -c '
import json, sys
r = json.load(sys.stdin)
print("ok=%s" % str(r["ok"]).lower())
items = [("finding", f) for f in r["findings"]] + [("warning", w) for w in r["warnings"]]
for line in sorted("%s %d:%d %s" % (k, i["line"], i["col"], i["rule"]) for k, i in items):
    print(line)'
}

# check_fixture FILE: compares the reply with the fixture's own expectations.
check_fixture() {
    f=$1
    expected=$(sed -n 's/^# expect: //p' "$f" | sort)
    if printf '%s\n' "$expected" | grep -q '^finding '; then want_ok=false; else want_ok=true; fi
    request "$f" >"$TMP/req.json"
    "$PY" "$CHECK" <"$TMP/req.json" >"$TMP/reply.json" 2>"$TMP/err"
    RC=$? OUT=$(cat "$TMP/reply.json") ERR=$(cat "$TMP/err")
    expect_rc "$f: exit status" 0
    got=$(summarise <"$TMP/reply.json")
    expect_eq "$f: ok" "$(printf '%s\n' "$got" | head -n 1)" "ok=$want_ok"
    expect_eq "$f: findings and warnings" "$(printf '%s\n' "$got" | tail -n +2)" "$expected"
}

for f in tests/static_check/*.py; do
    check_fixture "$f"
done

# ---- the example tools pass with the repository's own lists --------------------------------
"$PY" -c '
import json, yaml
print(json.dumps((yaml.safe_load(open("toolgen.yaml")) or {}).get("static_check", {})))' \
    >"$TMP/policy.json" 2>"$TMP/err"
RC=$? OUT="" ERR=$(cat "$TMP/err")
expect_rc "toolgen.yaml static_check read (needs python3-yaml)" 0
policy=$(cat "$TMP/policy.json")
for f in manifests/*/tool.py; do
    [ -f "$f" ] || continue
    request "$f" "$policy" | "$PY" "$CHECK" >"$TMP/reply.json" 2>"$TMP/err"
    RC=$? OUT=$(cat "$TMP/reply.json") ERR=$(cat "$TMP/err")
    expect_rc "$f: exit status" 0
    expect_out "$f passes with toolgen.yaml's lists" '"ok": true'
done

# ---- the lists of the request decide -------------------------------------------------------
run_with() { # FILE POLICY_JSON
    request "$1" "$2" | "$PY" "$CHECK" >"$TMP/reply.json" 2>"$TMP/err"
    RC=$? OUT=$(summarise <"$TMP/reply.json") ERR=$(cat "$TMP/err")
}
run_with tests/static_check/os_alias.py '{"allowed_imports": ["os"]}'
expect_not_out "os allowed: no import-not-allowed" "import-not-allowed"
expect_out "os allowed: o.system still forbidden" "finding 6:5 forbidden-call"
run_with tests/static_check/builtin_calls.py '{"forbidden_calls": ["exec"]}'
expect_not_out "eval no longer listed" "finding 3:13"
expect_out "exec still listed" "finding 4:5 forbidden-call"
run_with tests/static_check/importlib_evasion.py \
    '{"forbidden_modules": [], "allowed_imports": ["importlib"]}'
expect_out "importlib allowed: import_module is a dynamic import" "finding 7:11 dynamic-import"
expect_out "importlib allowed: through an alias too" "finding 8:13 dynamic-import"
run_with tests/static_check/clean_tool.py '{"restricted_calls": []}'
expect_eq "no restricted calls configured: no warnings" "$OUT" "ok=true"

# A message says what is wrong and which setting decides it.
request tests/static_check/os_alias.py | "$PY" "$CHECK" >"$TMP/reply.json"
RC=$? OUT=$(cat "$TMP/reply.json") ERR=""
expect_out "message names the alias" "os.system is forbidden (through the alias o)"
expect_out "message names the setting" "static_check.forbidden_calls"
expect_out "file echoed" '"file": "tests/static_check/os_alias.py"'

# ---- the script's defaults are the config schema's defaults --------------------------------
"$PY" - "$CHECK" >"$TMP/out" 2>&1 <<'EOF'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("static_check", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
schema = json.load(open("schemas/toolgen.config.schema.json"))
props = schema["properties"]["static_check"]["properties"]
bad = [k for k in ("forbidden_calls", "forbidden_modules", "allowed_imports")
       if props[k]["default"] != mod.DEFAULT_POLICY[k]]
print("differ: " + " ".join(bad) if bad else "same")
EOF
RC=$? OUT=$(cat "$TMP/out") ERR=""
expect_eq "DEFAULT_POLICY = schema defaults" "$OUT" "same"

# ---- bad requests --------------------------------------------------------------------------
printf 'not json' | "$PY" "$CHECK" >"$TMP/out" 2>"$TMP/err"
RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
expect_rc "not JSON: exit 2" 2
expect_out "not JSON: says so" "bad request"
printf '{"code": "x = 1", "allowed_imports": "pandas"}' | "$PY" "$CHECK" >"$TMP/out" 2>"$TMP/err"
RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
expect_rc "list of the wrong type: exit 2" 2
expect_out "names the key" "allowed_imports"
printf '{"file": "x.py"}' | "$PY" "$CHECK" >"$TMP/out" 2>"$TMP/err"
RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
expect_rc "no code: exit 2" 2
printf '{"code": "x = 1\\u0000"}' | "$PY" "$CHECK" >"$TMP/out" 2>"$TMP/err"
RC=$? OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
expect_rc "NUL byte in code: still a result" 0
expect_out "NUL byte in code: syntax-error" '"rule": "syntax-error"'

finish static-check
