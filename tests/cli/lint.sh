#!/bin/sh
# toolgen lint: the example manifests are clean; every broken case under tests/lint/ produces
# its expected "file:line:col: reason" line (tests/lint/expected.txt) and exit status 1.
. tests/lib.sh

run "$TG" lint manifests toolgen.yaml
expect_rc "example manifests and toolgen.yaml lint clean" 0
expect_eq "no problems printed for the examples" "$OUT" ""
expect_err "summary line" "OK"

run "$TG" lint
expect_rc "lint with no paths uses toolgen.yaml + manifests/" 0

run "$TG" -C manifests/.. lint
expect_rc "-C DIR" 0

run "$TG" lint no/such/path
expect_rc "missing path" 2
expect_err "missing path message" "no/such/path"

run "$TG" lint --frobnicate
expect_rc "unknown option" 2

# Each expectation: CASE_FILE:LINE:COL: substring of the message.
grep -v '^[[:space:]]*#' tests/lint/expected.txt | grep -v '^[[:space:]]*$' >"$TMP/expected"
for dir in tests/lint/*/; do
    case_name=$(basename "$dir")
    if ! grep -q "^$case_name/" "$TMP/expected"; then
        RC=0 OUT="" ERR=""
        bad "tests/lint/$case_name has no expectation in tests/lint/expected.txt"
        continue
    fi
    run "$TG" lint "tests/lint/$case_name"
    expect_rc "lint $case_name fails" 1
    grep "^$case_name/" "$TMP/expected" | while IFS= read -r exp; do
        place=${exp%%: *}
        reason=${exp#*: }
        printf '%s\n' "$OUT" | grep -F "tests/lint/$place: " | grep -qF -- "$reason" ||
            echo "$exp" >>"$TMP/missing.$case_name"
    done
    if [ -f "$TMP/missing.$case_name" ]; then
        bad "lint $case_name: expected line(s) missing: $(cat "$TMP/missing.$case_name")"
    else
        ok
    fi
done

# ---- hostile YAML: one 1 MiB anchored string and 20,000 aliases of it ------------------------
# Copying it would take 20 GB; the alias byte bound refuses it at the 17th alias (16 MiB), before
# copying (the place of the error says so) and in little memory. Each command runs under ulimit
# -v, so a regression dies instead of eating the machine (not under ASan, which reserves
# terabytes of address space).
Y=$TMP/yaml
mkdir -p "$Y/manifests/bomb"
{
    printf 'big: &big '
    head -c 1048576 /dev/zero | tr '\0' x
    printf '\ncopies:\n'
    yes '  - *big' | head -n 20000
} >"$Y/manifests/bomb/tool.manifest.yaml"
printf 'project:\n  name: bomb-tools\nbuild:\n  gates: false\n' >"$Y/toolgen.yaml"
case "$TG" in
*/asan/*) VLIMIT=unlimited ;;
*) VLIMIT=1048576 ;; # KiB: 1 GiB of address space
esac
# CMD...: run in the repository $Y under the address-space limit, and a CPU-time limit that
# only protects against a hang
bounded() {
    run sh -c 'ulimit -v "$1" && ulimit -t "$2" && shift 2 && cd "$0" && exec "$@"' \
        "$Y" "$VLIMIT" "$HANG_S" "$@"
}
BOMB_MSG="alias *big would copy 1048576 more bytes of text (the anchor at line 1, column 6), over the limit of 16777216 bytes"
bounded "$TG" lint
expect_rc "alias bytes: lint fails" 1
expect_out "alias bytes: lint names file:line:col and the limit" "manifests/bomb/tool.manifest.yaml:19:5: $BOMB_MSG"
bounded "$TG" build
expect_rc "alias bytes: build fails" 1
expect_err "alias bytes: build says why" "tool.manifest.yaml:19:5: $BOMB_MSG"
bounded "$TG" validate --schema "$(pwd)/schemas/tool.manifest.schema.json" manifests/bomb/tool.manifest.yaml
expect_rc "alias bytes: validate fails" 1
expect_err "alias bytes: validate says why" "$BOMB_MSG"
case "$OUT$ERR" in *xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx*) bad "alias bytes: the huge string was echoed" ;; *) ok ;; esac

# ---- files that resolve outside the repository -----------------------------------------------
# A secret outside the repository (think /etc/shadow): symlinks to it are refused, unread, and
# no output ever shows a line of it.
S=$TMP/secret
mkdir -p "$S"
printf 'root:$6$TOPSECRET-HASH-1:19000:0:99999:7:::\ndaemon:*:TOPSECRET-2:0:99999:7:::\n' >"$S/shadow"
printf 'import os\n# TOPSECRET-3\ndef run(file_path):\n    return {"text": "x"}\n' >"$S/code.py"
O=$TMP/outside
mkdir -p "$O/manifests/leak" "$O/manifests/dir_manifest/tool.manifest.yaml" "$O/manifests/code_leak" \
    "$O/manifests/inside" "$O/common"
cp toolgen.yaml "$O/toolgen.yaml"
ln -s "$S/shadow" "$O/manifests/leak/tool.manifest.yaml"
sed 's/@NAME@/inside/g' tests/synthetic_tool.yaml >"$O/common/inside.yaml"
ln -s ../../common/inside.yaml "$O/manifests/inside/tool.manifest.yaml"
sed -e 's/@NAME@/code_leak/g' -e 's/  runtime: command/  runtime: python/' \
    -e 's/  argv: .*/  file: tool.py/' -e 's/  stdout: text/  entrypoint: run/' \
    tests/synthetic_tool.yaml >"$O/manifests/code_leak/tool.manifest.yaml"
