#!/bin/sh
# tree_unchanged.sh WHEN — the working tree of the repository in the current directory matches
# its last commit: no tracked file changed (git diff --exit-code) and no file that is neither
# committed nor ignored. .ci/run runs it before the tests and after them, so a test that writes
# into the tree (a golden rewritten, a file left behind) fails CI. Exit 1 naming the files, with
# WHEN ("after the tests") in the message; 2 outside a git working tree.
set -u
when=${1:-now}
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "tree_unchanged.sh: not inside a git working tree" >&2
    exit 2
fi
status=0
if ! git diff --exit-code --stat HEAD; then
    echo "$when: tracked files differ from the last commit (above)" >&2
    status=1
fi
untracked=$(git ls-files --others --exclude-standard)
if [ -n "$untracked" ]; then
    printf '%s\n' "$untracked"
    echo "$when: files neither committed nor ignored (above)" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "$when: the working tree matches the last commit"
exit "$status"
