#!/bin/sh
# toolgen run reads only files inside the repository (docs/manifest.md#files-outside-the-repository):
# an --input-file, a manifest or a tool's code that is a symlink out of it is refused with a
# message naming it, and no output shows a line of what it points at. An input file in a data
# directory (sandbox.data_dirs) is fine even when that directory is a link elsewhere.
. tests/lib.sh

# run as root, tool code runs as an unprivileged user who must reach the repository
chmod 755 "$TMP"
S=$TMP/secret
mkdir -p "$S"
printf 'root:$6$TOPSECRET-HASH-1:19000:0:99999:7:::\ndaemon:*:TOPSECRET-2:0:99999:7:::\n' >"$S/shadow"
printf '{"file_path": "data/iris.csv", "TOPSECRET-3": 1}\n' >"$S/args.json"
printf 'def run(file_path):\n    return {"text": "TOPSECRET-4"}\n' >"$S/code.py"

R=$TMP/repo
mkdir -p "$R/manifests/preview_file_lines" "$R/manifests/leak" "$R/manifests/code_leak" "$TMP/datasets"
cp toolgen.yaml "$R/"
cp manifests/preview_file_lines/tool.manifest.yaml "$R/manifests/preview_file_lines/"
cp data/iris.csv "$TMP/datasets/"
ln -s "$TMP/datasets" "$R/data" # a data directory may live elsewhere
printf '{"file_path": "data/iris.csv", "lines": 1}\n' >"$R/in.json"
printf '{"file_path": "data/iris.csv", "lines": 2}\n' >"$TMP/datasets/in.json"
ln -s "$S/args.json" "$R/link.json"
ln -s "$S/shadow" "$R/manifests/leak/tool.manifest.yaml"
sed -e 's/@NAME@/code_leak/g' -e 's/  runtime: command/  runtime: python/' \
    -e 's/  argv: .*/  file: tool.py/' -e 's/  stdout: text/  entrypoint: run/' \
    tests/synthetic_tool.yaml >"$R/manifests/code_leak/tool.manifest.yaml"
ln -s "$S/code.py" "$R/manifests/code_leak/tool.py"
REAL_S=$(cd "$S" && pwd -P)

no_secret() { # NAME: the last command's output shows no line of the secret
    case "$OUT$ERR" in *TOPSECRET*) bad "$1: printed the secret" ;; *) ok ;; esac
}
in_repo() { run sh -c 'cd "$1" && shift && exec "$@"' sh "$R" "$TG" "$@"; }

in_repo run preview_file_lines --input-file link.json
expect_rc "input file linked out: usage error" 2
expect_err "input file linked out: names it and its target" \
    "link.json: is a symlink to $REAL_S/args.json, outside the repository and its data directories"
no_secret "input file linked out"

in_repo run preview_file_lines --input-file in.json
expect_rc "input file in the repository: runs" 0
expect_out "input file in the repository: the tool's output" "sepal_length"

in_repo run preview_file_lines --input-file data/in.json
expect_rc "input file in a data directory that links elsewhere: runs" 0

in_repo run preview_file_lines --input-file "$S/args.json"
expect_rc "input file outside by absolute path: refused" 2
expect_err "input file outside by absolute path: says so" "outside the repository"
no_secret "input file outside by absolute path"

in_repo run leak
expect_rc "manifest linked out: refused" 2
expect_err "manifest linked out: names its target" "tool.manifest.yaml: is a symlink to $REAL_S/shadow"
no_secret "manifest linked out"

in_repo run code_leak --arg file_path=data/iris.csv
expect_rc "code linked out: refused" 2
expect_err "code linked out: says so" "manifests/code_leak/tool.py: is a symlink to $REAL_S/code.py"
no_secret "code linked out"

finish cli-run-confine
