#!/bin/sh
# The aggregate built from per-tool fragments (docs/build.md, "The aggregate"): an edit of one
# tool reruns that tool's stages and the concatenation only, rewrites only that tool's fragment,
# and after any sequence of edits (add, remove, rename, reorder, the skill changing form, a
# damaged fragment) the repository-wide files are byte for byte those of a clean build, whether
# the aggregate replaced the edited tools' pieces in its previous files or made them again.
. tests/lib.sh
T=$TMP

mk_tool() { # REPO NAME
    mkdir -p "$1/manifests/$2"
    sed "s/@NAME@/$2/g" tests/synthetic_tool.yaml >"$1/manifests/$2/tool.manifest.yaml"
}

tree_sum() { # DIR: checksum of every file under DIR/generated
    (cd "$1" && find generated -type f | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s\n' "$(cksum <"$f")" "$f"
    done)
}

# same_as_clean NAME: the incremental tree of $R equals a clean build of the same sources
same_as_clean() {
    C=$T/clean
    rm -rf "$C"
    mkdir -p "$C"
    cp -r "$R/manifests" "$R/toolgen.yaml" "$C/"
    "$TG" -C "$C" build >/dev/null 2>&1 || { bad "$1: clean build failed"; return; }
    expect_eq "$1: same as a clean build" "$(tree_sum "$R")" "$(tree_sum "$C")"
}

R=$T/r
mkdir -p "$R/manifests"
printf 'project:\n  name: agg-tools\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"
for t in tool_a tool_b tool_c tool_d; do mk_tool "$R" "$t"; done
run "$TG" -C "$R" build
expect_rc "first build" 0
[ -f "$R/.toolgen/out/tool_b.fragment" ] && ok || bad "emit writes the fragment"
same_as_clean "first build"

# ---- one edit: that tool's stages and the concatenation, one fragment rewritten -----------------
touch -d '2000-01-01' "$R"/.toolgen/out/*.fragment
sed 's/^description: .*/description: Print a data file as plain text./' \
    "$R/manifests/tool_b/tool.manifest.yaml" >"$T/m" && cp "$T/m" "$R/manifests/tool_b/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "edit: load, emit, aggregate" "ran 3 stages (load 1, emit 1, aggregate 1)"
expect_out "edit: emit of that tool" "] emit tool_b"
expect_not_out "edit: no other tool" "tool_a"
expect_not_out "edit: no other tool (2)" "tool_c"
OLD=$(find "$R/.toolgen/out" -name '*.fragment' ! -newermt '2001-01-01' | sed 's|.*/||' | sort | tr '\n' ' ')
expect_eq "edit: the other fragments are not rewritten" "$OLD" "tool_a.fragment tool_c.fragment tool_d.fragment "
for f in mcp/tools.json mcp/manifest.json adapters/openai.tools.json \
    adapters/openai.responses.tools.json adapters/anthropic.tools.json \
    skill/agg-tools/references/tool_b.md; do
    grep -q "plain text" "$R/generated/$f" && ok || bad "edit: $f lacks the new description"
done
same_as_clean "edit"

# ---- add, remove, rename --------------------------------------------------------------------------
mk_tool "$R" tool_e
cp -r manifests/get_exchange_rate "$R/manifests/" # network, a credential: the bundle's env
run "$TG" -C "$R" build
expect_out "add: the new tools and the aggregate" "ran 5 stages (load 2, emit 2, aggregate 1)"
for f in mcp/tools.json mcp/manifest.json adapters/openai.tools.json \
    adapters/openai.responses.tools.json adapters/anthropic.tools.json skill/agg-tools/SKILL.md; do
    grep -q '"*tool_e' "$R/generated/$f" && grep -q get_exchange_rate "$R/generated/$f" && ok ||
        bad "add: $f lacks a new tool"
done
[ -f "$R/generated/skill/agg-tools/references/tool_e.md" ] && ok || bad "add: no reference page"
same_as_clean "add"

rm -r "$R/manifests/tool_c"
run "$TG" -C "$R" build
expect_out "remove: the aggregate only" "ran 1 stage (aggregate 1)"
grep -rq tool_c "$R/generated" && bad "remove: tool_c still in generated/" || ok
[ ! -e "$R/.toolgen/out/tool_c.fragment" ] && ok || bad "remove: its fragment stays"
same_as_clean "remove"

mv "$R/manifests/tool_d" "$R/manifests/tool_z"
sed 's/tool_d/tool_z/g' "$R/manifests/tool_z/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$R/manifests/tool_z/tool.manifest.yaml"
run "$TG" -C "$R" build
expect_rc "rename: build" 0
grep -rq tool_d "$R/generated" && bad "rename: tool_d still in generated/" || ok
grep -q tool_z "$R/generated/mcp/tools.json" && ok || bad "rename: tool_z missing"
same_as_clean "rename"

