#!/bin/sh
# Golden tests: each tests/golden/<case>/ holds input manifests + toolgen.yaml and the expected
# output: expected/generated/ (the whole generated/ tree) and expected/reports/ (the build
# reports, .toolgen/reports/). Each case is built in a temporary copy and diffed whole.
# The repository's own example tools are the largest golden case: their generated/ is committed
# and `toolgen check` (run by .ci/run) diffs it the same way, so they are not copied here.
#
# To regenerate the expectations on purpose (then review the diff before committing):
#   make golden-update        (= sh tests/cli/golden.sh --update)
. tests/lib.sh

UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1
cases=0
for dir in tests/golden/*/; do
    dir=${dir%/}
    name=$(basename "$dir")
    [ -f "$dir/toolgen.yaml" ] || [ -d "$dir/manifests" ] || continue
    cases=$((cases + 1))
    W=$TMP/$name
    mkdir -p "$W"
    cp -r "$dir/." "$W/"
    rm -rf "$W/expected" "$W/generated" "$W/.toolgen"
    run "$TG" -C "$W" build
    expect_rc "golden $name: build" 0
    if [ "$UPDATE" = 1 ]; then
        rm -rf "$dir/expected"
        mkdir -p "$dir/expected"
        cp -r "$W/generated" "$dir/expected/generated"
        cp -r "$W/.toolgen/reports" "$dir/expected/reports"
        echo "updated $dir/expected"
        continue
    fi
    if diff -r "$dir/expected/generated" "$W/generated" >"$TMP/diff" 2>&1; then
        ok
    else
        RC=1 OUT=$(head -40 "$TMP/diff") ERR=""
        bad "golden $name: generated/ differs from $dir/expected/generated (make golden-update regenerates it on purpose)"
    fi
    if diff -r "$dir/expected/reports" "$W/.toolgen/reports" >"$TMP/diff" 2>&1; then
        ok
    else
        RC=1 OUT=$(head -40 "$TMP/diff") ERR=""
        bad "golden $name: build reports differ from $dir/expected/reports"
    fi
    run "$TG" -C "$W" build
    expect_eq "golden $name: rebuild does nothing" "$OUT" "toolgen: no work to do."
done
[ "$cases" -ge 2 ] && ok || bad "fewer than 2 golden cases under tests/golden/"

# The non-strict case must say why in its report (and the strict one that it is strict).
if [ "$UPDATE" = 0 ]; then
    grep -q '"comment": "not strict: ' tests/golden/non_strict/expected/reports/convert_length.json &&
        ok || bad "non_strict: the report does not say why openai.json is not strict"
    grep -q '"strict": false' tests/golden/non_strict/expected/generated/convert_length/openai.json &&
        ok || bad "non_strict: openai.json is strict"
    grep -q '"strict": true' tests/golden/non_strict/expected/generated/list_columns/openai.json &&
        ok || bad "non_strict: list_columns should be strict"
fi
finish cli-golden
