#!/bin/sh
# toolgen init --from-cli (docs/cli.md#init-from-cli): the real --help of git (subcommands),
# curl and jq becomes lint-clean draft manifests of the command runtime whose build is
# byte-stable; a drafted jq tool runs on a data file; tests/testdata/fromcli/argecho (a program
# printing the argv it received as JSON) and tests/testdata/fromcli/subtool (subcommands, one
# whose help fails) show that types, enums and defaults are read, that
# dangerous options are left out and named, and that injection attempts stay literal values;
# a program not found, not executable or whose --help fails is refused with nothing written;
# a re-run updates only its own drafts.
. tests/lib.sh

need "jq is installed (make test-deps)" jq --version
need "git is installed (make test-deps)" git --version
need "curl is installed (make test-deps)" curl --version
tree_sum() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs cat | cksum); }
# stable DIR NAME: two clean builds of DIR give the same generated/ (tests of drafts whose
# example needs real values may fail: -k 0 builds everything regardless)
stable() {
    "$TG" -C "$1" build -k 0 >"$TMP/b1" 2>&1
    [ -d "$1/generated/mcp" ] || { bad "$2: build wrote generated/"; return; }
    first=$(tree_sum "$1/generated")
    rm -rf "$1/generated" "$1/.toolgen"
    "$TG" -C "$1" build -k 0 >"$TMP/b2" 2>&1
    expect_eq "$2: a second clean build gives the same generated/" "$(tree_sum "$1/generated")" "$first"
}
field() { sed -n "/^$2/,/^[a-z]/p" "$1"; } # FILE KEY: the top-level section KEY of a manifest

# ---- jq: one tool, run on a data file ----
J=$TMP/jq
run "$TG" init --from-cli jq "$J"
expect_rc "jq: drafted" 0
expect_out "one tool named jq" "created    jq"
M=$J/manifests/jq/tool.manifest.yaml
grep -q '^status: draft$' $M && grep -q '^  runtime: command$' $M && ok || bad "jq: a draft of the command runtime"
grep -q "^    - \"$(command -v jq)\"$" $M && ok || bad "jq: argv[0] is jq's absolute path"
field $M input_schema | grep -q '^    jq_filter:$' && ok || bad "jq: the positional <jq filter> is a property"
field $M input_schema | grep -A1 '^    flag_s:$' | grep -q 'type: boolean' && ok || bad "jq: a switch (-s) is a boolean"
grep -q '^    - when: flag_s$' $M && grep -q '^      arg: "-s"$' $M && ok || bad "jq: a switch in argv"
field $M input_schema | grep -q 'pattern: "^\[^-\]"' && ok ||
    bad "jq (no [--] in its usage): positionals may not start with '-'"
grep -q 'Left out: --arg a v: takes more than one value' $M && ok || bad "jq: --arg a v left out, named"
for k in argv args_list raw_args; do
    field $M input_schema | grep -q "^    $k:" && bad "jq: a free-form $k property"
done
grep -q '^  - name: from_help$' $M && grep -q 'jq_filter: "."' $M && ok ||
    bad "jq: the example's input comes from the example in --help (jq .)"
run "$TG" -C "$J" lint
expect_rc "jq: lint clean" 0
printf '{"a": {"b": [1, 2]}}\n' >"$J/data/doc.json"
run "$TG" -C "$J" run jq --input '{"jq_filter": ".a.b | add", "file": "data/doc.json", "flag_c": true}' --json
expect_rc "jq: the drafted tool runs on a data file" 0
expect_out "jq: the result" '"text": "3"'
run "$TG" -C "$J" build
expect_rc "jq: build (its example recorded at init passes)" 0
stable "$J" jq

# ---- git: one tool per subcommand ----
G=$TMP/git
run "$TG" init --from-cli git "$G"
expect_rc "git: drafted" 0
for t in git_clone git_status git_log git_commit; do
    expect_out "git: created $t" "created    $t"
