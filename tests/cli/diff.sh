#!/bin/sh
# toolgen diff (docs/review.md): a temporary git repository with real commits; the diff reads
# both revisions through libgit2 without checking out, classifies the changes, applies the
# version policy with --check, prints text, markdown (golden: tests/review/diff.golden.md, which
# only `make golden-update` rewrites) and JSON, and fails clearly on a bad revision, a bad option
# or config, and outside a repository.
. tests/lib.sh
R=$TMP/repo
GOLDEN=tests/review/diff.golden.md
UPDATE=0 # --update (make golden-update): rewrite the golden on purpose, then review the diff
[ "${1:-}" = "--update" ] && UPDATE=1

# Fixed identity and dates: the commits (and so the output) are the same on every run.
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@localhost GIT_COMMITTER_NAME=t
export GIT_COMMITTER_EMAIL=t@localhost GIT_AUTHOR_DATE='2026-01-01T00:00:00Z'
export GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
g() { git -C "$R" "$@" >/dev/null 2>&1; }
commit() { g add -A && g commit -q -m "$1" && g tag "$2"; }
tool() { # NAME: a synthetic tool's manifest
    mkdir -p "$R/manifests/$1"
    sed "s/@NAME@/$1/g" tests/synthetic_tool.yaml >"$R/manifests/$1/tool.manifest.yaml"
}
edit() { # TOOL SED-SCRIPT
    sed -i "$2" "$R/manifests/$1/tool.manifest.yaml"
}

mkdir -p "$R"
printf 'project:\n  name: test-tools\n  version: 1.0.0\n' >"$R/toolgen.yaml"
tool show_a
tool show_b
tool show_r
report() { # TOOL SCORE TIER: a tracked validation report
    mkdir -p "$R/.toolgen/reports"
    printf '{"code_metrics": {"overall_score": %s, "quality_tier": "%s"}}\n' "$2" "$3" \
        >"$R/.toolgen/reports/$1.validation.json"
}
emitted() { # TOOL TEXT: a tracked emitted file
    mkdir -p "$R/generated/$1"
    printf '%s\n' "$2" >"$R/generated/$1/mcp.tool.json"
    printf '{}\n' >"$R/generated/$1/openai.json"
}
report show_a 0.8 good
emitted show_a '{"v": 1}'
g init -q -b main
g add -f .toolgen
commit "first" v1

# A repository with a single commit: HEAD~1 does not exist, said clearly.
run "$TG" -C "$R" diff HEAD~1 HEAD
expect_rc "single commit: HEAD~1" 2
expect_err "single commit: names the revision" "unknown revision 'HEAD~1'"
expect_err "single commit: says how to fix" "name a commit"

# v2: show_a gets a new required input (breaking) without a bump; show_b only docs, with a
# patch bump; show_c is new; show_r is removed.
edit show_a 's/^  required: \[file_path\]$/  required: [file_path, lines]/
/^      x-toolgen-path: read$/a\    lines: {type: integer, minimum: 1, description: Lines to show.}'
edit show_b 's/^  when_to_use: .*/  when_to_use: To read a small data file as it is./; s/^version: 1.0.0/version: 1.0.1/'
tool show_c
rm -r "$R/manifests/show_r"
report show_a 0.95 excellent
emitted show_a '{"v": 2}'
commit "second" v2

run "$TG" -C "$R" diff v1 v2
expect_rc "diff v1 v2" 0
expect_out "diff: show_a breaking" "show_a: changed, 1.0.0 -> 1.0.0, breaking"
expect_out "diff: the new required property" "/input_schema/required  property \"lines\" is now required"
expect_out "diff: show_b docs" "/docs/when_to_use  docs.when_to_use changed"
expect_out "diff: show_c added" "show_c: added, - -> 1.0.0"
expect_out "diff: show_r removed" "show_r: removed, 1.0.0 -> -, breaking"
expect_out "diff: summary" "2 changed, 1 added, 1 removed, 0 unchanged"
expect_out "diff: quality before and after" "quality: 0.80 (good) -> 0.95 (excellent)"
expect_out "diff: the emitted file that changed" "emitted: generated/show_a/mcp.tool.json"
expect_not_out "diff: an emitted file that did not change" "openai.json"
expect_out "diff: the base's commit" "base: v1 ($(git -C "$R" rev-parse v1 | cut -c1-10))"

