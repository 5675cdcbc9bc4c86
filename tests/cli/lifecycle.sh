#!/bin/sh
# The tool lifecycle (docs/lifecycle.md): stage, the two feedback stages, promotion as one git
# commit (its tree, message and trailers), idempotent re-promotion, version refusals, a failure
# injected at every promotion step, detached HEAD, unborn branch, dirty files elsewhere, no git,
# rejection with its archive and categories, status, log and the snapshot check.
# Every case works in a temporary git repository copied from the fixture tests/gates/repo.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
T=count_rows
MF=manifests/$T/tool.manifest.yaml
export TOOLGEN_USER=alice
G() { git -C "$R" -c user.name=tester -c user.email=tester@example.org "$@"; }

fresh() { # fresh DIR [nogit|unborn]: the fixture, built, committed (unless nogit/unborn)
    R=$1
    rm -rf "$R"
    mkdir -p "$R"
    cp -r tests/gates/repo/. "$R/"
    printf '.toolgen/\ngenerated/\n' >"$R/.gitignore"
    "$TG" -C "$R" build >/dev/null 2>&1 || echo "build failed in $R" >&2
    [ "$2" = nogit ] && return
    G init -q -b main
    [ "$2" = unborn ] && return
    G add -A && G commit -qm init
}
approve() { # approve: stage + both feedback stages
    "$TG" -C "$R" stage $T >/dev/null &&
        "$TG" -C "$R" feedback $T --output "yes" >/dev/null &&
        "$TG" -C "$R" feedback $T --decision "Approve" >/dev/null
}
bump() { # bump VERSION [DESCRIPTION]: edit the manifest and build
    sed -i "s/^version: .*/version: $1/" "$R/$MF"
    [ -n "$2" ] && sed -i "s/^title: .*/title: $2/" "$R/$MF"
    "$TG" -C "$R" build >/dev/null 2>&1
}
snap() { # the registry's files, the index and HEAD, as one string to compare
    (cd "$R" && find registry -type f 2>/dev/null | sort | xargs -r sha256sum;
     git ls-files -s; git rev-parse -q --verify HEAD; git symbolic-ref -q HEAD) | sha256sum
}

# -- the happy path: stage, feedback, promote; the commit holds exactly the registry changes
fresh "$TMP/a"
run "$TG" -C "$R" stage $T
expect_rc "stage" 0
expect_out "stage: transition" "DRAFT -> STAGED"
run "$TG" -C "$R" stage $T
expect_out "stage again: nothing to do" "already STAGED"
for f in spec.json tool.py validation_report.json; do
    [ -f "$R/registry/staging/candidates/${T}_1.0.0/$f" ] && ok || bad "candidate has $f"