# ---- a title edit, a project change, then the skill changing form (many tools) ------------------
sed 's/^title: .*/title: A `new` title | with markup/' "$R/manifests/tool_a/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$R/manifests/tool_a/tool.manifest.yaml"
"$TG" -C "$R" build >/dev/null
same_as_clean "title edit"
printf 'project:\n  name: agg-tools2\n  version: 2.0.0\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"
run "$TG" -C "$R" build
expect_out "project: the aggregate only" "ran 1 stage (aggregate 1)"
same_as_clean "project change"
L0=$(grep -c '' "$R/generated/skill/agg-tools2/SKILL.md")
i=0
while [ "$i" -lt 30 ]; do
    mk_tool "$R" "many_$i"
    i=$((i + 1))
done
"$TG" -C "$R" build >/dev/null
grep -q "Required inputs:" "$R/generated/skill/agg-tools2/SKILL.md" ||
    grep -q "on two lines" "$R/generated/skill/agg-tools2/SKILL.md" && ok ||
    bad "many tools: SKILL.md did not change form ($L0 lines before)"
same_as_clean "many tools"
rm -r "$R"/manifests/many_*
"$TG" -C "$R" build >/dev/null
same_as_clean "back to few tools"

# ---- a damaged fragment is an edited output: emit reruns and restores it ------------------------
printf 'garbage' >"$R/.toolgen/out/tool_a.fragment"
run "$TG" -C "$R" build
expect_rc "damaged fragment: build" 0
expect_out "damaged fragment: emit reruns" "emit 1"
same_as_clean "damaged fragment"

# ---- unchanged reference pages are handed over without their bytes, but only when intact ----------
# (tg_stage_output_unchanged: the plan must have found every recorded output intact)
edit_b() { # TEXT: a new description for tool_b
    sed "s/^description: .*/description: $1/" "$R/manifests/tool_b/tool.manifest.yaml" >"$T/m" &&
        cp "$T/m" "$R/manifests/tool_b/tool.manifest.yaml"
}
REF=$R/generated/skill/agg-tools2/references
edit_b "Print a data file, second edit."
run "$TG" -C "$R" build -v
expect_out "kept pages: the edited tool's page is written" "wrote generated/skill/agg-tools2/references/tool_b.md"
expect_not_out "kept pages: no other page is written" "references/tool_a.md"
run "$TG" -C "$R" build
expect_out "kept pages: the record is right (no-op after)" "no work to do"
same_as_clean "kept pages"
printf 'hand edit\n' >>"$REF/tool_a.md"
edit_b "Print a data file, third edit."
run "$TG" -C "$R" build
expect_rc "hand-edited page + edit: build" 0
expect_err "hand-edited page + edit: restored with a warning" "references/tool_a.md was edited by hand"
same_as_clean "hand-edited page + edit"
rm "$REF/tool_e.md"
edit_b "Print a data file, fourth edit."
run "$TG" -C "$R" build
expect_rc "deleted page + edit: build" 0
[ -f "$REF/tool_e.md" ] && ok || bad "deleted page + edit: not recreated"
same_as_clean "deleted page + edit"
rm -rf "$R/.toolgen/log"
edit_b "Print a data file, fifth edit."
run "$TG" -C "$R" build
expect_rc "no state log + edit: build" 0
same_as_clean "no state log + edit"
printf 'garbage\n' >"$R/.toolgen/log"
edit_b "Print a data file, sixth edit."
run "$TG" -C "$R" build
expect_rc "corrupt state log + edit: build" 0
same_as_clean "corrupt state log + edit"

# ---- the index: an edit replaces one tool's pieces in the previous files ---------------------------
IDX=$R/.toolgen/out/aggregate.index
NT=$(ls "$R/manifests" | wc -l)
edit_b "Print a data file, index edit."
run "$TG" -C "$R" build -v
expect_out "index: the edited tool's pieces are replaced in place" \
    "1 of $NT tools' pieces replaced in the previous files"
head -1 "$IDX" | grep -q '^toolgen-aggregate-index 3$' && ok || bad "index: no index written"
grep -q '^toolgen-aggregate-edits 1$' "$R/.toolgen/out/aggregate.edits" && ok || bad "index: no edits written"
expect_not_out "index: the index itself stays (the edits are listed beside it)" "wrote .toolgen/out/aggregate.index"
same_as_clean "index edit"
edit_b "A much longer description of what this tool does, so that every piece after it moves on."
run "$TG" -C "$R" build -v
expect_out "index: a longer piece" "1 of $NT tools' pieces replaced"
same_as_clean "index: longer piece"
edit_b "Short."
sed 's/^description: .*/description: Print a data file (edited with tool_b)./' \
    "$R/manifests/tool_a/tool.manifest.yaml" >"$T/m" && cp "$T/m" "$R/manifests/tool_a/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "index: two tools edited at once" "2 of $NT tools' pieces replaced"
