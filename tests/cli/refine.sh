#!/bin/sh
# `toolgen reject TOOL --notes NOTES --refine` (docs/lifecycle.md "Rejection"): after the
# rejection, generation again from the corrections, as a new draft version in the tool's own
# folder; a refinement the generator cannot make puts the manifest back. With the built-in
# generator, in a temporary fixture repository (tests/newgen/make_repo.sh).
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
R=$TMP/r
sh tests/newgen/make_repo.sh "$R"
sed -i 's/provider: openai/provider: builtin/' "$R/toolgen.yaml"
unset TG_FAKE_KEY OPENAI_API_KEY ANTHROPIC_API_KEY
T=mean_tip_by_day
MF=$R/manifests/$T/tool.manifest.yaml
"$TG" -C "$R" new "average tip by day" --data data/tips.csv >/dev/null 2>&1
"$TG" -C "$R" build $T >/dev/null 2>&1
run "$TG" -C "$R" stage $T
expect_rc "stage v0.1.0" 0
tree_sum() { (cd "$R/manifests/$T" && find . -type f | sort | xargs sha256sum) | sha256sum; }

# -- corrections the built-in generator cannot compile: rejected, the manifest put back
BEFORE=$(tree_sum)
run "$TG" -C "$R" reject $T --notes "wrong column, use the other one" --refine
expect_rc "unusable corrections: exit 1" 1
expect_out "the rejection stands" "$T v0.1.0: REJECTED, archived in registry/archive/rejected/${T}_"
expect_err "says what the generator needs" "Closest phrasings it supports"
expect_err "says nothing was lost" "manifests/$T is as it was (the rejection stands)"
expect_eq "the manifest folder is as it was" "$(tree_sum)" "$BEFORE"
[ -d "$R/.toolgen/refine/$T" ] && bad "the aside copy is left behind" || ok

# -- corrections it can compile: a new draft version, built, ready to stage
sed -i 's/^version: .*/version: 0.1.1/' "$MF"
"$TG" -C "$R" build $T >/dev/null 2>&1
run "$TG" -C "$R" stage $T
expect_rc "stage v0.1.1" 0
run "$TG" -C "$R" reject $T --notes "mean tip by time" --refine
expect_rc "refine" 0
expect_out "rejected first" "$T v0.1.1: REJECTED"
expect_out "generation again from the corrections" "plan: aggregate mean(tip) by time (builtin generator)"
expect_out "a new draft version" "$T v0.2.0: a new DRAFT from the corrections"
run grep -c "^version: 0.2.0" "$MF"
expect_out "the manifest has the next minor version" "1"
run grep -c "^name: $T" "$MF"
expect_out "the tool keeps its name" "1"
run "$TG" -C "$R" stage $T
expect_rc "the new version stages without another build" 0
expect_out "staged v0.2.0" "$T v0.2.0: DRAFT -> STAGED"
run "$TG" -C "$R" run $T --arg file_path=data/tips.csv --json
expect_out "the refined tool groups by time" '"Dinner"'

finish cli-refine
