#!/bin/sh
# make install: every data file toolgen reads at run time is installed (schemas, meta-schemas,
# prompts, every file of toolgen/run/runtime/), and the installed binary alone — no
# TOOLGEN_DATADIR, run from a new repository outside the checkout — carries the whole offline
# story: new → build → stage → run → feedback → promote → serve.
. tests/lib.sh

run make -s install PREFIX=/opt/tg DESTDIR="$TMP/root"
expect_rc "make install" 0
I="$TMP/root/opt/tg"
for f in bin/toolgen share/toolgen/schemas/tool.manifest.schema.json \
    share/toolgen/schemas/toolgen.config.schema.json \
    share/toolgen/schemas/meta/draft/2020-12/schema.json \
    share/toolgen/schemas/meta/draft/2020-12/meta/core.json share/man/man1/toolgen.1; do
    if [ -f "$I/$f" ]; then ok; else RC=0 OUT="" ERR=""; bad "installed $f"; fi
done
# each folder of data files is installed whole, so a new runtime file cannot be forgotten
for pair in toolgen/run/runtime:runtime schemas:schemas prompts:prompts; do
    src=${pair%%:*} dst=$I/share/toolgen/${pair#*:}
    missing=$(cd "$src" && find . -type f ! -name '*.pyc' | while read -r f; do
        [ -f "$dst/$f" ] || echo "$src/${f#./}"; done)
    RC=0 OUT="$missing" ERR=""
    expect_eq "every file of $src/ is installed" "$missing" ""
done

# Run the installed copy from elsewhere, on a copy of one example manifest.
mkdir -p "$TMP/work/manifests/preview_file_lines"
cp manifests/preview_file_lines/tool.manifest.yaml "$TMP/work/manifests/preview_file_lines/"
run sh -c "cd '$TMP/work' && env -u TOOLGEN_DATADIR '$I/bin/toolgen' lint"
expect_rc "installed toolgen lints" 0
run sh -c "cd '$TMP/work' && env -u TOOLGEN_DATADIR '$I/bin/toolgen' validate --schema '$I/share/toolgen/schemas/tool.manifest.schema.json' manifests/preview_file_lines/tool.manifest.yaml"
expect_rc "installed toolgen validates against the bundled meta-schema" 0

# The story of a new user, in a new git repository outside the checkout, with the installed
# binary only (the README's client configuration points at an installed toolgen).
S="$TMP/story"
mkdir -p "$S/data" "$S/manifests"
cp data/penguins.csv "$S/data/"
git -C "$S" init -q
git -C "$S" config user.name "Ada Lovelace"
git -C "$S" config user.email ada@example.org
tg() { run sh -c 'cd "$1" && shift && exec env -u TOOLGEN_DATADIR "$@"' - "$S" "$I/bin/toolgen" "$@"; }
T=median_flipper_length_mm_by_island
tg new "median flipper length by island" --data data/penguins.csv
expect_rc "installed: new" 0
expect_out "installed: the tool is generated and passes its tests" "PASSED $T: 7/7 tests passed"
expect_out "installed: new stages it" "STAGED $T v0.1.0"
case "$OUT$ERR" in *FileNotFoundError*) bad "installed: a runtime file is missing" ;; *) ok ;; esac
tg build
expect_rc "installed: build" 0
expect_out "installed: new built it: the build has nothing to do" "up to date"
tg stage $T
expect_rc "installed: stage" 0
tg run $T --arg file_path=data/penguins.csv --html "$TMP/review.html"
expect_rc "installed: the staged run" 0
expect_out "installed: the result" "| Biscoe | 214"
if [ -s "$TMP/review.html" ]; then ok; else bad "installed: no review page"; fi
tg feedback $T --output Yes
expect_rc "installed: feedback --output" 0
tg feedback $T --decision Approve
expect_rc "installed: feedback --decision" 0
git -C "$S" add manifests generated && git -C "$S" commit -qm "add $T"
tg promote $T
expect_rc "installed: promote" 0
expect_out "installed: promoted" "APPROVED -> PROMOTED"
run git -C "$S" log -1 --format=%s
expect_eq "installed: the promotion commit" "$OUT" "promote $T v0.1.0"
tg status
expect_rc "installed: status" 0
# the long name keeps the columns aligned: each value starts under its heading
col() { printf '%s\n' "$OUT" | awk -v n="$1" -v w="$2" 'NR == n { print index($0, w) }'; }
expect_eq "installed: status columns aligned" "$(col 2 PROMOTED)" "$(col 1 STATE)"
M26='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{$M26,\"name\":\"$T\",\"arguments\":{\"file_path\":\"data/penguins.csv\"}}}" >"$TMP/call.in"
run sh -c 'cd "$1" && exec env -u TOOLGEN_DATADIR "$2" serve <"$3"' - "$S" "$I/bin/toolgen" "$TMP/call.in"
expect_rc "installed: serve" 0
expect_err "installed: serve offers the promoted tool" "1 tool over stdio"
expect_out "installed: a call of the promoted tool" '"isError":false'
expect_out "installed: its result" 'Biscoe'

finish cli-install