done
n=$(ls "$G/manifests" | grep -c '^git_')
[ "$n" -ge 10 ] && ok || bad "git: a tool per listed subcommand ($n)"
C=$G/manifests/git_clone/tool.manifest.yaml
grep -q '^    - clone$' $C && ok || bad "git clone: the subcommand follows the program in argv"
field $C input_schema | grep -A1 '^    depth:$' | grep -q 'type: integer' && ok || bad "git clone: --depth <depth> is an integer"
grep -q '^    - "--depth={depth}"$' $C && ok || bad "git clone: a value glued to its flag"
grep -q '^    - "--"$' $C && field $C input_schema | grep -q '^    repo:$' && ok ||
    bad "git clone: [--] in its usage: positionals after --"
field $C input_schema | grep -q '^    repo:$' && field $C input_schema | grep -A20 '^  required:' | grep -q '^    - repo$' &&
    ok || bad "git clone: <repo> required, [<dir>] optional"
[ "$(grep -n '"{repo}"\|"{dir}"' $C | cut -d: -f1 | tr '\n' ' ')" != "" ] &&
    [ "$(grep -n '"{repo}"' $C | cut -d: -f1)" -lt "$(grep -n '"{dir}"' $C | cut -d: -f1)" ] && ok ||
    bad "git clone: positionals keep their order"
for f in upload-pack config template separate-git-dir; do
    grep -q "Left out: --$f " $C && ok || bad "git clone: --$f left out and named in docs.limitations"
