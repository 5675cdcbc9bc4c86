#!/bin/sh
# Emission flows one way inside toolgen/emit/ (docs/emit.md, "Library API"): common and
# artifact at the bottom, the MCP emitter, the adapters and the skill on top of them without
# including each other, emit.c over all; the aggregate's index (aggindex) on common alone.
# Checked from the #include lines, and the check is shown to bite.
. tests/lib.sh

# check DIR: prints one line per include of emit/ that breaks the flow
check() {
    for f in "$1"/*.c "$1"/*.h; do
        base=$(basename "$f")
        case "$base" in
        common.c | common.h) allowed="common.h" ;;
        artifact.c | artifact.h) allowed="artifact.h" ;;
        aggindex.c | aggindex.h) allowed="common.h aggindex.h" ;;
        emit.c | emit.h) continue ;;
        emit_*.c) allowed="common.h artifact.h ${base%.c}.h" ;;
        emit_*.h) allowed="common.h artifact.h" ;;
        *) echo "$f: not a known emit module (add it to tests/cli/emit_flow.sh)"; continue ;;
        esac
        grep -n '#include "emit/' "$f" | while IFS= read -r line; do
            inc=${line#*\"emit/}
            inc=${inc%%\"*}
            case " $allowed " in
            *" $inc "*) ;;
            *) echo "$f:${line%%:*}: includes emit/$inc (allowed: $allowed)" ;;
            esac
        done
    done
}

run check toolgen/emit
expect_eq "the emitters include only common.h and their own header" "$OUT" ""

rm -rf "$TMP/emit"
cp -r toolgen/emit "$TMP/emit"
printf '#include "emit/emit_adapters.h"\n' >>"$TMP/emit/emit_skill.c"
printf '#include "emit/emit_mcp.h"\n' >>"$TMP/emit/common.c"
run check "$TMP/emit"
expect_out "the skill reaching into the adapters is caught" "emit_skill.c:"
expect_out "common reaching up is caught" "common.c:"

finish cli-emit-flow
