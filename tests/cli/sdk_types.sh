#!/bin/sh
# The emitted adapter definitions type-check against the official SDKs' own TypeScript types
# (npm openai and @anthropic-ai/sdk, checked with tsc; installed into tests/npm by `make test-deps`):
# Chat Completions tools as ChatCompletionFunctionTool, Responses API tools as FunctionTool,
# Anthropic tools as Tool. Each file is pasted as an object literal, so a wrong member type, a
# missing member and an unknown member all fail. For this repository and every golden case.
. tests/lib.sh

NM=$(pwd)/tests/npm/node_modules
TSC=$NM/.bin/tsc
if [ ! -x "$TSC" ] || [ ! -d "$NM/openai" ] || [ ! -d "$NM/@anthropic-ai/sdk" ]; then
    RC=0 OUT="" ERR=""
    bad "typescript, openai or @anthropic-ai/sdk is missing in tests/npm: run 'make test-deps'"
    finish cli-sdk-types
    exit 1
fi
# module resolution looks for node_modules beside the checked file
ln -s "$NM" "$TMP/node_modules"

# typecheck NAME FILE.ts: tsc over one generated file
typecheck() {
    run "$TSC" --noEmit --strict --skipLibCheck --module esnext --moduleResolution bundler \
        --target es2022 --typeRoots "$NM/@types" --types node "$2"
}

# write_check OUT.ts GENERATED-DIR...: one TypeScript file asserting every adapter file's type
write_check() {
    out=$1
    shift
    /usr/bin/python3 - "$out" "$@" <<'PY'
import sys
out, dirs = sys.argv[1], sys.argv[2:]
lines = [
    'import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";',
    'import type { FunctionTool } from "openai/resources/responses/responses";',
    'import type { Tool } from "@anthropic-ai/sdk/resources/messages";',
]
kinds = [("openai.tools.json", "ChatCompletionFunctionTool"),
         ("openai.responses.tools.json", "FunctionTool"),
         ("anthropic.tools.json", "Tool")]
for i, d in enumerate(dirs):
    for fname, typ in kinds:
        with open(f"{d}/adapters/{fname}") as f:
            lines.append(f"// {d}/adapters/{fname}")
            lines.append(f"export const t{i}_{typ}: {typ}[] = {f.read()};")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
PY
}

dirs="generated"
for d in tests/golden/*/expected/generated; do
    [ -d "$d/adapters" ] && dirs="$dirs $d"
done
write_check "$TMP/check.ts" $dirs
typecheck "adapters" "$TMP/check.ts"
expect_rc "the adapter definitions fit the SDKs' types ($dirs)" 0

# The check is real: a wrong type, a missing member and an unknown member each fail.
sed 's/"type": "function",/"type": "func",/' "$TMP/check.ts" >"$TMP/bad1.ts"
typecheck "wrong type" "$TMP/bad1.ts"
expect_rc "a wrong function type is caught" 2
expect_out "a wrong function type is caught" "TS2322"
sed 's/"input_schema":/"inputSchema":/' "$TMP/check.ts" >"$TMP/bad2.ts"
typecheck "missing member" "$TMP/bad2.ts"
expect_rc "an Anthropic tool without input_schema is caught" 2
sed 's/"output_schema":/"outputSchema":/' "$TMP/check.ts" >"$TMP/bad3.ts"
typecheck "unknown member" "$TMP/bad3.ts"
expect_rc "an unknown member is caught" 2
expect_out "an unknown member is caught" "outputSchema"

finish cli-sdk-types
