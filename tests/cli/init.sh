#!/bin/sh
# toolgen init: a new repository that works at once (lint, build, check, new with the built-in
# generator), never overwriting: a second init, an existing CI job and a bad name are refused
# with nothing written; existing folders and .gitignore are kept (a line appended), and a folder
# inside a git working tree gets no git repository of its own (docs/cli.md#init).
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root

N="$TMP/My Shop"
run "$TG" init "$N"
expect_rc "init a new folder" 0
expect_out "names the project from the folder" "as project my-shop"
expect_out "says what to run next, quoted" "toolgen -C '$N' new"
for f in toolgen.yaml manifests/.gitkeep data/.gitkeep prompts/.gitkeep \
    .github/workflows/toolgen.yml .gitignore .git/HEAD; do
    if [ -e "$N/$f" ]; then ok; else RC=0 OUT="" ERR=""; bad "init wrote $f"; fi
done
expect_eq "the build state is ignored by git" "$(cat "$N/.gitignore")" "/.toolgen/"
run "$TG" -C "$N" lint
expect_rc "the new repository lints" 0
run sh -c 'cd "${1:?}" && "$2" build && git add -A && git -c user.name=t -c user.email=t@t commit -qm init && "$2" check' - "$N" "$TG"
expect_rc "builds, and check passes once generated/ is committed" 0
printf 'region,price\nnorth,10\nsouth,20\nnorth,30\n' >"$N/data/sales.csv"
run "$TG" -C "$N" new "average price by region" --data data/sales.csv
expect_rc "toolgen new with the built-in generator works in it" 0
expect_out "and stages the tool" "STAGED mean_price_by_region"

before=$(cat "$N/toolgen.yaml" | cksum)
run "$TG" init "$N"
expect_rc "a second init is refused" 2
expect_err "saying why" "toolgen repository already"
expect_eq "toolgen.yaml is as it was" "$(cat "$N/toolgen.yaml" | cksum)" "$before"

run "$TG" init "$TMP/bad" --name "Bad Name"
expect_rc "a name that is not kebab-case is refused" 2
expect_err "naming the rule" "kebab-case"
[ ! -e "$TMP/bad" ] && ok || { RC=0 OUT="" ERR=""; bad "a refused init wrote nothing"; }

# inside an existing project: its .gitignore, folders and git repository are kept
P=$TMP/project
mkdir -p "$P/tools/data"
git init -q "$P"
printf 'node_modules/\n*.log' >"$P/.gitignore"
echo 'a,b' >"$P/tools/data/x.csv"
run "$TG" -C "$P" init tools --name sales-tools
expect_rc "init a folder of an existing project" 0
expect_not_out "no git init inside a working tree" "git init"
[ ! -e "$P/tools/.git" ] && ok || { RC=0 OUT="" ERR=""; bad "no nested git repository"; }
[ ! -e "$P/tools/data/.gitkeep" ] && ok || { RC=0 OUT="" ERR=""; bad "an existing folder is left as it is"; }
expect_eq "the folder's own .gitignore ignores the build state" "$(cat "$P/tools/.gitignore")" "/.toolgen/"
printf 'node_modules/\n*.log' >"$P/tools/.gitignore"
rm -f "$P/tools/toolgen.yaml" "$P/tools/.github/workflows/toolgen.yml"
run "$TG" -C "$P" init tools
expect_rc "init beside an existing .gitignore" 0
expect_out "says it appended" "appended   /.toolgen/ to .gitignore"
expect_eq ".gitignore keeps its lines, the last without a newline" "$(cat "$P/tools/.gitignore")" "$(printf 'node_modules/\n*.log\n/.toolgen/')"

# a .gitignore that ignores the state already, in another spelling: left as it is
G=$TMP/ignored
mkdir -p "$G"
printf 'build/\n  .toolgen ' >"$G/.gitignore"
run "$TG" init "$G"
expect_rc "init beside a .gitignore that has .toolgen" 0
expect_not_out "nothing appended" "appended"
expect_eq ".gitignore unchanged" "$(cat "$G/.gitignore")" "$(printf 'build/\n  .toolgen ')"

# an existing CI job: refused before anything is written
Q=$TMP/withci
mkdir -p "$Q/.github/workflows"
echo 'name: mine' >"$Q/.github/workflows/toolgen.yml"
run "$TG" init "$Q"
expect_rc "an existing CI job is refused" 2
expect_err "naming it" ".github/workflows/toolgen.yml exists"
[ ! -e "$Q/toolgen.yaml" ] && ok || { RC=0 OUT="" ERR=""; bad "nothing written beside the existing CI job"; }

finish cli-init