done
run "$TG" validate --schema schemas/registry.staging.schema.json "$R/registry/staging/metadata.json"
expect_rc "staging metadata validates" 0
run "$TG" -C "$R" feedback $T --decision "Approve"
expect_rc "stage 2 before stage 1: refused" 1
expect_err "stage 2 before stage 1: says why" "needs an accepted output first"
run "$TG" -C "$R" promote $T
expect_rc "promote a STAGED tool: refused" 1
expect_err "promote STAGED: names the state" "must be APPROVED to be promoted (current: STAGED)"
run "$TG" -C "$R" feedback $T --output "no, wrong rows"
expect_out "stage 1 no" "OUTPUT_REJECTED"
run "$TG" -C "$R" feedback $T --decision "Approve"
expect_rc "stage 2 after a rejected output: refused" 1
run "$TG" -C "$R" feedback $T --output "Yes, looks right"
expect_out "stage 1 yes" "OUTPUT_ACCEPTED (state STAGED)"
run "$TG" -C "$R" feedback $T --decision "Approve it"
expect_out "stage 2 approve" "APPROVED (state APPROVED)"
run grep -c '"reply": "Approve it"' "$R/registry/staging/metadata.json"
expect_out "reply stored verbatim" "1"
HEAD0=$(G rev-parse HEAD)
run "$TG" -C "$R" promote $T
expect_rc "promote" 0
expect_out "promote: transition" "APPROVED -> PROMOTED"
expect_eq "one commit on top" "$(G rev-parse HEAD~1)" "$HEAD0"
expect_eq "message subject" "$(G log -1 --format=%s)" "promote $T v1.0.0"
BODY=$(G log -1 --format=%B)
CODE_SHA=$(sha256sum "$R/manifests/$T/tool.py" | cut -d' ' -f1)
case "$BODY" in *"Code-Hash: sha256:$CODE_SHA"*) ok ;; *) bad "Code-Hash trailer is sha256 of tool.py" ;; esac
SPEC_SHA=$(sha256sum "$R/registry/active/tools/$T/spec.json" | cut -d' ' -f1)
case "$BODY" in *"Spec-Hash: sha256:$SPEC_SHA"*) ok ;; *) bad "Spec-Hash trailer" ;; esac
case "$BODY" in *"Quality-Score: 1 (excellent)"*) ok ;; *) bad "Quality-Score trailer" ;; esac
case "$BODY" in *"Approved-By: alice"*) ok ;; *) bad "Approved-By trailer" ;; esac
case "$BODY" in *"Approval: Approve it"*) ok ;; *) bad "Approval trailer" ;; esac
run G interpret-trailers --parse <<EOF2
$BODY
EOF2
expect_out "git parses the trailers" "Approved-By: alice"
FILES=$(G show --name-only --format= HEAD | tr '\n' ' ')
expect_eq "commit's files" "$FILES" "registry/active/metadata.json registry/active/promotion_log.json registry/active/tools/$T/VERSION registry/active/tools/$T/spec.json registry/active/tools/$T/tests.json registry/active/tools/$T/tool.py registry/archive/promoted/${T}_1.0.0/spec.json registry/archive/promoted/${T}_1.0.0/tool.py registry/archive/promoted/${T}_1.0.0/validation_report.json registry/staging/metadata.json "
expect_eq "VERSION in the tree" "$(G show HEAD:registry/active/tools/$T/VERSION)" "1.0.0"
expect_eq "working tree clean in registry" "$(G status --porcelain registry)" ""
expect_eq "index matches HEAD" "$(G diff --cached --name-only)" ""
[ ! -d "$R/registry/staging/candidates/${T}_1.0.0" ] && ok || bad "candidate archived"
for k in active promotion_log staging; do
    f=$R/registry/active/metadata.json
    [ $k = promotion_log ] && f=$R/registry/active/promotion_log.json
    [ $k = staging ] && f=$R/registry/staging/metadata.json
    run "$TG" validate --schema schemas/registry.$k.schema.json "$f"
    expect_rc "$k metadata validates" 0
done
run "$TG" -C "$R" promote $T
expect_rc "re-promote: exit 0" 0
expect_out "re-promote: says so" "already active; nothing to do"
expect_eq "re-promote: no commit" "$(G rev-parse HEAD~1)" "$HEAD0"
run "$TG" -C "$R" stage $T
expect_rc "stage the active tool again: exit 0" 0
expect_out "stage the active tool again: nothing to do" "already PROMOTED"
run "$TG" -C "$R" log
expect_out "log shows the promotion" "promote $T v1.0.0"
expect_out "log shows the approval" "approved by alice: \"Approve it\""
run "$TG" -C "$R" status
expect_out "status: promoted and active" "PROMOTED  1.0.0    1.0.0"
run "$TG" -C "$R" check
expect_out "check: snapshots match" "every registry snapshot matches"
echo "# tampered" >>"$R/registry/active/tools/$T/tool.py"
run "$TG" -C "$R" check
expect_rc "check: tampered snapshot fails" 1
expect_out "check: names the file" "registry/active/tools/$T/tool.py: SHA-256"
G checkout -q -- registry
# a file the snapshot does not list (a planted bytecode cache beside the approved code)
mkdir -p "$R/registry/active/tools/$T/__pycache__"
printf 'planted' >"$R/registry/active/tools/$T/__pycache__/tool.cpython-311.pyc"
run "$TG" -C "$R" check
expect_rc "check: a file the snapshot does not list fails" 1
expect_out "check: names it" "registry/active/tools/$T/__pycache__: not part of $T's snapshot"
LIST='{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
run sh -c 'printf "%s\n" "$3" | "$1" -C "$2" serve' - "$TG" "$R" "$LIST"
expect_not_out "serve: that snapshot is not served" "\"name\":\"$T\""
expect_err "serve: says why" "__pycache__: not part of"
rm -r "$R/registry/active/tools/$T/__pycache__"
run sh -c 'printf "%s\n" "$3" | "$1" -C "$2" serve' - "$TG" "$R" "$LIST"
expect_out "serve: the clean snapshot is served" "\"name\":\"$T\""

