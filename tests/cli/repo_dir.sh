#!/bin/sh
# toolgen -C DIR, started from another directory, behaves exactly as toolgen started inside DIR
# (docs/cli.md): lint, build, run, check and clean print the same, exit the same and leave the
# same files, paths typed on the command line are relative to DIR (as with git -C), and nothing
# lands in the directory toolgen was started from. Two copies of one repository: A is worked on
# from inside, B with -C from a sibling directory, once by a relative and once by an absolute -C.
# Started in a subfolder of a repository, without -C, toolgen finds the repository above.
. tests/lib.sh
T=$TMP
A=$T/a
B=$T/b
W=$T/elsewhere

mk_repo() { # DIR
    mkdir -p "$1/manifests/show_a" "$1/manifests/show_b" "$1/data" "$1/in"
    printf 'project:\n  name: test-tools\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$1/toolgen.yaml"
    sed 's/@NAME@/show_a/g' tests/synthetic_tool.yaml >"$1/manifests/show_a/tool.manifest.yaml"
    sed 's/@NAME@/show_b/g' tests/synthetic_tool.yaml >"$1/manifests/show_b/tool.manifest.yaml"
    printf 'sepal_length,sepal_width\n5.1,3.5\n' >"$1/data/iris.csv"
    printf '{"file_path": "data/iris.csv"}\n' >"$1/in/args.json"
}
mk_repo "$A"
mk_repo "$B"
mkdir -p "$W"

# normalise FILE REPO: the repository's path and the timings differ by design
norm() {
    sed -e "s|$2|REPO|g" -e 's/in [0-9][0-9.]*s$/in N s/' -e 's/[0-9][0-9.]* ms/N ms/g' "$1"
}

# same NAME DASH_C ARGS...: toolgen ARGS inside A, toolgen -C DASH_C ARGS from W (DASH_C names
# B); stdout, stderr and exit status must be the same, and W must stay empty
same() {
    name=$1
    dash_c=$2
    shift 2
    (cd "$A" && "$TG" "$@") >"$T/a.out" 2>"$T/a.err"
    ra=$?
    (cd "$W" && "$TG" -C "$dash_c" "$@") >"$T/b.out" 2>"$T/b.err"
    rb=$?
    RC=$rb
    OUT=$(cat "$T/b.out")
    ERR=$(cat "$T/b.err")
    expect_eq "$name: exit status" "$rb" "$ra"
    expect_eq "$name: stdout" "$(norm "$T/b.out" "$B")" "$(norm "$T/a.out" "$A")"
    expect_eq "$name: stderr" "$(norm "$T/b.err" "$B")" "$(norm "$T/a.err" "$A")"
    expect_eq "$name: nothing in the starting directory" "$(ls -A "$W")" ""
}

# tree_sum DIR: every file under DIR/generated with its checksum
tree_sum() {
    (cd "$1" && find generated -type f | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s\n' "$(cksum <"$f")" "$f"
    done)
}

same "lint" ../b lint
expect_rc "lint: exit 0" 0
same "lint PATH (relative to -C)" "$B" lint manifests/show_a
expect_err "lint PATH: one manifest" "1 manifest and 0 configs OK"

same "build" ../b build -j1
expect_rc "build: exit 0" 0
expect_out "build: ran the stages" "toolgen: ran"
expect_eq "build: the same generated files" "$(tree_sum "$B")" "$(tree_sum "$A")"
[ -f "$B/.toolgen/log" ] && ok || bad "build: no state log in the repository"
same "build again" "$B" build
expect_out "build again: no work" "no work to do"
same "explain" ../b explain
expect_out "explain: up to date" "everything is up to date"

same "run --input-file (relative to -C)" ../b run show_a --input-file in/args.json
expect_rc "run: exit 0" 0
expect_out "run: the file's text" "sepal_length"
same "run a manifest path" "$B" run manifests/show_b --arg file_path=data/iris.csv
expect_rc "run a manifest path: exit 0" 0

skip_unless "git is not installed" command -v git
for r in "$A" "$B"; do
    (cd "$r" && git init -q . && git add -A &&
        git -c user.name=t -c user.email=t@example.com commit -qm init) >/dev/null 2>&1
done
same "check" ../b check
expect_rc "check: exit 0" 0
expect_out "check: matches" "matches the last commit"
echo stray >"$A/generated/stray.txt"
echo stray >"$B/generated/stray.txt"
same "check with a stray file" "$B" check
expect_rc "check with a stray file: exit 1" 1
expect_out "check with a stray file: lists it" "untracked  generated/stray.txt"
rm "$A/generated/stray.txt" "$B/generated/stray.txt"
skip_end

same "clean" ../b clean
expect_rc "clean: exit 0" 0
[ ! -e "$B/.toolgen" ] && ok || bad "clean: .toolgen/ left in the repository"

printf 'build:\n  jobs: many\n' >"$A/toolgen.yaml"
printf 'build:\n  jobs: many\n' >"$B/toolgen.yaml"
same "a bad toolgen.yaml" ../b build
expect_rc "a bad toolgen.yaml: exit 2" 2
expect_err "a bad toolgen.yaml: names the key" "/build/jobs"

# From a subfolder, without -C, toolgen finds the repository above, as git does; arguments that
# name the repository's files stay relative to its root, the user's own files to the subfolder.
printf 'build:\n  gates: false\n' >"$A/toolgen.yaml"
run sh -c 'cd "$1/data" && "$2" build >/dev/null 2>&1 && "$2" run show_a --arg file_path=data/iris.csv' - "$A" "$TG"
expect_rc "run from data/: the repository is found" 0
expect_out "run from data/: the tool ran" "sepal_length"
printf '{"type": "object"}\n' >"$A/data/s.json"
run sh -c 'cd "$1/data" && "$2" validate --schema s.json s.json' - "$A" "$TG"
expect_rc "validate from data/: its files are relative to the current folder" 0
run sh -c 'cd "$1/manifests/show_b" && "$2" lint' - "$A" "$TG"
expect_rc "lint from a tool's folder: the whole repository" 0
mkdir -p "$T/plain/sub"
git init -q "$T/plain"
mkdir -p "$T/plain/manifests"
git init -q "$T/plain/sub"
run sh -c 'cd "$1/sub" && "$2" build' - "$T/plain" "$TG"
expect_rc "the search stops at a git repository's top" 2
expect_err "... and says where it looked" "no toolgen.yaml and no manifests/ here or in a folder above"

run "$TG" -C "$T/nonexistent" build
expect_rc "-C to a missing folder: exit 2" 2
expect_err "-C to a missing folder: names it" "-C $T/nonexistent: No such file or directory"

finish cli-repo-dir
