#!/bin/sh
# toolgen build / explain / graph / clean / check: incrementality, early cut-off, hand edits,
# deleted manifests, interruption (kill -9 and SIGTERM), the lock, -n, -k, unknown tools, files
# outside the repository (refused),
# determinism across paths, and check against git. Every case runs in its own temp repository.
. tests/lib.sh
T=$TMP

# mk_tool REPO NAME: a small valid command tool (strict OpenAI schema)
mk_tool() {
    mkdir -p "$1/manifests/$2"
    sed "s/@NAME@/$2/g" tests/synthetic_tool.yaml >"$1/manifests/$2/tool.manifest.yaml"
}

# mk_repo DIR N: toolgen.yaml and tools tool_0 .. tool_{N-1}
mk_repo() {
    mkdir -p "$1/manifests"
    # build.gates: false: these tests are about the engine; tests/cli/gates.sh tests the gates
    printf 'project:\n  name: test-tools\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$1/toolgen.yaml"
    i=0
    while [ "$i" -lt "$2" ]; do
        mk_tool "$1" "tool_$i"
        i=$((i + 1))
    done
}

# tree_sum DIR: one line per file under DIR/generated with its checksum
tree_sum() {
    (cd "$1" && find generated -type f | LC_ALL=C sort | while IFS= read -r f; do
        printf '%s %s\n' "$(cksum <"$f")" "$f"
    done)
}

# ---- not a repository; a bad config in a fresh repository: exit 2, nothing written ----------
E=$T/empty
mkdir -p "$E"
run "$TG" -C "$E" build
expect_rc "not a repository: exit 2" 2
expect_err "not a repository: says so" "not a toolgen repository"
printf 'project:\n  name: Not_Kebab\n' >"$E/toolgen.yaml"
mk_tool "$E" tool_a
run "$TG" -C "$E" build
expect_rc "bad project name: exit 2" 2
expect_err "bad project name: file:line:col" "toolgen.yaml:2:3: /project/name"
[ ! -e "$E/.toolgen" ] && [ ! -e "$E/generated" ] && ok || bad "refused build left files behind"

# ---- full build, no-op, touch ----------------------------------------------------------------
R=$T/r1
mk_repo "$R" 3
run "$TG" -C "$R" build
expect_rc "full build" 0
expect_out "full build runs every stage" "ran 7 stages (load 3, emit 3, aggregate 1)"
[ -f "$R/generated/tool_1/openai.json" ] && [ -f "$R/generated/mcp/tools.json" ] &&
    [ -f "$R/generated/skill/test-tools/SKILL.md" ] && [ -f "$R/.toolgen/reports/tool_1.json" ] &&
    ok || bad "full build: outputs missing"
SUM=$(tree_sum "$R")

run "$TG" -C "$R" build
expect_rc "second build" 0
expect_eq "second build runs zero stages" "$OUT" "toolgen: no work to do."