# -- versions: a different spec at the same version, a lower version, a bump. Both are refused
# when staged, before the user reviews a run that could not be promoted; status says so first.
bump 1.0.0 "Count rows again"
run "$TG" -C "$R" status
expect_out "status: an edit at the active version needs a bump" "bump the version above 1.0.0, build, then toolgen stage $T"
expect_not_out "status: not promote" "toolgen promote"
run "$TG" -C "$R" stage $T
expect_rc "same version, different spec: stage refuses" 1
expect_err "same version: asks for a bump" "$T v1.0.0 is promoted with another spec or code, and a change needs a new version: increment the manifest's version above 1.0.0 (e.g. to 1.1.0), then build and stage it"
run "$TG" -C "$R" status --json
expect_out "still nothing staged" '"state": "PROMOTED"'
bump 0.9.0
run "$TG" -C "$R" stage $T
expect_rc "lower version: stage refuses" 1
expect_err "lower version: says so" "older than the active v1.0.0"
bump 1.1.0
approve
run "$TG" -C "$R" promote $T
expect_rc "bumped version: promoted" 0
expect_out "bumped version: replaces" "(replaces v1.0.0)"
expect_eq "VERSION bumped" "$(cat "$R/registry/active/tools/$T/VERSION")" "1.1.0"
run "$TG" -C "$R" log $T
expect_eq "log: two promotions" "$(printf '%s\n' "$OUT" | grep -c "promote $T v")" "2"

# -- all or nothing: a failure at every step leaves registry, index and HEAD unchanged
fresh "$TMP/f"
approve
G add registry && G commit -qm "staged"
echo "other" >"$R/other.txt" && G add other.txt # a staged change that is not ours
BEFORE=$(snap)
for step in copy metadata log archive state commit ref index; do
    run env TOOLGEN_FAULT=$step "$TG" -C "$R" promote $T
    expect_rc "fault $step: exit 1" 1
    expect_err "fault $step: says nothing changed" "nothing was changed"
    expect_eq "fault $step: registry, index, HEAD unchanged" "$(snap)" "$BEFORE"
done
run "$TG" -C "$R" promote $T
expect_rc "after the faults: promote works" 0
expect_eq "other staged file still staged, not committed" "$(G diff --cached --name-only)" "other.txt"

# -- a dirty active registry is refused
echo " " >>"$R/registry/active/metadata.json"
bump 1.2.0
approve
BEFORE=$(snap)
run "$TG" -C "$R" promote $T
expect_rc "dirty registry: refused" 1
expect_err "dirty registry: names it" "active registry has uncommitted changes"
expect_eq "dirty registry: nothing changed" "$(snap)" "$BEFORE"

# -- detached HEAD
fresh "$TMP/d"
G checkout -q --detach
approve
run "$TG" -C "$R" promote $T
expect_rc "detached: promoted" 0
expect_eq "detached: HEAD moved, still detached" "$(G symbolic-ref -q HEAD || echo detached)" "detached"
expect_eq "detached: subject" "$(G log -1 --format=%s)" "promote $T v1.0.0"