ln -s "$S/code.py" "$O/manifests/code_leak/tool.py"
no_secret() { # NAME: the last command's output shows no line of the secret
    case "$OUT$ERR" in *TOPSECRET*) bad "$1: printed the secret" ;; *) ok ;; esac
}
run sh -c 'cd "$1" && exec "$2" lint' sh "$O" "$TG"
expect_rc "outside: lint fails" 1
no_secret "outside: lint"
expect_out "outside: a manifest symlinked out is refused, naming its target" \
    "manifests/leak/tool.manifest.yaml: is a symlink to $(cd "$S" && pwd -P)/shadow, outside the repository"
expect_out "outside: ... and the fix" "replace the link with a copy of the file"
expect_out "outside: a directory named tool.manifest.yaml is a problem" \
    "manifests/dir_manifest/tool.manifest.yaml: is a directory, not a file"
expect_out "outside: a code file symlinked out is refused at /implementation/file" \
    "manifests/code_leak/tool.manifest.yaml:36:3: /implementation/file: manifests/code_leak/tool.py is a symlink to"
expect_not_out "outside: a link inside the repository is fine" "manifests/inside/"
run sh -c 'cd "$1" && exec "$2" lint manifests/leak/tool.manifest.yaml' sh "$O" "$TG"
expect_rc "outside: lint of the link itself fails" 1
expect_out "outside: ... and says so" "is a symlink to"
no_secret "outside: lint of the link"
run "$TG" lint "$O/manifests"
expect_rc "outside: lint of a directory outside the working directory" 1
expect_out "outside: ... confines to that directory" "is a symlink to"
no_secret "outside: lint of a directory elsewhere"

# A folder name that is not UTF-8 (and holds a newline) is printed escaped, one line per problem.
U=$TMP/utf8
mkdir -p "$U/manifests/ok" && cp tests/sandbox/toolgen.yaml "$U/"
BAD=$(printf 'b\377ad\nx')
mkdir -p "$U/manifests/$BAD"
cp tests/sandbox/manifests/paths/tool.manifest.yaml "$U/manifests/$BAD/"
run sh -c 'cd "$1" && exec "$2" lint' sh "$U" "$TG"
expect_rc "non-UTF-8 folder: problems" 1
expect_out "non-UTF-8 folder: named escaped" 'manifests/b\xffad\x0ax/tool.manifest.yaml:3:1: /name:'
if printf '%s%s' "$OUT" "$ERR" | LC_ALL=C grep -q "$(printf '[\200-\377]')"; then
    bad "non-UTF-8 folder: raw bytes printed"
else ok; fi
expect_eq "non-UTF-8 folder: one line per problem" "$(printf '%s\n' "$OUT" | grep -c '^manifests/')" \
    "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')"

finish cli-lint
