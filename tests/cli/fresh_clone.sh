#!/bin/sh
# A fresh clone (the tracked files of this checkout, as they are) runs the README's bundle
# command: `bin/toolgen build && bin/toolgen pack --dev` writes the bundle of the examples —
# one of them reaches an external service, so toolgen.yaml names its privacy policy — while the
# plain `toolgen pack`, which serves promoted tools only, says that nothing was promoted yet.
# Promoting there credits the right people.
. tests/lib.sh

CMD='bin/toolgen build && bin/toolgen pack --dev'
run grep -cF "$CMD" README.md
expect_eq "the README gives the command" "$OUT" 1

C="$TMP/clone"
mkdir "$C"
git ls-files -z | tar --null -T - -cf - 2>/dev/null | tar -xf - -C "$C"
mkdir "$C/bin" && ln -s "$TG" "$C/bin/toolgen"
run sh -c 'cd "$1" && eval "$2"' - "$C" "$CMD"
expect_rc "the README's build && pack --dev on a fresh clone" 0
expect_out "pack says what the bundle serves" "the bundle serves --dev: every tool of the working tree's manifests that lints, reviewed or not (nobody approved them): 6 tools"
if [ -s "$C/dist/toolgen-examples-0.1.0.mcpb" ]; then ok; else bad "no bundle written"; fi
run sh -c 'cd "$1" && bin/toolgen pack -o "$2"' - "$C" "$TMP/none.mcpb"
expect_rc "toolgen pack: nothing promoted on a fresh clone" 2
expect_err "it says how to go on" "Promote one first"

# A promotion in the clone is authored by the repository's git user (the shipped toolgen.yaml
# names no author of its own), and approved by the account that answered, even without $USER.
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
git -C "$C" init -q && git -C "$C" config user.name "Ada Lovelace" &&
    git -C "$C" config user.email ada@example.org && git -C "$C" add -A >/dev/null &&
    git -C "$C" commit -qm clone
P=preview_file_lines
U=$(id -un)
for step in "stage $P" "run $P --arg file_path=data/iris.csv" "feedback $P --output Yes" \
    "feedback $P --decision Approve" "promote $P"; do
    # shellcheck disable=SC2086 # the step's words
    run env -u USER -u LOGNAME -u TOOLGEN_USER "$TG" -C "$C" $step
    expect_rc "toolgen $step" 0
done
run git -C "$C" log -1 --format='%an <%ae>%n%B'
expect_out "the promotion's author is the repository's git user" "Ada Lovelace <ada@example.org>"
expect_out "the approver is the account, without \$USER" "Approved-By: $U"

finish cli-fresh-clone