same_as_clean "index: two edits"
# what changes the text around the pieces is not replaced in place: the files are made again
# from the previous files' pieces and the changed fragments
sed 's/^  prerequisites: .*/&\n  notes: Reads the file once./' \
    "$R/manifests/tool_b/tool.manifest.yaml" >"$T/m" && cp "$T/m" "$R/manifests/tool_b/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_rc "index: a piece no longer empty: build" 0
expect_out "index: a piece no longer empty is not replaced in place" \
    "$((NT - 1)) of $NT tools' pieces taken from the previous files"
grep -q "Reads the file once" "$R/generated/skill/agg-tools2/SKILL.md" && ok || bad "notes: not in SKILL.md"
same_as_clean "index: piece no longer empty"
sed 's/^title: .*/title: Another title/' "$R/manifests/tool_b/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$R/manifests/tool_b/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "index: a title (in SKILL.md's description) is not replaced in place" \
    "$((NT - 1)) of $NT tools' pieces taken from the previous files"
same_as_clean "index: title"
mk_tool "$R" tool_0
edit_b "Print a data file, added beside an edit."
run "$TG" -C "$R" build -v
expect_out "index: a tool added beside an edit" "$((NT - 1)) of $((NT + 1)) tools' pieces taken"
same_as_clean "index: added tool"
rm -r "$R/manifests/tool_0"
run "$TG" -C "$R" build -v
same_as_clean "index: added tool removed"
rm -r "$R/manifests/tool_e"
run "$TG" -C "$R" build -v
expect_out "index: a removed tool" "$((NT - 1)) of $((NT - 1)) tools' pieces taken"
same_as_clean "index: removed tool"
mv "$R/manifests/tool_z" "$R/manifests/tool_y"
sed 's/tool_z/tool_y/g' "$R/manifests/tool_y/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$R/manifests/tool_y/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "index: a renamed tool is read from its fragment" "$((NT - 2)) of $((NT - 1)) tools' pieces taken"
same_as_clean "index: renamed tool"
# a renamed tool that moves to the front: every other tool's pieces move
mv "$R/manifests/tool_y" "$R/manifests/tool_0y"
sed 's/tool_y/tool_0y/g' "$R/manifests/tool_0y/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$R/manifests/tool_0y/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "index: a tool renamed to the front" "$((NT - 2)) of $((NT - 1)) tools' pieces taken"
same_as_clean "index: reordered"
edit_b "Print a data file, after the reorder."
run "$TG" -C "$R" build -v
expect_out "index: replaced in place after the reorder" "1 of $((NT - 1)) tools' pieces replaced"
same_as_clean "index: edit after the reorder"
NT=$((NT - 1))
# a damaged or missing index, or a damaged previous file: every fragment is read
printf 'toolgen-aggregate-index 3\ngarbage\n' >"$IDX"
edit_b "Print a data file, damaged index."
run "$TG" -C "$R" build -v
expect_rc "damaged index: build" 0
expect_err "damaged index: restored with a warning" "aggregate.index was edited by hand"
expect_out "damaged index: every fragment read" "0 of $NT tools' pieces taken"
same_as_clean "damaged index"
printf 'toolgen-aggregate-edits 1\n0 5 5\n' >"$R/.toolgen/out/aggregate.edits"
edit_b "Print a data file, damaged edits."
run "$TG" -C "$R" build -v
expect_err "damaged edits: restored with a warning" "aggregate.edits was edited by hand"
expect_out "damaged edits: every fragment read" "0 of $NT tools' pieces taken"
same_as_clean "damaged edits"
rm "$IDX"
edit_b "Print a data file, missing index."
run "$TG" -C "$R" build -v
expect_out "missing index: every fragment read" "0 of $NT tools' pieces taken"
[ -f "$IDX" ] && ok || bad "missing index: not written again"
same_as_clean "missing index"
printf '\nhand edit\n' >>"$R/generated/mcp/tools.json"
edit_b "Print a data file, damaged tools.json."
run "$TG" -C "$R" build -v
expect_out "damaged previous file: every fragment read" "0 of $NT tools' pieces taken"
same_as_clean "damaged previous file"
edit_b "Print a data file, after the repairs."
run "$TG" -C "$R" build -v
expect_out "after the repairs: the index serves again" "1 of $NT tools' pieces replaced"
same_as_clean "after the repairs"

finish cli-aggregate