# -- promotion.git.branch: HEAD elsewhere is refused, nothing changed
fresh "$TMP/b"
approve
printf 'promotion:\n  git:\n    branch: release\n' >>"$R/toolgen.yaml"
G add toolgen.yaml registry && G commit -qm "branch setting"
BEFORE=$(snap)
run "$TG" -C "$R" promote $T
expect_rc "branch setting, HEAD on main: refused" 1
expect_err "branch setting: says so" 'promotion.git.branch is "release" but HEAD is on main'
expect_eq "branch setting: nothing changed" "$(snap)" "$BEFORE"
G checkout -q -b release
run "$TG" -C "$R" promote $T
expect_rc "branch setting, HEAD on release: promoted" 0

# -- unborn branch (no commit yet): the promotion is the first commit, other files untracked
fresh "$TMP/u" unborn
approve
run "$TG" -C "$R" promote $T
expect_rc "unborn: promoted" 0
expect_eq "unborn: one commit" "$(G rev-list --count HEAD)" "1"
expect_eq "unborn: on main" "$(G symbolic-ref HEAD)" "refs/heads/main"
case "$(G show --name-only --format= HEAD)" in *manifests*|*toolgen.yaml*) bad "unborn: only the registry" ;; *) ok ;; esac

# -- another tool's uncommitted staging entry stays out of the promotion commit (its candidate
#    folder is not committed either); the working tree keeps it, as an unstaged change
fresh "$TMP/o"
cp -r "$R/manifests/$T" "$R/manifests/other_rows"
sed -i "s/^name: $T/name: other_rows/" "$R/manifests/other_rows/tool.manifest.yaml"
"$TG" -C "$R" build >/dev/null 2>&1
G add manifests && G commit -qm "another tool"
run "$TG" -C "$R" stage other_rows
expect_rc "other tool staged" 0
approve
run "$TG" -C "$R" promote $T
expect_rc "promote beside another staged tool" 0
run G show HEAD:registry/staging/metadata.json
expect_out "commit: the promoted tool's entry" "\"$T\""
case "$OUT" in *other_rows*) bad "commit: the other tool's entry stays out" ;; *) ok ;; esac
run grep -c '"other_rows": {' "$R/registry/staging/metadata.json"
expect_out "working tree keeps the other entry" "1"
expect_eq "other entry: an unstaged change" "$(G status --porcelain registry/staging/metadata.json)" " M registry/staging/metadata.json"
run "$TG" validate --schema schemas/registry.staging.schema.json /dev/stdin <<EOF2
$(G show HEAD:registry/staging/metadata.json)
EOF2
expect_rc "committed staging metadata validates" 0
run "$TG" -C "$R" status
expect_out "status: other tool still staged" "other_rows"

# -- HEAD's staging metadata is not a registry document: the working tree's file is committed
#    whole (no entry of it is lost)
fresh "$TMP/h"
cp -r "$R/manifests/$T" "$R/manifests/other_rows"
sed -i "s/^name: $T/name: other_rows/" "$R/manifests/other_rows/tool.manifest.yaml"
"$TG" -C "$R" build >/dev/null 2>&1
mkdir -p "$R/registry/staging"
echo '{' >"$R/registry/staging/metadata.json"
G add registry && G commit -qm "a broken staging file"
rm "$R/registry/staging/metadata.json"
"$TG" -C "$R" stage other_rows >/dev/null
approve
run "$TG" -C "$R" promote $T
expect_rc "promote over a broken committed staging file" 0
run G show HEAD:registry/staging/metadata.json
expect_out "broken at HEAD: the other entry kept" '"other_rows": {'
expect_eq "broken at HEAD: the whole file committed" "$(G show HEAD:registry/staging/metadata.json)" "$(cat "$R/registry/staging/metadata.json")"
expect_eq "broken at HEAD: nothing left unstaged" "$(G status --porcelain registry/staging/metadata.json)" ""

