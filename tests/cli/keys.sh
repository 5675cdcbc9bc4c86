#!/bin/sh
# Portable, honest keys (docs/build.md "When a stage runs"): a stage's key holds toolgen's
# version and the stage's, not the program's bytes, so another build of the same version, or the
# repository in another folder, finds every stage up to date; and the environment fingerprint
# (docs/build.md "The environment fingerprint"): an upgrade of a package a tool declares, or of
# the interpreter, reruns exactly the stages that ran code with it, and explain names it. The
# upgrades are simulated in the fingerprint's cache (.toolgen/env), which toolgen trusts while
# the interpreter and its sys.path folders are unchanged.
. tests/lib.sh
T=$TMP
SRC=$(pwd)

# edit_json FILE STATEMENT...: runs each Python statement on the JSON of FILE, loaded as d
edit_json() {
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for stmt in sys.argv[2:]:
    exec(stmt)
json.dump(d, open(sys.argv[1], "w"))
PY
}

R=$T/repo
mkdir -p "$R/manifests" "$R/data"
cp -r manifests/group_and_count_by_columns manifests/preview_file_lines "$R/manifests/"
cp data/*.csv "$R/data/"
cp toolgen.yaml "$R/"
run "$TG" -C "$R" build
expect_rc "first build" 0
expect_out "first build ran the tests" "test 2"

# ---- another build of the same version, and another folder ------------------------------------
mkdir -p "$T/other"
cp "$TG" "$T/other/toolgen"
printf 'another build of the same source\n' >>"$T/other/toolgen" # other bytes, same version
run env TOOLGEN_DATADIR="$SRC" "$T/other/toolgen" -C "$R" build
expect_rc "other binary" 0
expect_out "other binary: same keys" "no work to do"

cp -a "$R" "$T/moved"
run "$TG" -C "$T/moved" build
expect_rc "moved repository" 0
expect_out "moved repository: same keys" "no work to do"

# ---- the fingerprint -----------------------------------------------------------------------
run grep -c '"pandas"' "$R/.toolgen/env"
expect_out "the fingerprint cache holds the distributions" "1"
edit_json "$R/.toolgen/env" 'd["python"]["value"]["packages"]["pandas"] = "99.0.0"'
run "$TG" -C "$R" explain
expect_out "explain names the package" \
    "test group_and_count_by_columns: would run: the environment changed: python-package:pandas is now 99.0.0"
expect_out "a tool without pandas stays" "test preview_file_lines: up to date"
run "$TG" -C "$R" build
expect_rc "package upgrade" 0
expect_out "package upgrade reruns one test stage" "ran 1 stage (test 1)"

edit_json "$R/.toolgen/env" 'd["python"]["value"]["version"] = "CPython 3.99.0"'
run "$TG" -C "$R" explain
expect_out "explain names the interpreter" "the environment changed: python is now CPython 3.99.0"
run "$TG" -C "$R" build
expect_rc "interpreter upgrade" 0
expect_out "interpreter upgrade reruns the stages that run code" "ran 4 stages (static 2, test 2)"
run "$TG" -C "$R" build
expect_out "then up to date" "no work to do"

# ---- the machine's copy of the fingerprint --------------------------------------------------
# The answers are the machine's: a repository without them (a clean build) takes them from the
# cache folder, under the same signature check (simulated, as above, in that copy).
export XDG_CACHE_HOME="$T/cache"
run "$TG" -C "$R" clean
run "$TG" -C "$R" build
expect_rc "build with a cache folder" 0
edit_json "$T/cache/toolgen/env.json" 'd["python"]["value"]["packages"]["pandas"] = "98.0.0"'
rm -rf "$R/.toolgen"
run "$TG" -C "$R" build
expect_rc "clean build" 0
run grep -c '"98.0.0"' "$R/.toolgen/env"
expect_out "a clean build takes the machine's answers" "1"
edit_json "$T/cache/toolgen/env.json" 'd["python"]["sig"] = "/usr/bin/python3 0 0 0"' \
    'd["python"]["value"]["packages"]["pandas"] = "97.0.0"'
rm -rf "$R/.toolgen"
run "$TG" -C "$R" build
expect_rc "clean build, stale machine cache" 0
run grep -c '"97.0.0"\|"98.0.0"' "$R/.toolgen/env"
expect_out "answers whose signature does not match are asked again" "0"
run grep -c '"97.0.0"' "$T/cache/toolgen/env.json"
expect_out "and the machine's copy is replaced" "0"
unset XDG_CACHE_HOME

# the manifests and generated/ do not hold keys: the fingerprint leaves them alone
run "$TG" -C "$R" build -v
expect_not_out "no generated file rewritten" "wrote generated/"

finish keys
