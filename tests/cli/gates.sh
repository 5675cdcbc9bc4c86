#!/bin/sh
# The validation gates as build stages (docs/build.md#validation-gates): static and test, the
# validation report, the lifecycle rule, incrementality, and the repository's own tools.
# The fixture repository tests/gates/repo holds one small python tool whose gates pass; each
# case copies it and breaks it in one way.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
REPO=$(pwd)
SCHEMA=$REPO/schemas/validation_report.schema.json

fresh() { # fresh DIR: a copy of the fixture
    rm -rf "$1"
    mkdir -p "$1"
    cp -r tests/gates/repo/. "$1/"
}
MF=manifests/count_rows/tool.manifest.yaml

# -- a passing tool: draft → staged, scores in a valid report
P=$TMP/pass
fresh "$P"
run "$TG" -C "$P" build
expect_rc "pass: build" 0
expect_out "pass: summary line" "count_rows: 3/3 tests passed (100%), score 1.00 excellent, lifecycle: draft → staged"
expect_out "pass: static and test ran" "static 1, test 1"
run "$TG" validate --schema "$SCHEMA" "$P/.toolgen/reports/count_rows.validation.json"
expect_rc "pass: report validates" 0
run grep -c '"to": "staged"' "$P/.toolgen/reports/count_rows.validation.json"
expect_out "pass: report says staged" "1"
run grep -c '"overall_score": 1' "$P/.toolgen/reports/count_rows.validation.json"
expect_out "pass: report has the score" "1"
run grep -c 'status: draft' "$P/$MF"
expect_out "pass: the manifest is not rewritten" "1"
# a word like eval in a string or comment is not a violation (tool.py has both)
[ "$(grep -c 'eval' "$P/manifests/count_rows/tool.py")" = 2 ] ||
    setup_failed "the fixture's tool.py no longer mentions eval in a string and a comment"

# -- a second build runs nothing
run "$TG" -C "$P" build
expect_eq "pass: rebuild does nothing" "$OUT" "toolgen: no work to do."

# -- -v prints per-test lines
printf '\n' >>"$P/manifests/count_rows/tool.py"
run "$TG" -C "$P" build -v
expect_out "-v: per-test lines" "PASS test three_rows (normal"
expect_out "tool.py edit: only static and test" "ran 2 stages (static 1, test 1)"
expect_not_out "tool.py edit: no load" "load count_rows"

# -- a data file the tests read is an input of the test stage
printf 'd,4\n' >>"$P/data/small.csv"
run "$TG" -C "$P" build
expect_rc "data edit: the recorded output no longer holds" 1
expect_out "data edit: only test reruns" "1 stage failed: test count_rows; 1 ran"
printf 'name,value\na,1\nb,2\nc,3\n' >"$P/data/small.csv"
run "$TG" -C "$P" build
expect_rc "data restored: passes again" 0

# -- editing a test reruns load and test, not static... (static reruns: its key holds the IR)
sed -i 's/category: edge/category: stress/' "$P/$MF"
run "$TG" -C "$P" build
expect_rc "test edit: build" 0
expect_out "test edit: load and test ran" "load 1"
expect_out "test edit: test ran" "test 1"

# -- a failing test: exit 1, names tool, stage, test and mismatch; report says draft
F=$TMP/fail
fresh "$F"
sed -i 's/output_contains: {rows: 3}/output_contains: {rows: 4}/' "$F/$MF"
run "$TG" -C "$F" build
expect_rc "failing test: exit 1" 1
expect_err "failing test: stage and tool" "FAILED: [5/5] test count_rows"
expect_err "failing test: test and mismatch" "test three_rows: output_contains: /rows: expected 4, got 3"
expect_out "failing test: summary" "lifecycle: stays draft (gate test_pass_rate failed)"
run grep -c '"failed_gate": "test_pass_rate"' "$F/.toolgen/reports/count_rows.validation.json"
expect_out "failing test: report names the gate" "1"
run grep -c '"to": "draft"' "$F/.toolgen/reports/count_rows.validation.json"
expect_out "failing test: report says draft" "1"
run "$TG" validate --schema "$SCHEMA" "$F/.toolgen/reports/count_rows.validation.json"
expect_rc "failing test: report validates" 0
run "$TG" -C "$F" build
expect_rc "failing test: a failed stage runs again" 1