done
grep -q '"--upload-pack\|"--config\|"--template' $C && bad "git clone: a dangerous flag is in argv"
grep -q 'recurse_submodules\|recursive' $C && ok || bad "git clone: --recurse-submodules is not mistaken for a dangerous one"
cat $G/manifests/*/tool.manifest.yaml | grep -q '^        - or$' && bad "git: an enum holds the word 'or'"
run "$TG" -C "$G" lint
expect_rc "git: lint clean" 0
stable "$G" git
run "$TG" init --from-cli git "$G" --dry-run
expect_out "git: a dry re-run changes nothing" "would draft"
expect_out "... each unchanged" "unchanged  git_clone"
expect_not_out "... nothing updated" "updated "

# a hints file selects subcommands, renames and describes them
H=$TMP/hinted
mkdir -p "$H"
cat >"$H/toolgen.hints.yaml" <<'EOF'
include:
  - operation: log
  - path: sh*
  - path: stat*
exclude:
  - operation: show
  - operation: nosuchcommand
rename:
  log: git_history
descriptions:
  status: Which files changed in the working tree.
EOF
run "$TG" init --from-cli git "$H" --name-budget 20
expect_rc "hints: drafted" 0
expect_eq "hints: only the included subcommands, less the excluded" \
    "$(ls "$H/manifests" | grep -v gitkeep | tr '\n' ' ')" "git_history git_status "
expect_out "hints: an excluded subcommand is listed" "git show: excluded by the hints file"
expect_out "hints: one not included is listed" "git clone: not included by the hints file"
expect_err "hints: a rule matching nothing is a warning" 'exclude rule {"operation":"nosuchcommand"} matches no'
grep -q '^description: Which files changed in the working tree.$' "$H/manifests/git_status/tool.manifest.yaml" &&
    ok || bad "hints: the description replaces the listing's"
printf 'rename:\n  log: a_name_longer_than_twenty\n' >"$H/toolgen.hints.yaml"
rm -rf "$H/manifests/git_history" "$H/manifests/git_status"
run "$TG" init --from-cli git "$H" --name-budget 20
expect_rc "hints: a rename over the budget is refused" 2
expect_err "... saying so" "is longer than the name budget"
[ -z "$(ls "$H/manifests" | grep -v gitkeep)" ] && ok || bad "hints: refused, nothing written"

# ---- curl: no subcommands, many options ----
U=$TMP/curl
run "$TG" init --from-cli curl "$U"
expect_rc "curl: drafted" 0
expect_out "curl: one tool" "created    curl"
K=$U/manifests/curl/tool.manifest.yaml
for f in output upload-file remote-name; do
    grep -q "Left out: --$f[ :]" $K && ok || bad "curl: --$f left out and named"
done
field $K input_schema | grep -q '^    url:$' && ok || bad "curl: <url> is a property"
run "$TG" -C "$U" lint
expect_rc "curl: lint clean" 0
stable "$U" curl

# ---- argecho: types, enums, defaults, dangerous options, injection ----
A=$TMP/echo
PROG=$(pwd)/tests/testdata/fromcli/argecho
run "$TG" init "$A"
expect_rc "argecho: a repository" 0
# argecho lives in the source tree, which bubblewrap does not show: run it unisolated
sed 's/isolation: bwrap/isolation: none/' "$A/toolgen.yaml" >"$TMP/y" && mv "$TMP/y" "$A/toolgen.yaml"
run "$TG" init --from-cli "$PROG" "$A"
expect_rc "argecho: drafted" 0
E=$A/manifests/argecho/tool.manifest.yaml
S=$(field $E input_schema)
printf '%s' "$S" | grep -A3 '^    count:$' | grep -q 'type: integer' && printf '%s' "$S" | grep -A3 '^    count:$' | grep -q 'default: 3' &&
    ok || bad "argecho: --count <n> (default: 3) is an integer defaulting to 3"
printf '%s' "$S" | grep -A8 '^    mode:$' | tr -d '\n ' | grep -q 'enum:-fast-slow-safedefault:fast' && ok ||
    bad "argecho: 'one of fast, slow, safe (default: fast)' is an enum with a default"
printf '%s' "$S" | grep -A5 '^    format:$' | tr -d '\n ' | grep -q 'enum:-json-text' && ok ||
    bad "argecho: {json,text} is an enum"
printf '%s' "$S" | grep -A1 '^    ratio:$' | grep -q 'type: number' && ok || bad "argecho: <fractional seconds> is a number"
printf '%s' "$S" | grep -A1 '^    verbose:$' | grep -q 'type: boolean' && ok || bad "argecho: -v, --verbose is a boolean"
printf '%s' "$S" | grep -q '^    \(config\|output\|exec\|upload_pack\|argv\|args\):' &&
    bad "argecho: a dangerous or free-form property" || ok
for f in "--config <file>" "--output <file>" "--exec <command>" "--upload-pack <path>"; do
    grep -q "Left out: $f" $E && ok || bad "argecho: $f named in docs.limitations"
done
run "$TG" -C "$A" lint
expect_rc "argecho: lint clean" 0
cat >"$A/inj.json" <<'EOF'
{"pattern": "; rm -rf /", "words": ["$(id)", "--config=/etc/passwd", "-x", "a b"],
 "name": "--config=/etc/passwd", "verbose": true, "count": 5, "format": "json"}
EOF
run "$TG" -C "$A" run argecho --input-file "$A/inj.json" --json
expect_rc "argecho: the injection call ran" 0
expect_out "every value is one literal argument, after its flag or after --" \
    '[\"--verbose\", \"--count=5\", \"--mode=fast\", \"--format=json\", \"--name=--config=/etc/passwd\", \"--\", \"; rm -rf /\", \"$(id)\", \"--config=/etc/passwd\", \"-x\", \"a b\"]'
run "$TG" -C "$A" run argecho --input '{"pattern": "p", "verbose": false}' --json
expect_out "a false switch passes nothing" '[\"--count=3\", \"--mode=fast\", \"--\", \"p\"]'
run "$TG" -C "$A" run argecho --input '{"pattern": "p", "args": "--config=/etc/passwd"}'
[ "$RC" -ne 0 ] && ok || bad "argecho: an undeclared argv-like property is refused"
run "$TG" -C "$A" run argecho --input '{"pattern": "p", "format": "--exec=sh"}'
[ "$RC" -ne 0 ] && ok || bad "argecho: a value outside the enum is refused"
run "$TG" -C "$A" build
expect_rc "argecho: build (its example recorded at init passes)" 0
# lint: a switch must name a boolean property
cp $E "$TMP/keep.yaml"
sed -i 's/^    - when: verbose$/    - when: count/' $E
run "$TG" -C "$A" lint
expect_rc "lint: a switch naming a non-boolean is an error" 1
expect_out "... named" "the switch's 'count' must be a boolean property"
cp "$TMP/keep.yaml" $E

# re-running: unchanged; a reviewed manifest is kept
run "$TG" init --from-cli "$PROG" "$A"
expect_out "a re-run changes nothing" "unchanged  argecho"
sed -i 's/^status: draft$/status: staged/' $E
run "$TG" init --from-cli "$PROG" "$A"
expect_out "a reviewed manifest is kept" "kept       argecho (status staged"

# ---- subtool: a "Commands:" listing; a subcommand whose help fails is left out ----
T=$TMP/sub
run "$TG" init "$T"
sed 's/isolation: bwrap/isolation: none/' "$T/toolgen.yaml" >"$TMP/y" && mv "$TMP/y" "$T/toolgen.yaml"
run "$TG" init --from-cli "$(pwd)/tests/testdata/fromcli/subtool" "$T"
expect_rc "subtool: drafted" 0
expect_out "subtool: a tool per listed subcommand" "created    subtool_greet"
expect_out "subtool: one whose help fails is left out, saying why" \
    "subtool broken: its --help failed (it exited with status 4: broken: no help here)"
W=$T/manifests/subtool_greet/tool.manifest.yaml
grep -q '^description: Say hello to someone$' $W && ok || bad "subtool: the listing's line is the description"
field $W input_schema | grep -A3 '^    times:$' | grep -q 'default: 1' && ok || bad "subtool: --times <count> (default: 1)"
run "$TG" -C "$T" run subtool_greet --input '{"who": "bob", "loud": true}' --json
expect_out "subtool: the subcommand, the options, the positional" '[\"greet\", \"--loud\", \"--times=1\", \"bob\"]'
run "$TG" -C "$T" run subtool_greet --input '{"who": "-rf"}' --json
[ "$RC" -ne 0 ] && ok || bad "subtool: no [--] in its usage: a positional starting with '-' is refused"
expect_out "... as invalid input" "INVALID_INPUT"

# ---- refusals: nothing written ----
N=$TMP/none
run "$TG" init --from-cli no-such-program-xyz "$N"
expect_rc "not found: usage error" 2
expect_err "not found: said" "'no-such-program-xyz' was not found on PATH"
[ ! -e "$N" ] && ok || bad "not found: nothing written"
printf '#!/bin/sh\necho hi\n' >"$TMP/noexec"
run "$TG" init --from-cli "$TMP/noexec" "$N"
expect_rc "not executable: usage error" 2
expect_err "not executable: said" "is not an executable file"
[ ! -e "$N" ] && ok || bad "not executable: nothing written"
run "$TG" init --from-cli "git status; rm -rf /" "$N"
expect_rc "a shell line: refused" 2
expect_err "a shell line: said" "is not one program"
run "$TG" init "$N"
sed 's/isolation: bwrap/isolation: none/' "$N/toolgen.yaml" >"$TMP/y" && mv "$TMP/y" "$N/toolgen.yaml"
printf '#!/bin/sh\necho "no help here" >&2\nexit 3\n' >"$TMP/nohelp"
chmod +x "$TMP/nohelp"
run "$TG" init --from-cli "$TMP/nohelp" "$N"
expect_rc "--help fails: usage error" 2
expect_err "--help fails: said, with the program's words" "--help\` failed in the sandbox: it exited with status 3: no help here"
[ -z "$(ls "$N/manifests" | grep -v .gitkeep)" ] && ok || bad "--help fails: no manifest written"
run "$TG" init --from-cli "$TMP/nohelp" "$TMP/other"
expect_rc "bwrap does not show a program outside /usr: refused" 2
expect_err "... saying where programs must be" "is not where the sandbox sees programs"
[ ! -e "$TMP/other" ] && ok || bad "outside the sandbox: nothing written"

run "$TG" init --help
expect_out "init --help names --from-cli" "toolgen init --from-cli CMD [DIR]"
grep -q '^### Init from CLI$' docs/cli.md && grep -q 'from\\-cli' docs/toolgen.1 && ok ||
    bad "documented in docs/cli.md and the man page"

finish init_from_cli