# -- not a git repository: clean refusal, nothing written to the active registry
fresh "$TMP/n" nogit
approve
run "$TG" -C "$R" promote $T
expect_rc "no git: usage exit" 2
expect_err "no git: says so" "not inside a git working tree"
[ ! -d "$R/registry/active" ] && ok || bad "no git: nothing written"
run "$TG" -C "$R" log
expect_rc "log outside git: usage" 2
run "$TG" -C "$R" status --json
expect_rc "status --json" 0
run python3 -c "import json,sys; d=json.load(sys.stdin)['tools'][0]; print(d['tool'], d['state'], d['built'], d['next'])" <<EOF2
$OUT
EOF2
expect_out "status --json: approved, next promote" "$T APPROVED True toolgen promote $T"
run "$TG" -C "$R" status --bogus
expect_rc "status: bad option" 2

# -- rejection: archive with the notes and categories
fresh "$TMP/r"
"$TG" -C "$R" stage $T >/dev/null
"$TG" -C "$R" feedback $T --output "yes" >/dev/null
run "$TG" -C "$R" feedback $T --decision "approve but change the column"
expect_out "mixed signals: rejected" "REJECTED (state REJECTED)"
run "$TG" -C "$R" promote $T
expect_rc "rejected: promote refused" 1
run "$TG" -C "$R" reject $T --notes "wrong column: should be 'region'; output format should be JSON"
expect_rc "reject" 0
expect_out "reject: categories" "issues: COLUMN_MISMATCH OUTPUT_FORMAT"
A=$(ls -d "$R"/registry/archive/rejected/${T}_* 2>/dev/null | head -1)
for f in spec.json tool.py user_feedback.json metadata.json; do
    [ -f "$A/$f" ] && ok || bad "rejected archive has $f"
done
run grep -c "approve but change the column" "$A/user_feedback.json"
expect_out "archive keeps the feedback verbatim" "1"
M=$R/.toolgen/metrics.json
run python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['staged'], m['output_accepted'], m['rejected'], m['approved'], m['common_rejection_reasons'], m['validation_failure_rate'])" "$M"
expect_out "metrics.json: counts and reasons" "1 1 1 0 ['COLUMN_MISMATCH', 'OUTPUT_FORMAT'] 0"
run "$TG" -C "$R" reject $T --notes "again"
expect_rc "reject twice: refused" 1
run "$TG" -C "$R" reject $T --notes "x" --refine
expect_rc "--refine on a tool already rejected: refused" 1
run "$TG" -C "$R" reject $T
expect_rc "reject without notes: usage" 2

# -- bad input: a broken metadata file, a bad tool name, a registry path outside the repository
echo '{"registry_version": 1, "candidates": {"X": 1}}' >"$R/registry/staging/metadata.json"
run "$TG" -C "$R" status
expect_rc "bad metadata: usage exit" 2
expect_err "bad metadata: names the file and fix" "registry/staging/metadata.json: not a valid registry file"
echo '{' >"$R/registry/staging/metadata.json"
run "$TG" -C "$R" feedback $T --output yes
expect_err "broken JSON: names the file" "registry/staging/metadata.json: not valid JSON"
run "$TG" -C "$R" stage Bad-Name
expect_rc "bad tool name" 2
printf 'registry:\n  active_path: ../elsewhere\n' >>"$R/toolgen.yaml"
run "$TG" -C "$R" promote $T
expect_rc "registry outside: usage" 2
expect_err "registry outside: names the key" "registry/active_path"
fresh "$TMP/s"
sed -i 's/^version: .*/version: 3.0.0/' "$R/$MF"
run "$TG" -C "$R" stage $T
expect_rc "stale build: refused" 1
expect_err "stale build: says build first" "run \`toolgen build\` first"


# -- a failed quality gate: staging refused, counted as a validation failure
fresh "$TMP/g"
sed -i 's/output_contains: {rows: 3}/output_contains: {rows: 4}/' "$R/$MF"
"$TG" -C "$R" build >/dev/null 2>&1
run "$TG" -C "$R" stage $T
expect_rc "failed gate: stage refused" 1
expect_err "failed gate: names the gate" "quality gate"
expect_err "failed gate: stays a draft" "stays a DRAFT"
run python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['validation_failures'], m['validation_failure_rate'])" "$R/.toolgen/metrics.json"
expect_out "metrics.json: validation failure rate" "1 1"

finish lifecycle