# -- a staged manifest whose gates fail is a build failure naming the gate
sed -i 's/^status: draft/status: staged/' "$F/$MF"
run "$TG" -C "$F" build
expect_rc "staged + failing gate: exit 1" 1
expect_err "staged + failing gate: named" "gate test_pass_rate failed"
expect_err "staged + failing gate: the manifest's claim" "the manifest says status: staged"

# -- a static-check violation: stage static fails with line:col
S=$TMP/static
fresh "$S"
printf 'import subprocess as sp\n' >>"$S/manifests/count_rows/tool.py"
run "$TG" -C "$S" build
expect_rc "static: exit 1" 1
expect_err "static: the stage" "FAILED: [4/5] static count_rows"
expect_err "static: line:col" "manifests/count_rows/tool.py:12:1:"
expect_err "static: the rule" "forbidden-module"

# -- no bubblewrap: the environment message, exit 3
N=$TMP/nobwrap
fresh "$N"
TOOLGEN_BWRAP=$TMP/no-such-bwrap run "$TG" -C "$N" build
expect_rc "no bwrap: exit 3" 3
expect_err "no bwrap: says so" "bwrap"

# -- a reference implementation: functional correctness compares outputs, CodeBLEU the code
F=$TMP/reference
fresh "$F"
cp tests/gates/reference/reference.py "$F/manifests/count_rows/"
printf 'reference:\n  file: reference.py\n  entrypoint: run\n' >>"$F/$MF"
run "$TG" -C "$F" build
expect_rc "reference: build" 0
# different code: the code_bleu gate (0.75) keeps the tool a draft, named on the summary line
expect_out "reference: code_bleu gate named" "stays draft (gate code_bleu failed)"
REP=$F/.toolgen/reports/count_rows.validation.json
run "$TG" validate --schema "$SCHEMA" "$REP"
expect_rc "reference: report validates" 0
run python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['code_metrics']; s=m['semantic_closeness']; print('agree=%s bleu_ok=%s' % (m['functional_correctness']['reference_solution_similarity'], 0 < s['code_bleu_score'] < 1 and s['weights']['ast'] == 0.25))" "$REP"
expect_out "reference: outputs agree, CodeBLEU between 0 and 1 with the configured weights" "agree=1 bleu_ok=True"
cp tests/gates/reference/wrong_reference.py "$F/manifests/count_rows/reference.py"
run "$TG" -C "$F" build
run python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['code_metrics']; print('agree=%s' % m['functional_correctness']['reference_solution_similarity'])" "$REP"
expect_out "reference: a reference that disagrees lowers the similarity" "agree=0"

# -- this repository's own tools: every example tool is checked and scored
R=$TMP/repo
mkdir -p "$R"
cp -r manifests data toolgen.yaml "$R/"
run "$TG" -C "$R" build -j 1 -v
expect_rc "repository: build" 0
# the order of one job (docs/build.md#scheduling): the tool whose tests cost most (cases times
# one plus its packages) has its static check and its tests run before any other tool's
LONGEST=$(/usr/bin/python3 - "$R/manifests" <<'PY'
import os, sys, yaml
def cost(m):
    impl = m.get("implementation") or {}
    if impl.get("runtime") == "http":
        return 0
    return (len(m.get("examples") or []) + len(m.get("tests") or [])) * (1 + len(impl.get("dependencies") or []))
costs = sorted((-cost(yaml.safe_load(open(os.path.join(sys.argv[1], t, "tool.manifest.yaml")))), t)
               for t in os.listdir(sys.argv[1]))
print(costs[0][1] if costs[0][0] < costs[1][0] else "")
PY
)
[ -n "$LONGEST" ] || setup_failed "two example tools tie for the longest tests"
FIRST=$(printf '%s\n' "$OUT" | sed -n 's/^\[[0-9]*\/[0-9]*\] \(static\|test\) \([a-z_0-9]*\)$/\1 \2/p' | head -2 | tr '\n' ' ')
expect_eq "repository: $LONGEST's static check and tests first" "$FIRST" "static $LONGEST test $LONGEST "
for t in $(ls manifests); do
    expect_out "repository: $t summarised" "$t: "
done
expect_out "repository: static for every tool" "static $(ls manifests | wc -l)"
expect_out "repository: scores" "score 1.00 excellent"
expect_out "repository: http not run" "get_exchange_rate: tests not run"
for f in "$R"/.toolgen/reports/*.validation.json; do
    run "$TG" validate --schema "$SCHEMA" "$f"
    expect_rc "repository: $(basename "$f") validates" 0
done

finish cli-gates
