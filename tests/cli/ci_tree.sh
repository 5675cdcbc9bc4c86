#!/bin/sh
# The check .ci/run makes after the tests (tests/tree_unchanged.sh): a working tree that matches
# its last commit passes, also with ignored files in it; a changed tracked file, a deleted one or
# a file neither committed nor ignored fails it, naming the file; outside git it is a usage error.
. tests/lib.sh
CHECK_SH=$(pwd)/tests/tree_unchanged.sh
R=$TMP/repo

skip_unless "git is not installed" command -v git
mkdir -p "$R/src"
printf 'ignored/\n*.log\n' >"$R/.gitignore"
printf 'one\n' >"$R/src/a.txt"
printf 'two\n' >"$R/src/b.txt"
need "a repository with one commit" sh -c 'cd "$1" && git init -q . && git add -A &&
    git -c user.name=t -c user.email=t@example.com commit -qm init' - "$R"
in_repo() { run sh -c 'cd "$1" && shift && "$@"' - "$R" "$@"; }

in_repo sh "$CHECK_SH" "after the tests"
expect_rc "clean tree: passes" 0
expect_out "clean tree: says so" "after the tests: the working tree matches the last commit"

mkdir -p "$R/ignored"
printf 'x\n' >"$R/ignored/out.bin"
printf 'x\n' >"$R/src/run.log"
in_repo sh "$CHECK_SH" "after the tests"
expect_rc "ignored files: pass" 0

printf 'changed\n' >"$R/src/a.txt"
in_repo sh "$CHECK_SH" "after the tests"
expect_rc "a changed tracked file: fails" 1
expect_out "a changed tracked file: named" "src/a.txt"
expect_err "a changed tracked file: says when" "after the tests: tracked files differ"
printf 'one\n' >"$R/src/a.txt"

rm "$R/src/b.txt"
in_repo sh "$CHECK_SH" "after the tests"
expect_rc "a deleted tracked file: fails" 1
expect_out "a deleted tracked file: named" "src/b.txt"
printf 'two\n' >"$R/src/b.txt"

printf 'left behind\n' >"$R/src/new.txt"
in_repo sh "$CHECK_SH" "after the tests"
expect_rc "an untracked file: fails" 1
expect_out "an untracked file: named" "src/new.txt"
expect_err "an untracked file: says so" "neither committed nor ignored"
rm "$R/src/new.txt"

in_repo sh "$CHECK_SH" "after the tests"
expect_rc "restored: passes again" 0
skip_end

mkdir -p "$TMP/nogit"
run sh -c 'cd "$1" && GIT_CEILING_DIRECTORIES="$2" sh "$3" now' - "$TMP/nogit" "$TMP" "$CHECK_SH"
expect_rc "outside git: usage error" 2
expect_err "outside git: says so" "not inside a git working tree"

finish cli-ci-tree