# --check: show_a needs a major bump; show_b's patch bump suffices for docs.
run "$TG" -C "$R" diff --check v1 v2
expect_rc "check refuses a missing bump" 1
expect_err "check names the tool and the fix" "show_a: breaking changes need a major bump: version 2.0.0 or higher (it is 1.0.0)"
case "$ERR" in *show_b*) bad "check: show_b's patch bump suffices for a docs change" ;; *) ok ;; esac
expect_out "check: summary" "1 tool needs a version bump"

# The markdown of a pull-request comment, byte for byte.
run "$TG" -C "$R" diff --check --format markdown v1 v2
expect_rc "markdown --check" 1
printf '%s\n' "$OUT" >"$TMP/got.md"
if [ "$UPDATE" = 1 ]; then
    cp "$TMP/got.md" "$GOLDEN"
    echo "updated $GOLDEN"
fi
if cmp -s "$TMP/got.md" "$GOLDEN"; then ok; else
    bad "markdown differs from $GOLDEN (make golden-update regenerates it on purpose): $(diff "$GOLDEN" "$TMP/got.md" | head -20)"
fi

# JSON for other tools.
run "$TG" -C "$R" diff --check --format=json v1 v2
expect_rc "json --check" 1
printf '%s' "$OUT" >"$TMP/d.json"
expect_eq "json: fields" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = [t for t in d["tools"] if t["name"] == "show_a"][0]
c = [x for x in a["changes"] if x["class"] == "breaking"][0]
print(d["ok"], d["summary"]["version_bumps_missing"], a["policy"]["bump_needed"], c["pointer"])
' "$TMP/d.json")" "False 1 major /input_schema/required"

# v3: the major bump; a $defs move in show_b (no change; the type stays beside the $ref, as
# the manifest schema asks); --check accepts.
edit show_a 's/^version: 1.0.0/version: 2.0.0/'
edit show_b 's/^      type: string$/      type: string\n      $ref: "#\/$defs\/path"/'
edit show_b '/^input_schema:$/a\  $defs: {path: {type: string}}'
commit "third" v3
run "$TG" -C "$R" diff --check v2 v3
expect_rc "check accepts the major bump" 0
expect_out "check: versions ok" "versions ok"
expect_out "check: a \$ref move is no change" "1 changed, 0 added, 0 removed, 2 unchanged"

# A compatible change needs a minor bump: a patch bump is refused, a minor one accepted.
edit show_c 's/^version: 1.0.0/version: 1.0.1/'
edit show_c 's/^  required: \[file_path\]$/  required: [file_path]\n  minProperties: 0/'
edit show_c '/^      x-toolgen-path: read$/a\    lines: {type: integer, description: Lines to show.}'
run "$TG" -C "$R" diff --check
expect_rc "compatible + patch bump: refused" 1
expect_err "compatible needs minor" "show_c: compatible changes need a minor bump: version 1.1.0 or higher (it is 1.0.1)"
expect_out "working tree is the head by default" "head: working tree"
expect_out "merge base with the default branch" "base: merge base with main"
edit show_c 's/^version: 1.0.1/version: 1.1.0/'
run "$TG" -C "$R" diff --check
expect_rc "compatible + minor bump: accepted" 0

# A promoted tool may not change at the same version, even without semver.
g checkout -q -- .
edit show_c 's/^status: draft/status: promoted/'
commit "promote" v4
edit show_c 's/^description: .*/description: Print a data file as text, unchanged./'
printf 'review:\n  versioning: none\n' >>"$R/toolgen.yaml"
run "$TG" -C "$R" diff --check
expect_rc "promoted at the same version: refused" 1
expect_err "promoted: says why" "show_c: the tool is promoted: it may not change at the same version 1.0.0"
edit show_c 's/^version: 1.0.0/version: 1.0.1/'
run "$TG" -C "$R" diff --check
expect_rc "promoted with a bump: accepted" 0