touch -d '2001-02-03 04:05:06' "$R"/manifests/*/tool.manifest.yaml # another mtime, same bytes
run "$TG" -C "$R" build
expect_eq "touching manifests runs zero stages" "$OUT" "toolgen: no work to do."
expect_eq "touch: tree unchanged" "$(tree_sum "$R")" "$SUM"

# ---- editing one manifest reruns only its stages and the aggregate ---------------------------
sed 's/Print a data file as text/Print a data file as plain text/' \
    "$R/manifests/tool_1/tool.manifest.yaml" >"$T/m" && cp "$T/m" "$R/manifests/tool_1/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "edit: that tool + aggregate" "ran 3 stages (load 1, emit 1, aggregate 1)"
expect_out "edit: load of the edited tool" "] load tool_1"
expect_out "edit: emit of the edited tool" "] emit tool_1"
expect_not_out "edit: other tools untouched" "tool_0"
expect_not_out "edit: other tools untouched (2)" "tool_2"
expect_out "edit: -v says why" "because manifests/tool_1/tool.manifest.yaml changed"
grep -q "plain text" "$R/generated/tool_1/mcp.tool.json" && ok || bad "edit: new text not emitted"
grep -q "plain text" "$R/generated/mcp/tools.json" && ok || bad "edit: aggregate not updated"

# ---- a comment-only edit reruns load, not emit (early cut-off) ---------------------------------
SUM=$(tree_sum "$R")
printf '# a comment only\n' >>"$R/manifests/tool_2/tool.manifest.yaml"
run "$TG" -C "$R" build -v
expect_out "comment edit: only load runs" "ran 1 stage (load 1), 6 up to date (2 after early cut-off)"
expect_out "comment edit: load ran" "] load tool_2"
expect_not_out "comment edit: emit did not run" "] emit tool_2"
expect_not_out "comment edit: aggregate did not run" "] aggregate"
expect_out "comment edit: -v reports the cut-off" "emit tool_2: up to date after all"
expect_eq "comment edit: tree unchanged" "$(tree_sum "$R")" "$SUM"

# ---- a hand-edited generated file is restored, with a warning --------------------------------
cp "$R/generated/tool_0/openai.json" "$T/openai.orig"
sed 's/"strict": true/"strict": false/' "$T/openai.orig" >"$R/generated/tool_0/openai.json"
run "$TG" -C "$R" explain tool_0
expect_out "explain: hand edit" "emit tool_0: would run: output generated/tool_0/openai.json was edited by hand"
expect_out "explain: load up to date" "load tool_0: up to date"
run "$TG" -C "$R" build
expect_rc "hand edit: build" 0
expect_err "hand edit: warning" "generated/tool_0/openai.json was edited by hand; overwritten"
expect_out "hand edit: only emit reruns" "ran 1 stage (emit 1)"
cmp -s "$T/openai.orig" "$R/generated/tool_0/openai.json" && ok || bad "hand edit: not restored"
rm "$R/generated/tool_0/anthropic.json"
run "$TG" -C "$R" build
expect_out "deleted output: emit reruns" "ran 1 stage (emit 1)"
[ -f "$R/generated/tool_0/anthropic.json" ] && ok || bad "deleted output: not restored"

# ---- -n changes nothing --------------------------------------------------------------------
sed 's/Show data file tool_1/Show the data file tool_1/' \
    "$R/manifests/tool_1/tool.manifest.yaml" >"$T/m" && cp "$T/m" "$R/manifests/tool_1/tool.manifest.yaml"
SUM=$(tree_sum "$R")
LOGSUM=$(cksum <"$R/.toolgen/log")
run "$TG" -C "$R" build -n
expect_rc "-n: exit 0" 0
expect_out "-n: says what would run" "load tool_1: would run: manifests/tool_1/tool.manifest.yaml changed"
expect_out "-n: downstream may run" "emit tool_1: runs only if load tool_1 changes its output"
expect_out "-n: count" "3 stages would run"
expect_eq "-n: generated/ unchanged" "$(tree_sum "$R")" "$SUM"
expect_eq "-n: log unchanged" "$(cksum <"$R/.toolgen/log")" "$LOGSUM"

# ---- TOOL... limits the build; unknown TOOL ------------------------------------------------
run "$TG" -C "$R" build tool_1
expect_out "TOOL: only its stages" "ran 2 stages (load 1, emit 1)"
expect_not_out "TOOL: no aggregate" "aggregate"
grep -q "Show the data file" "$R/generated/tool_1/mcp.tool.json" && ok || bad "TOOL: not built"
run "$TG" -C "$R" build
expect_out "after TOOL: the aggregate catches up" "ran 1 stage (aggregate 1)"
run "$TG" -C "$R" build nope
expect_rc "unknown TOOL: exit 2" 2
expect_err "unknown TOOL: names it" "unknown tool 'nope'"
expect_err "unknown TOOL: lists the known tools" "known tools: tool_0, tool_1, tool_2"

# ---- a config change reruns only what reads it ---------------------------------------------
printf 'project:\n  name: renamed-tools\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"
run "$TG" -C "$R" build
expect_out "config: project change reruns the aggregate only" "ran 1 stage (aggregate 1)"
[ -f "$R/generated/skill/renamed-tools/SKILL.md" ] && [ ! -d "$R/generated/skill/test-tools" ] &&
    ok || bad "config: old skill folder not replaced"
printf 'project:\n  name: renamed-tools\n  version: one\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"
run "$TG" -C "$R" build
expect_rc "bad toolgen.yaml: exit 2" 2
expect_err "bad toolgen.yaml: file:line:col" "toolgen.yaml:3:"
printf 'project:\n  name: renamed-tools\n  version: 1.0.0\nbuild:\n  gates: false\n' >"$R/toolgen.yaml"

# ---- deleting a manifest removes its outputs ---------------------------------------------------
rm -r "$R/manifests/tool_0"
run "$TG" -C "$R" build -v
expect_rc "delete: build" 0
expect_out "delete: outputs removed" "removed generated/tool_0/"
[ ! -e "$R/generated/tool_0" ] && [ ! -e "$R/.toolgen/ir/tool_0.json" ] &&
    [ ! -e "$R/.toolgen/reports/tool_0.json" ] && ok || bad "delete: files of tool_0 remain"
grep -q tool_0 "$R/generated/mcp/tools.json" && bad "delete: still in tools.json" || ok
run "$TG" -C "$R" build
expect_eq "delete: then nothing to do" "$OUT" "toolgen: no work to do."

# ---- graph ---------------------------------------------------------------------------------
run "$TG" -C "$R" graph
expect_rc "graph" 0
expect_out "graph: dot" "digraph toolgen {"
expect_out "graph: edge load -> emit" '"load:tool_1" -> "emit:tool_1";'
expect_out "graph: edge load -> aggregate" '"load:tool_2" -> "aggregate";'
G1=$OUT
run "$TG" -C "$R" graph
expect_eq "graph: deterministic" "$OUT" "$G1"

# ---- -k with two broken manifests ---------------------------------------------------------
K=$T/k
mk_repo "$K" 1
mk_tool "$K" bad_a
mk_tool "$K" bad_b
sed 's/^version: 1.0.0/version: one/' "$K/manifests/bad_a/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$K/manifests/bad_a/tool.manifest.yaml"
sed 's/^risk: low/risk: lowish/' "$K/manifests/bad_b/tool.manifest.yaml" >"$T/m" &&
    cp "$T/m" "$K/manifests/bad_b/tool.manifest.yaml"
run "$TG" -C "$K" build -j1
expect_rc "-k default: exit 1" 1
expect_err "-k default: names tool and stage" "FAILED: [1/"
expect_err "-k default: first failure" "load bad_a"
expect_err "-k default: file:line:col of the cause" "manifests/bad_a/tool.manifest.yaml:4:"
expect_out "-k default: stops after 1 failure" "1 stage failed: load bad_a"
case "$ERR" in *"load bad_b"*) bad "-k default: went on after the first failure" ;; *) ok ;; esac
run "$TG" -C "$K" build -j1 -k 0
expect_rc "-k 0: exit 1" 1
expect_out "-k 0: both failures" "2 stages failed: load bad_a, load bad_b"
expect_err "-k 0: second cause" "manifests/bad_b/tool.manifest.yaml:8:"
[ -f "$K/generated/tool_0/openai.json" ] && ok || bad "-k 0: the good tool was not built"
[ ! -e "$K/generated/mcp/tools.json" ] && ok || bad "-k 0: aggregate ran despite failures"
run "$TG" -C "$K" build -j1 -k2
expect_out "-k 2: both failures" "2 stages failed"

# ---- the lock --------------------------------------------------------------------------------
# held by another process (flock(2), as flock(1) takes it) until the test lets it go; the holder
# also gives up when the test's directory is gone
mkdir -p "$R/.toolgen"
python3 -c '
import fcntl, os, sys, time
lock, held, release = sys.argv[1:4]
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
open(held, "w").close()
while os.path.isdir(os.path.dirname(release)) and not os.path.exists(release):
    time.sleep(0.05)
' "$R/.toolgen/lock" "$T/lock.held" "$T/lock.release" &
FPID=$!
wait_for test -f "$T/lock.held" || setup_failed "the lock was not taken"
run "$TG" -C "$R" build
expect_rc "lock held: exit 3" 3
expect_err "lock held: clear message" "another toolgen is building this repository"
touch "$T/lock.release"
wait "$FPID"
L=$T/lock
mk_repo "$L" 300
hold lock "$TG" -C "$L" build -j1
[ -n "$CPID" ] || setup_failed "concurrent build: the first build ended before it could be held"
run "$TG" -C "$L" build
expect_rc "concurrent build: the second fails at once" 3
expect_err "concurrent build: message" "holds .toolgen/lock"
release
expect_rc "concurrent build: the first one goes on" 0
run "$TG" -C "$L" build
expect_eq "concurrent build: the first one finished the job" "$OUT" "toolgen: no work to do."

# ---- interruption: kill -9 mid-way, then build = clean build ---------------------------------
I=$T/kill
mk_repo "$I" 300
hold kill "$TG" -C "$I" build -j1
[ -n "$CPID" ] || setup_failed "kill -9: the build ended before it could be held"
kill -9 "$CPID"
release
expect_rc "kill -9: killed mid-way" 137
expect_not_out "kill -9: the build did not finish" "toolgen: ran"
run "$TG" -C "$I" build
expect_rc "after kill -9: build" 0
C=$T/clean
mk_repo "$C" 300
"$TG" -C "$C" build >/dev/null 2>&1
diff -r "$I/generated" "$C/generated" >"$T/kill.diff" 2>&1 && ok || bad "after kill -9: tree differs from a clean build: $(head -5 "$T/kill.diff")"
[ -z "$(ls -A "$I/.toolgen/tmp")" ] && ok || bad "after kill -9: temporary files left"
run "$TG" -C "$I" build
expect_eq "after kill -9 + build: nothing to do" "$OUT" "toolgen: no work to do."

# SIGTERM (like Ctrl-C): running stages finish, the rest is not started, exit 130
"$TG" -C "$I" clean >/dev/null 2>&1
hold term "$TG" -C "$I" build -j1
[ -n "$CPID" ] || setup_failed "SIGTERM: the build ended before it could be held"
kill -TERM "$CPID"
release
expect_rc "SIGTERM: exit 130" 130
expect_out "SIGTERM: says so" "toolgen: interrupted:"
expect_not_out "SIGTERM: the stages not yet started did not run" "[601/601]"
run "$TG" -C "$I" build
expect_rc "after SIGTERM: build" 0
case "$OUT" in *"ran 601 stages"*) bad "after SIGTERM: finished stages were rebuilt" ;; *) ok ;; esac
diff -r "$I/generated" "$C/generated" >/dev/null 2>&1 && ok || bad "after SIGTERM: tree differs"

# ---- determinism: another path, byte-identical generated/ -----------------------------------
D=$T/elsewhere/deeper/copy
mkdir -p "$D"
cp -r "$C/manifests" "$C/toolgen.yaml" "$D/"
"$TG" -C "$D" build -j3 >/dev/null 2>&1
diff -r "$C/generated" "$D/generated" >/dev/null 2>&1 && ok || bad "determinism: tree depends on the path or -j"

# ---- clean ---------------------------------------------------------------------------------
echo "mine" >"$R/generated/notes.txt"
run "$TG" -C "$R" clean
expect_rc "clean" 0
expect_out "clean: keeps what toolgen did not write" "kept generated/notes.txt"
[ -f "$R/generated/notes.txt" ] && [ ! -e "$R/generated/tool_1" ] && [ ! -e "$R/generated/mcp" ] &&
    [ ! -e "$R/.toolgen" ] && [ -f "$R/manifests/tool_1/tool.manifest.yaml" ] &&
    ok || bad "clean: wrong files removed"
run "$TG" -C "$R" build
expect_out "after clean: full build" "ran 5 stages"

# ---- check ---------------------------------------------------------------------------------
G=$T/git
mk_repo "$G" 2
run "$TG" -C "$G" check
expect_rc "check outside git: exit 2" 2
expect_err "check outside git: message" "not inside a git repository"
skip_unless "git is not installed" command -v git
(cd "$G" && git init -q . && "$TG" build >/dev/null && git add -A &&
    git -c user.name=t -c user.email=t@example.com commit -qm init) >/dev/null 2>&1
run "$TG" -C "$G" check
expect_rc "check clean: exit 0" 0
expect_out "check clean: says so" "matches the last commit"
sed 's/"strict": true/"strict": false/' "$G/generated/tool_1/openai.json" >"$T/o" &&
    cp "$T/o" "$G/generated/tool_1/openai.json"
run "$TG" -C "$G" check
expect_rc "check after a hand edit: exit 1" 1
expect_out "check after a hand edit: lists the file" "changed    generated/tool_1/openai.json"
run "$TG" -C "$G" check
expect_rc "check after restore: exit 0" 0
echo "stray" >"$G/generated/stray.txt"
run "$TG" -C "$G" check
expect_rc "check with an untracked file: exit 1" 1
expect_out "check with an untracked file: lists it" "untracked  generated/stray.txt"
rm "$G/generated/stray.txt"
mk_tool "$G" tool_new
run "$TG" -C "$G" check
expect_rc "check after a new manifest: exit 1" 1
expect_out "check after a new manifest: added files" "untracked  generated/tool_new/openai.json"
expect_out "check after a new manifest: changed aggregate" "changed    generated/mcp/tools.json"
skip_end

# ---- files outside the repository: refused unread (docs/manifest.md#files-outside-the-repository)
X=$T/outside
SECRET=$T/secret
mkdir -p "$SECRET" "$X/manifests/pytool" "$X/manifests/leak" "$X/data"
chmod 755 "$T" # run as root, the sandbox's unprivileged user must reach the repository
printf 'root:$6$TOPSECRET-HASH-1:19000:0:99999:7:::\ndaemon:*:TOPSECRET-2:0:99999:7:::\n' >"$SECRET/shadow"
printf 'def run(file_path):\n    return {"text": "TOPSECRET-3"}\n' >"$SECRET/code.py"
REAL_SECRET=$(cd "$SECRET" && pwd -P)
cp data/iris.csv "$X/data/"
printf 'project:\n  name: test-tools\n  version: 1.0.0\n' >"$X/toolgen.yaml"
sed -e 's/@NAME@/pytool/g' -e 's/  runtime: command/  runtime: python/' \
    -e 's/  argv: .*/  file: tool.py/' -e 's/  stdout: text/  entrypoint: run/' \
    tests/synthetic_tool.yaml >"$X/manifests/pytool/tool.manifest.yaml"