# The working tree: an untracked new tool is added, a deleted one removed, a manifest that no
# longer parses is a possibly breaking change naming the place, and nothing crashes.
tool show_u
rm -r "$R/manifests/show_b"
printf 'name: [unclosed\n' >>"$R/manifests/show_a/tool.manifest.yaml"
run "$TG" -C "$R" diff --check
expect_rc "working tree: a broken manifest fails the check" 1
expect_err "working tree: broken manifest: the fix" "show_a: the manifest does not parse: fix it first (toolgen lint)"
expect_out "working tree: untracked tool" "show_u: added"
expect_out "working tree: deleted tool" "show_b: removed"
expect_out "working tree: broken manifest" "possibly breaking /manifest  the manifest does not parse: manifests/show_a/tool.manifest.yaml:"
g checkout -q -- .
rm -r "$R/manifests/show_u"

# A toolgen repository in a subfolder of the git working tree.
O=$TMP/outer
mkdir -p "$O"
cp -r "$R" "$O/sub"
rm -rf "$O/sub/.git"
git -C "$O" init -q -b main && git -C "$O" add -A && git -C "$O" commit -q -m one
edit_o() { sed -i "$2" "$O/sub/manifests/$1/tool.manifest.yaml"; }
edit_o show_a 's/^  required: \[file_path, lines\]$/  required: [file_path]/'
run "$TG" -C "$O/sub" diff HEAD
expect_rc "subfolder repository" 0
expect_out "subfolder: paths relative to the toolgen repository" "/input_schema/required  property \"lines\" is no longer required"

# Bad configuration, options and revisions: exit 2 naming the place and the fix.
printf 'review:\n  versioning: calver\n' >"$R/toolgen.yaml"
run "$TG" -C "$R" diff
expect_rc "bad review.versioning" 2
expect_err "bad config: file:line:col" "toolgen.yaml:2:3: review.versioning must be one of semver, none"
g checkout -q -- toolgen.yaml
run "$TG" -C "$R" diff nosuch
expect_rc "unknown revision" 2
expect_err "unknown revision: named" "unknown revision 'nosuch'"
run "$TG" -C "$R" diff "v1^{tree}"
expect_rc "a tree is not a commit" 2
expect_err "a tree: says so" "is a tree, not a commit"
run "$TG" -C "$R" diff --format html
expect_rc "unknown format" 2
expect_err "unknown format: named" "unknown format 'html'"
run "$TG" -C "$R" diff a b c
expect_rc "three revisions" 2
run "$TG" -C "$R" diff --frobnicate
expect_rc "unknown option" 2

# Outside a git repository.
mkdir -p "$TMP/plain"
cp -r "$R/manifests" "$R/toolgen.yaml" "$TMP/plain/"
run "$TG" -C "$TMP/plain" diff
expect_rc "outside git" 2
expect_err "outside git: says so" "not inside a git repository"

# Nothing was checked out or written: the working tree and HEAD are as they were.
before=$(git -C "$R" status --porcelain; git -C "$R" rev-parse HEAD)
run "$TG" -C "$R" diff --check --format json v1 v3
after=$(git -C "$R" status --porcelain; git -C "$R" rev-parse HEAD)
expect_eq "diff leaves the repository untouched" "$after" "$before"

# A HEAD whose manifest breaks the manifest schema does not pass --check, bumped or not; the
# quality of revisions whose reports are not committed is said to be unrecorded.
git -C "$R" checkout -q -b broken v3
edit show_b 's/^risk: low/risk: extreme/; s/^version: 1.0.1/version: 1.1.0/'
commit "broken" unlinted
run "$TG" -C "$R" diff --check v3 unlinted
expect_rc "check: a manifest that does not lint fails" 1
expect_out "check: says why" "the manifest breaks its schema: /risk: "
expect_out "check: and the fix" "fix it first (toolgen lint)"
run "$TG" -C "$R" diff --format markdown v3 unlinted
expect_out "markdown: quality not recorded, and why" "Quality: not recorded at either revision (the validation reports in .toolgen/reports/ are not committed"
git -C "$R" checkout -q main

# toolgen help diff documents it.
run "$TG" help diff
expect_rc "help diff" 0
expect_out "help diff: usage" "usage: toolgen diff"
run "$TG" --help
expect_out "--help lists diff" "diff"

finish diff