printf 'def run(file_path):\n    return {"text": "sepal_length,sepal_width"}\n' >"$X/manifests/pytool/tool.py"
ln -s "$SECRET/shadow" "$X/manifests/leak/tool.manifest.yaml"
no_secret() { # NAME: the last command's output shows no line of the secret
    case "$OUT$ERR" in *TOPSECRET*) bad "$1: printed the secret" ;; *) ok ;; esac
}
run "$TG" -C "$X" build -k0
expect_rc "outside: build fails" 1
expect_err "outside: a manifest linked out is refused, naming its target" \
    "manifests/leak/tool.manifest.yaml: is a symlink to $REAL_SECRET/shadow, outside the repository"
no_secret "outside: build"
rm "$X/manifests/leak/tool.manifest.yaml"
run "$TG" -C "$X" build
expect_rc "outside: without the link, the python tool builds" 0
# The code becomes a link after the manifest was loaded: only the static stage reruns, and it
# must refuse to read the file (toolgen may run as root).
rm "$X/manifests/pytool/tool.py"
ln -s "$SECRET/code.py" "$X/manifests/pytool/tool.py"
run "$TG" -C "$X" build
expect_rc "outside: code linked out: the build fails" 1
expect_err "outside: code linked out: the static stage refuses it" \
    "manifests/pytool/tool.py: is a symlink to $REAL_SECRET/code.py, outside the repository"
no_secret "outside: code linked out"

finish cli-build
